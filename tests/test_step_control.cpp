// The shared step control's failure checks, driven with hand-made reductions, and through the
// serial integrator on a network whose asymptotic update does not conserve mass.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "integrators/asymptotic.hpp"
#include "integrators/step_control.hpp"
#include "network/analytic.hpp"
#include "network/compact.hpp"

namespace zoneode {
namespace {

IntegratorSettings geometric_settings(bool renormalize) {
  IntegratorSettings s;
  s.schedule = StepSchedule::geometric;
  s.start_time = 1.0;
  s.end_time = 1e9;  // never reached in these tests
  s.dt_fraction = 0.5;
  s.max_mass_drift = 1e-2;
  s.renormalize = renormalize;
  return s;
}

// Steps of a controller that each gain `gain` of the mass they start from; returns the
// controller's status and how many steps it accepted.
ZoneResult run_gaining_steps(const IntegratorSettings& s, double gain, int attempts) {
  const double initial = 2.0;
  StepControl control(s, initial, true);
  double mass = initial;
  for (int k = 0; k < attempts && control.begin_attempt(); ++k) {
    AttemptReductions r;
    r.mass = mass * (1.0 + gain);
    if (control.end_attempt(r) == StepVerdict::accepted) mass = r.mass * control.scale();
  }
  return control.finish(mass);
}

TEST(StepControlDrift, RenormalisingDoesNotResetTheDrift) {
  // Each step gains 0.4% of its starting mass. Without renormalising, the mass after k steps is
  // 1.004^k of the initial: drift 1.2048e-2 > 1e-2 at the third step. Renormalising rescales
  // every state back to the initial mass, but the method has still made the same 1.004^k: the
  // zone must fail at the same step (before this was fixed it returned ok after any number of steps).
  for (bool renormalize : {false, true}) {
    const ZoneResult r = run_gaining_steps(geometric_settings(renormalize), 0.004, 50);
    EXPECT_EQ(r.status, zone_mass_drift) << "renormalize " << renormalize;
    EXPECT_EQ(r.steps, 2) << "renormalize " << renormalize;
    EXPECT_NEAR(r.max_mass_drift, 1.004 * 1.004 - 1.0, 1e-14) << "renormalize " << renormalize;
    // Two steps of dt = 0.5 t from t = 1: 1.5, then 2.25.
    EXPECT_DOUBLE_EQ(r.time_reached, 2.25);
  }
  // The renormalised state keeps the initial mass.
  EXPECT_NEAR(run_gaining_steps(geometric_settings(true), 0.004, 50).mass_fraction_sum, 2.0, 1e-14);
}

// The drift check skips its division where the deviation is surely below the bound; at and next
// to the bound it must decide, and report the largest drift, exactly as |m - c| / c would: masses
// stepped one ulp at a time across the bound, for several initial masses and bounds.
TEST(StepControlDrift, TheCheckDecidesAndReportsAsTheDivisionAtTheBound) {
  int crossings = 0;
  for (const double initial : {1.0, 2.0, 0.7310585786300049, 3.0e-5}) {
    for (const double bound : {1e-2, 1e-12, 0.37, 1e100}) {
      IntegratorSettings s = geometric_settings(false);
      s.max_mass_drift = bound;
      if (bound == 1e100) continue;  // nothing of a finite mass reaches it
      // The mass whose division lands on the bound, then 40 ulps either side.
      double mass = initial * (1.0 + bound);
      for (int k = 0; k < 40; ++k) mass = std::nextafter(mass, 0.0);
      bool passed_before = true;
      for (int k = 0; k < 80; ++k, mass = std::nextafter(mass, INFINITY)) {
        StepControl control(s, initial, true);
        ASSERT_TRUE(control.begin_attempt());
        AttemptReductions r;
        r.mass = mass;
        const double drift = std::fabs(mass - initial) / initial;  // the check's definition
        const bool expected = drift <= bound;
        const StepVerdict verdict = control.end_attempt(r);
        EXPECT_EQ(verdict == StepVerdict::accepted, expected) << initial << " " << bound << " " << k;
        if (expected) EXPECT_EQ(control.finish(mass).max_mass_drift, drift);  // bit for bit
        if (passed_before && !expected) ++crossings;
        passed_before = expected;
      }
    }
  }
  EXPECT_EQ(crossings, 12);  // every (initial, bound) pair crossed within the window
  // The largest of several accepted drifts, reported bit for bit as the largest division.
  IntegratorSettings s = geometric_settings(false);
  StepControl control(s, 3.0, true);
  double largest = 0.0;
  for (const double mass : {3.0 + 1e-9, 3.0 - 7e-9, 3.0 + 2e-9}) {
    ASSERT_TRUE(control.begin_attempt());
    AttemptReductions r;
    r.mass = mass;
    ASSERT_EQ(control.end_attempt(r), StepVerdict::accepted);
    largest = std::fmax(largest, std::fabs(mass - 3.0) / 3.0);
  }
  EXPECT_EQ(control.finish(3.0).max_mass_drift, largest);
}

TEST(StepControlDrift, AlternatingDriftThatCancelsIsNotAFailure) {
  // The compounded ratio is the unrenormalised mass: +0.4% then -0.4%/1.004 returns to the start.
  const IntegratorSettings s = geometric_settings(true);
  StepControl control(s, 1.0, true);
  for (int k = 0; k < 40 && control.begin_attempt(); ++k) {
    AttemptReductions r;
    r.mass = k % 2 == 0 ? 1.004 : 1.0 / 1.004;
    ASSERT_EQ(control.end_attempt(r), StepVerdict::accepted) << k;
  }
  const ZoneResult result = control.finish(1.0);
  EXPECT_EQ(result.status, zone_ok);
  EXPECT_EQ(result.steps, 40);
  EXPECT_NEAR(result.max_mass_drift, 0.004, 1e-12);
}

// The serial integrator on a decay chain x0 -> x1 (equal A, k = 2/s), geometric dt = 0.3 t from
// t = 0.1 to 20: where k dt > 1 (t > 1.67) the asymptotic branch takes x0 down to Y0 / (1 + k dt)
// but gives x1 k Y0 dt, so every such step creates mass. Simulated by hand (a few lines of Python
// of the same update): the largest one-step gain is 3.4e-3, the compounded gain 8.5e-3.
ZoneResult burn_chain(bool renormalize, double max_mass_drift) {
  const Network network = decay_chain_network({2.0});
  const CompactNetwork compact(network);
  const StepView view = compact.step_view();
  IntegratorSettings s;
  s.schedule = StepSchedule::geometric;
  s.start_time = 0.1;
  s.end_time = 20.0;
  s.dt_fraction = 0.3;
  s.abundance_floor = 0.0;
  s.max_mass_drift = max_mass_drift;
  s.renormalize = renormalize;
  std::vector<double> Y = {1.0 / network.species[0].A, 0.0};
  const MethodNetwork method_network{compact.rate_view(), view, {}};
  std::vector<double> workspace(asymptotic::workspace_doubles(method_network));
  ZoneResult result;
  asymptotic::integrate_zone(method_network, s, 1.0, 1.0, Y.data(), workspace.data(), result);
  return result;
}

TEST(StepControlDrift, MassCreatingIntegrationFailsWithAndWithoutRenormalising) {
  // max_mass_drift 5e-3 lies between the one-step gain and the compounded one: a per-step check
  // after renormalising passed this zone as ok.
  for (bool renormalize : {false, true}) {
    const ZoneResult r = burn_chain(renormalize, 5e-3);
    EXPECT_EQ(r.status, zone_mass_drift) << "renormalize " << renormalize;
    EXPECT_GT(r.time_reached, 1.0) << "renormalize " << renormalize;
    EXPECT_LT(r.time_reached, 20.0) << "renormalize " << renormalize;
    EXPECT_LE(r.max_mass_drift, 5e-3) << "renormalize " << renormalize;
    EXPECT_GT(r.max_mass_drift, 3e-3) << "renormalize " << renormalize;
  }
  // With room for the compounded gain both finish, with the drift the simulation gives.
  for (bool renormalize : {false, true}) {
    const ZoneResult r = burn_chain(renormalize, 2e-2);
    EXPECT_EQ(r.status, zone_ok) << "renormalize " << renormalize;
    EXPECT_NEAR(r.max_mass_drift, 8.5e-3, 0.1e-3) << "renormalize " << renormalize;
  }
}

}  // namespace
}  // namespace zoneode
