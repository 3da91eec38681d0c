// The asymptotic integrator against exact solutions: the Bateman decay chain and a stiff
// reversible pair. These catch a wrong sign or branch in the update and a broken schedule.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "common/constants.hpp"
#include "common/strided.hpp"
#include "integrators/asymptotic.hpp"
#include "network/analytic.hpp"
#include "network/compact.hpp"

namespace zoneode {
namespace {

struct Burn {
  std::vector<double> Y;
  ZoneResult result;
};

Burn burn(const Network& network, const IntegratorSettings& settings, std::vector<double> Y, double T9 = 1.0,
          double rho = 1.0) {
  const CompactNetwork compact(network);
  const MethodNetwork method_network{compact.rate_view(), compact.step_view(), {}};
  std::vector<double> workspace(asymptotic::workspace_doubles(method_network));
  Burn out{std::move(Y), {}};
  asymptotic::integrate_zone(method_network, settings, T9, rho, out.Y.data(), workspace.data(), out.result);
  return out;
}

// Largest error relative to the exact solution, over members holding more than 1e-6 of the mass.
double max_relative_error(const std::vector<double>& got, const std::vector<double>& exact) {
  double worst = 0.0;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    if (exact[i] > 1e-6) worst = std::fmax(worst, std::fabs(got[i] - exact[i]) / exact[i]);
  }
  return worst;
}

const std::vector<double> chain_rates = {3.0, 0.7, 0.05};  // [1/s], distinct, x3 stable
constexpr double y0 = 1.0 / 100.0;                         // X = 1 for A = 100

IntegratorSettings geometric(double fraction, double end_time) {
  IntegratorSettings s;
  s.schedule = StepSchedule::geometric;
  s.start_time = 1e-6;
  s.end_time = end_time;
  s.dt_fraction = fraction;
  s.abundance_floor = 0.0;
  s.max_mass_drift = 1e-6;
  return s;
}

std::vector<double> chain_start() { return {y0, 0.0, 0.0, 0.0}; }

TEST(AnalyticBateman, ExactSolutionIsConsistent) {
  // Independent of the integrator: the exact solution conserves the total and solves dY0/dt.
  const auto y = bateman_solution(chain_rates, y0, 2.0);
  double total = 0.0;
  for (double v : y) total += v;
  EXPECT_NEAR(total, y0, 1e-15);
  EXPECT_NEAR(y[0], y0 * std::exp(-3.0 * 2.0), 1e-18);
  // x1 = y0 l0 / (l1 - l0) (e^{-l0 t} - e^{-l1 t})
  EXPECT_NEAR(y[1], y0 * 3.0 / (0.7 - 3.0) * (std::exp(-3.0 * 2.0) - std::exp(-0.7 * 2.0)), 1e-16);
}

TEST(AnalyticBateman, AdaptiveScheduleMatchesExactSolution) {
  IntegratorSettings s = geometric(0.01, 20.0);
  s.schedule = StepSchedule::adaptive;
  s.rtol = 1e-7;
  s.atol = 1e-14;
  const Burn b = burn(decay_chain_network(chain_rates), s, chain_start());
  ASSERT_EQ(b.result.status, zone_ok);
  EXPECT_DOUBLE_EQ(b.result.time_reached, 20.0);
  // Exact solution from t = start_time (the state there is the initial one).
  const auto exact = bateman_solution(chain_rates, y0, 20.0 - s.start_time);
  EXPECT_LT(max_relative_error(b.Y, exact), 2e-4);
  EXPECT_GT(b.result.steps, 10);
}

TEST(AnalyticBateman, GeometricScheduleConvergesAtFirstOrder) {
  // The asymptotic update is first order: halving dt_fraction halves the error.
  const Network network = decay_chain_network(chain_rates);
  const auto exact = bateman_solution(chain_rates, y0, 5.0 - 1e-6);
  const double coarse = max_relative_error(burn(network, geometric(0.004, 5.0), chain_start()).Y, exact);
  const double fine = max_relative_error(burn(network, geometric(0.002, 5.0), chain_start()).Y, exact);
  EXPECT_LT(fine, 1e-2);
  const double order = std::log2(coarse / fine);
  EXPECT_GT(order, 0.85);
  EXPECT_LT(order, 1.15);
}

TEST(AnalyticBateman, MassIsConservedAndEnergyMatchesDecaysCounted) {
  const Network network = decay_chain_network(chain_rates);
  IntegratorSettings s = geometric(0.002, 5.0);
  const Burn b = burn(network, s, chain_start());
  ASSERT_EQ(b.result.status, zone_ok);
  // Same A for every member: sum A Y is conserved by every update exactly up to rounding.
  EXPECT_NEAR(b.result.mass_fraction_sum, 1.0, 1e-13);
  // Each decay releases 1 MeV: decays up to t per gram = 3 y0 - 3 Y0 - 2 Y1 - Y2 (mol/g).
  const auto exact = bateman_solution(chain_rates, y0, 5.0 - s.start_time);
  const double decays = 3 * y0 - 3 * exact[0] - 2 * exact[1] - exact[2];
  const double expected = constants::avogadro * constants::mev_to_erg * decays / (5.0 - s.start_time);
  EXPECT_NEAR(b.result.energy_generation_rate / expected, 1.0, 5e-3);
}

TEST(AnalyticStiffPair, LargeRateTimesDtUsesTheAsymptoticBranch) {
  // k_f dt reaches 1e6: forward Euler would blow up; the asymptotic update relaxes to equilibrium.
  const double kf = 1e6, kr = 2e5;  // [1/s]
  IntegratorSettings s = geometric(0.05, 1.0);
  s.start_time = 1e-8;
  const Burn b = burn(reversible_pair_network(kf, kr), s, {y0, 0.0});
  ASSERT_EQ(b.result.status, zone_ok);
  const auto exact = reversible_pair_solution(kf, kr, y0, 0.0, 1.0);
  EXPECT_NEAR(b.Y[0] / exact[0], 1.0, 1e-3);
  EXPECT_NEAR(b.Y[1] / exact[1], 1.0, 1e-3);
  EXPECT_NEAR(exact[0] / y0, kr / (kf + kr), 1e-12);
}

TEST(AnalyticStiffPair, AdaptiveFollowsTheTransient) {
  const double kf = 1e4, kr = 3e3;
  IntegratorSettings s = geometric(0.01, 1e-3);
  s.schedule = StepSchedule::adaptive;
  s.start_time = 1e-9;
  s.rtol = 1e-6;
  s.atol = 1e-14;
  for (double t_end : {1e-5, 1e-4, 1e-3}) {
    s.end_time = t_end;
    const Burn b = burn(reversible_pair_network(kf, kr), s, {y0, 0.0});
    ASSERT_EQ(b.result.status, zone_ok);
    const auto exact = reversible_pair_solution(kf, kr, y0, 0.0, t_end - s.start_time);
    EXPECT_LT(max_relative_error(b.Y, exact), 1e-3) << "t_end " << t_end;
  }
}

TEST(AnalyticFailures, NonFiniteInputIsFlaggedNotIntegrated) {
  const Burn b = burn(decay_chain_network(chain_rates), geometric(0.01, 1.0), {NAN, 0, 0, 0});
  EXPECT_EQ(b.result.status, zone_bad_input);
  const Burn cold = burn(decay_chain_network(chain_rates), geometric(0.01, 1.0), chain_start(), -1.0);
  EXPECT_EQ(cold.result.status, zone_bad_input);
}

TEST(AnalyticFailures, MaxStepsStopsAtTheLastGoodState) {
  IntegratorSettings s = geometric(0.01, 1.0);
  s.max_steps = 10;
  const Burn b = burn(decay_chain_network(chain_rates), s, chain_start());
  EXPECT_EQ(b.result.status, zone_max_steps);
  EXPECT_EQ(b.result.steps, 10);
  // Ten geometric steps from 1e-6: t = 1e-6 * 1.01^10.
  EXPECT_NEAR(b.result.time_reached, 1e-6 * std::pow(1.01, 10), 1e-18);
}

}  // namespace
}  // namespace zoneode

namespace zoneode {
namespace {

// The per-zone maths takes strided arrays: a species-major layout (stride = zones, as a thread
// per zone would read) gives bitwise the zone-major result, geometric and adaptive.
TEST(StridedLayout, SpeciesMajorZonesMatchZoneMajorBitwise) {
  const Network network = decay_chain_network({3.0, 0.5, 0.1});
  const CompactNetwork compact(network);
  const MethodNetwork method_network{compact.rate_view(), compact.step_view(), {}};
  const int S = network.species_count(), zones = 3;
  const std::int64_t W = asymptotic::workspace_doubles(method_network);
  for (StepSchedule schedule : {StepSchedule::geometric, StepSchedule::adaptive}) {
    IntegratorSettings settings;
    settings.schedule = schedule;
    settings.start_time = 1e-3;
    settings.end_time = 2.0;
    settings.dt_fraction = 0.02;
    std::vector<double> zone_major(S * zones, 0.0), species_major(S * zones, 0.0);
    std::vector<double> workspace(W), species_major_workspace(W * zones);
    std::vector<ZoneResult> a(zones), b(zones);
    for (int z = 0; z < zones; ++z) {
      zone_major[z * S] = species_major[z] = 1.0 / network.species[0].A * (1.0 + z);
      asymptotic::integrate_zone(method_network, settings, 1.0, 1.0, zone_major.data() + z * S, workspace.data(), a[z]);
      using Strided = StridedArray<double>;
      asymptotic::integrate_zone(method_network, settings, 1.0, 1.0, Strided{species_major.data() + z, zones},
                                 Strided{species_major_workspace.data() + z, zones}, b[z]);
    }
    for (int z = 0; z < zones; ++z) {
      EXPECT_EQ(a[z].steps, b[z].steps);
      EXPECT_GT(a[z].steps, 10);
      for (int i = 0; i < S; ++i) {
        EXPECT_EQ(std::memcmp(&zone_major[z * S + i], &species_major[i * zones + z], sizeof(double)), 0)
            << "zone " << z << " species " << i;
      }
      EXPECT_EQ(std::memcmp(&a[z].energy_generation_rate, &b[z].energy_generation_rate, sizeof(double)), 0);
    }
    EXPECT_NE(zone_major[0], zone_major[S]);  // the zones differ, so the layouts are really tested
  }
}

}  // namespace
}  // namespace zoneode
