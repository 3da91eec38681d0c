// The qss2 method (integrators/qss2.hpp): the alpha formula's limits, the exact solutions (decay
// chain, stiff pair), the measured order of convergence with a planted first-order fault that the
// same check catches, the error estimate's order, the implicit method at a tight rtol on the
// default network, and zone independence through the CPU backend.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "common/constants.hpp"
#include "deck/deck.hpp"
#include "deck/yaml_schema.hpp"
#include "integrators/implicit.hpp"
#include "integrators/implicit_structure.hpp"
#include "integrators/qss2.hpp"
#include "network/analytic.hpp"
#include "network/compact.hpp"
#include "network/generator.hpp"
#include "zones/zone_batch.hpp"

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
  std::vector<double> workspace(qss2::workspace_doubles(method_network));
  Burn out{std::move(Y), {}};
  qss2::integrate_zone(method_network, settings, T9, rho, out.Y.data(), workspace.data(), out.result);
  return out;
}

double max_relative_error(const std::vector<double>& got, const std::vector<double>& exact, double significant) {
  double worst = 0.0;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    if (exact[i] > significant) worst = std::fmax(worst, std::fabs(got[i] - exact[i]) / exact[i]);
  }
  return worst;
}

IntegratorSettings settings(StepSchedule schedule, double rtol, double start, double end) {
  IntegratorSettings s;
  s.method = IntegrationMethod::qss2;
  s.schedule = schedule;
  s.start_time = start;
  s.end_time = end;
  s.dt_fraction = 0.01;
  s.rtol = rtol;
  s.atol = 1e-20;
  s.max_dt_growth = 5.0;
  s.abundance_floor = 0.0;
  s.max_mass_drift = 1e-2;
  s.max_steps = 10000000;
  return s;
}

const std::vector<double> chain_rates = {3.0, 0.7, 0.05};  // [1/s]
constexpr double y0 = 1.0 / 100.0;                         // X = 1 for A = 100

TEST(Qss2Alpha, LimitsAndThePositivityBound) {
  // alpha(x) = 1/(1 - e^-x) - 1/x: 1/2 + x/12 for small x, 1 - 1/x for large x.
  EXPECT_DOUBLE_EQ(qss_alpha(0.0), 0.5);
  EXPECT_NEAR(qss_alpha(1e-3), 0.5 + 1e-3 / 12, 1e-10);
  EXPECT_NEAR(qss_alpha(1e6), 1.0 - 1e-6 + 12e-12, 1e-15);  // the Pade form: 1 - 1/x + 12/x^2
  EXPECT_EQ(qss_alpha(1e200), 1.0);  // the 1/x form: no overflow
  // The two evaluation forms meet at x = 1 (the same rational function).
  EXPECT_NEAR(qss_alpha(1.0), 252.0 / 433.0, 1e-15);
  EXPECT_NEAR(qss_alpha(std::nextafter(1.0, 2.0)), 252.0 / 433.0, 1e-15);
  // Against the exact alpha: the Pade form is within 1.2e-2 for every x (worst near x = 12:
  // 0.9307 against 0.9187), so the update is exact for constant q and p only in both limits.
  double worst = 0.0;
  for (double x = 1e-2; x < 1e4; x *= 1.1) {
    const double exact = 1.0 / (1.0 - std::exp(-x)) - 1.0 / x;
    worst = std::fmax(worst, std::fabs(qss_alpha(x) - exact));
  }
  EXPECT_LT(worst, 1.2e-2);
  EXPECT_GT(worst, 1.1e-2);
  // Positivity: (1 - alpha(x)) x <= 1, so a species with no production never goes below 0.
  for (double x = 0.0; x < 1e6; x = x * 1.3 + 0.01) EXPECT_LE((1.0 - qss_alpha(x)) * x, 1.0) << x;
  EXPECT_GE(qss_predictor(1.0, 0.0, 1e12, 1.0, 0.0), 0.0);
  EXPECT_EQ(qss_loss_rate(0.0, 0.0), 0.0);  // an abundance at a zero floor: no 0/0
}

TEST(Qss2Analytic, DecayChainErrorFollowsTolerance) {
  const Network network = decay_chain_network(chain_rates);
  double previous = 0.0;
  for (double rtol : {1e-3, 1e-4, 1e-5, 1e-6}) {
    const IntegratorSettings s = settings(StepSchedule::adaptive, rtol, 1e-6, 20.0);
    const Burn b = burn(network, s, {y0, 0.0, 0.0, 0.0});
    ASSERT_EQ(b.result.status, zone_ok);
    EXPECT_DOUBLE_EQ(b.result.time_reached, 20.0);
    const auto exact = bateman_solution(chain_rates, y0, 20.0 - s.start_time);
    const double error = max_relative_error(b.Y, exact, 1e-6 * y0);
    EXPECT_LT(error, 10 * rtol) << "rtol " << rtol;
    // Second order with a dt^2 estimate: the error is proportional to rtol (x10 per decade; 3 to 30 allowed).
    if (previous > 0.0) {
      EXPECT_GT(previous / error, 3.0) << "rtol " << rtol;
      EXPECT_LT(previous / error, 30.0) << "rtol " << rtol;
    }
    previous = error;
    EXPECT_NEAR(b.result.mass_fraction_sum, 1.0, 10 * rtol);
    // 1 MeV per decay: decays per gram = 3 y0 - 3 Y0 - 2 Y1 - Y2 (mol/g).
    const double decays = 3 * y0 - 3 * exact[0] - 2 * exact[1] - exact[2];
    const double expected = constants::avogadro * constants::mev_to_erg * decays / (20.0 - s.start_time);
    EXPECT_LT(std::fabs(b.result.energy_generation_rate / expected - 1.0), 10 * rtol) << "rtol " << rtol;
    // Two flux evaluations per step, one more per rejected attempt (q0, p0 are kept).
    EXPECT_EQ(b.result.rhs_evaluations, 2 * b.result.steps + b.result.rejected_steps);
  }
}

TEST(Qss2Analytic, StiffPairAtSeveralTolerances) {
  // k dt up to ~1e8 at the end: the explicit forward Euler limit would need ~1e8 steps.
  const double kf = 1e8, kr = 3e7;  // [1/s]
  for (double rtol : {1e-4, 1e-6}) {
    for (double t_end : {1e-8, 1e-7, 1.0}) {
      const IntegratorSettings s = settings(StepSchedule::adaptive, rtol, 1e-12, t_end);
      const Burn b = burn(reversible_pair_network(kf, kr), s, {y0, 0.0});
      ASSERT_EQ(b.result.status, zone_ok);
      const auto exact = reversible_pair_solution(kf, kr, y0, 0.0, t_end - s.start_time);
      EXPECT_LT(max_relative_error(b.Y, exact, 1e-6 * y0), 10 * rtol) << "rtol " << rtol << " t_end " << t_end;
      // Large steps at equilibrium: the count does not grow with k t (1e8 here).
      if (t_end == 1.0) EXPECT_LT(b.result.steps, 3000) << "rtol " << rtol;
    }
  }
}

// The method on fixed steps dt = fraction t, written from the pieces as the test's own loop, with
// the corrector's inputs chosen by `wiring`: the method's (fluxes at the predictor), or a planted
// fault that passes it the start's fluxes (the corrector then repeats the predictor: first order).
enum class Wiring { method, fault_start_fluxes };

std::vector<double> fixed_steps(const Network& network, std::vector<double> Y, double t0, double t1,
                                double fraction, Wiring wiring) {
  const CompactNetwork compact(network);
  const StepView net = compact.step_view();
  const int n = net.species_count, R = net.reaction_count;
  std::vector<double> rate(R), flux(R), q0(n), p0(n), y(n);
  zone_rate_factors(compact.rate_view(), 1.0, 1.0, rate.data());
  for (double t = t0; t < t1;) {
    const bool last = t + fraction * t >= t1;
    const double dt = last ? t1 - t : fraction * t;
    zone_fluxes(net, rate.data(), Y.data(), flux.data());
    for (int i = 0; i < n; ++i) {
      q0[i] = creation_sum(net, i, flux.data());
      p0[i] = qss_loss_rate(Y[i], destruction_sum(net, i, flux.data()));
      y[i] = qss_predictor(Y[i], q0[i], p0[i], dt, 0.0);
    }
    if (wiring == Wiring::method) zone_fluxes(net, rate.data(), y.data(), flux.data());
    for (int i = 0; i < n; ++i) {
      const double q_p = creation_sum(net, i, flux.data());
      const double p_p = qss_loss_rate(wiring == Wiring::method ? y[i] : Y[i], destruction_sum(net, i, flux.data()));
      y[i] = qss_corrector(Y[i], q0[i], p0[i], q_p, p_p, dt, 0.0);
    }
    Y = y;
    t = last ? t1 : t + dt;
  }
  return Y;
}

// The order measured from errors at dt fractions f, f/2, f/4 (log2 of the error ratios), both.
std::vector<double> measured_orders(const std::function<std::vector<double>(double)>& run,
                                    const std::vector<double>& exact, double significant) {
  std::vector<double> errors;
  for (double fraction : {0.02, 0.01, 0.005}) errors.push_back(max_relative_error(run(fraction), exact, significant));
  return {std::log2(errors[0] / errors[1]), std::log2(errors[1] / errors[2])};
}

TEST(Qss2Order, FixedStepsConvergeAtSecondOrderAndAFirstOrderFaultIsCaught) {
  const Network network = decay_chain_network(chain_rates);
  const std::vector<double> Y0 = {y0, 0.0, 0.0, 0.0};
  const double t0 = 1e-6, t1 = 20.0;
  const auto exact = bateman_solution(chain_rates, y0, t1 - t0);
  // The method itself (geometric schedule): error x1/4 per halving of dt.
  const auto method = [&](double fraction) {
    IntegratorSettings s = settings(StepSchedule::geometric, 0.0, t0, t1);
    s.dt_fraction = fraction;
    const Burn b = burn(network, s, Y0);
    EXPECT_EQ(b.result.status, zone_ok);
    EXPECT_EQ(b.result.rhs_evaluations, 2 * b.result.steps);
    return b.Y;
  };
  for (double order : measured_orders(method, exact, 1e-6 * y0)) {
    EXPECT_GT(order, 1.8);
    EXPECT_LT(order, 2.2);
  }
  // The test's loop is the method: bitwise the same as integrate_zone on the geometric schedule.
  EXPECT_EQ(fixed_steps(network, Y0, t0, t1, 0.01, Wiring::method), method(0.01));
  // The planted fault converges at first order, and the same check fails on it.
  const auto faulty = [&](double fraction) { return fixed_steps(network, Y0, t0, t1, fraction, Wiring::fault_start_fluxes); };
  for (double order : measured_orders(faulty, exact, 1e-6 * y0)) {
    EXPECT_GT(order, 0.8);
    EXPECT_LT(order, 1.2);
  }
}

// One qss2 attempt from Y at T9 = rho = 1 with step dt, written out from the update's pieces as
// integrate_zone makes it (zero floor): the predictor y_p and the corrector y_c of every species.
struct Qss2Attempt {
  std::vector<double> predicted, corrected;
};
Qss2Attempt one_attempt(const CompactNetwork& compact, const std::vector<double>& Y, double dt) {
  const StepView net = compact.step_view();
  const std::size_t n = Y.size();
  std::vector<double> rate(net.reaction_count), flux(net.reaction_count), q0(n), p0(n);
  Qss2Attempt attempt{std::vector<double>(n), std::vector<double>(n)};
  zone_rate_factors(compact.rate_view(), 1.0, 1.0, rate.data());
  zone_fluxes(net, rate.data(), Y.data(), flux.data());
  for (int i = 0; i < static_cast<int>(n); ++i) {
    q0[i] = creation_sum(net, i, flux.data());
    p0[i] = qss_loss_rate(Y[i], destruction_sum(net, i, flux.data()));
    attempt.predicted[i] = qss_predictor(Y[i], q0[i], p0[i], dt, 0.0);
  }
  zone_fluxes(net, rate.data(), attempt.predicted.data(), flux.data());
  for (int i = 0; i < static_cast<int>(n); ++i)
    attempt.corrected[i] = qss_corrector(Y[i], q0[i], p0[i], creation_sum(net, i, flux.data()),
                                         qss_loss_rate(attempt.predicted[i], destruction_sum(net, i, flux.data())),
                                         dt, 0.0);
  return attempt;
}

TEST(Qss2Order, TheEstimateScalesAsDtSquared) {
  // One step from the same state with dt and dt/2: |y_c - y_p| falls x4 (estimate order 1, so the
  // controller's err^(-1/2) is right); a dt^3 estimate would fall x8.
  const Network network = decay_chain_network(chain_rates);
  const CompactNetwork compact(network);
  const std::vector<double> Y = {0.6 * y0, 0.3 * y0, 0.1 * y0, 0.0};
  std::vector<double> estimates;
  for (double dt : {1e-2, 5e-3, 2.5e-3}) {
    const Qss2Attempt attempt = one_attempt(compact, Y, dt);
    double worst = 0.0;
    for (int i = 0; i < 4; ++i) worst = std::fmax(worst, std::fabs(attempt.corrected[i] - attempt.predicted[i]));
    estimates.push_back(worst);
  }
  for (int k = 0; k < 2; ++k) EXPECT_NEAR(estimates[k] / estimates[k + 1], 4.0, 0.3) << k;

  // And integrate_zone tells StepControl so: after an accepted first step with scaled estimate e,
  // the second step is dt 0.9 e^(-1/2) (with e^(-1/3) it would be 1.3x shorter here).
  const double t0 = 1.0, dt = 1e-2;
  IntegratorSettings s = settings(StepSchedule::adaptive, 3e-2, t0, 10.0);  // estimate ~0.3
  s.dt_initial = dt;
  s.max_steps = 2;  // two attempts, then max_steps: time_reached = t0 + dt + the second dt
  const Qss2Attempt attempt = one_attempt(compact, Y, dt);
  double error = 0.0;
  for (int i = 0; i < 4; ++i)
    error = combine_error(error, qss_scaled_error(s, Y[i], attempt.predicted[i], attempt.corrected[i]));
  ASSERT_GT(error, 0.05);  // accepted, and the growth is set by the estimate, not by its limits
  ASSERT_LT(error, 1.0);
  const Burn b = burn(network, s, Y);
  EXPECT_EQ(b.result.status, zone_max_steps);
  EXPECT_EQ(b.result.steps, 2);
  EXPECT_DOUBLE_EQ(b.result.time_reached, (t0 + dt) + dt * (0.9 / std::sqrt(error)));
}

TEST(Qss2Network, AgreesWithTheImplicitMethodOnTheDefaultNetwork) {
  // The default preset at T9 1.0 and 1.5 (rho 1e6, he4/c12 start, 1e-10 to 1e-3 s) against the
  // implicit method at rtol 1e-10: within 10 x rtol over species with X >= 1e-8. Hotter zones
  // (T9 >= 2.5) are not: validation/README.md (qss2 and stiff pools of trace species).
  const Network network = generate_network(generator_preset("default"));
  const CompactNetwork compact(network);
  const ImplicitStructure structure(compact);
  const MethodNetwork implicit_network{compact.rate_view(), compact.step_view(), structure.view()};
  std::vector<double> start(network.species_count(), 0.0);
  start[network.find_species("he4")] = 0.9 / 4.0;
  start[network.find_species("c12")] = 0.1 / 12.0;
  for (double T9 : {1.0, 1.5}) {
    IntegratorSettings reference = settings(StepSchedule::adaptive, 1e-10, 1e-10, 1e-3);
    reference.method = IntegrationMethod::implicit;
    reference.atol = 1e-25;
    reference.abundance_floor = 1e-30;
    std::vector<double> exact = start, workspace(implicit::workspace_doubles(implicit_network));
    ZoneResult result;
    implicit::integrate_zone(implicit_network, reference, T9, 1e6, exact.data(), workspace.data(), result);
    ASSERT_EQ(result.status, zone_ok);
    std::vector<double> significant_exact = exact;
    for (int i = 0; i < network.species_count(); ++i)
      if (network.species[i].A * exact[i] < 1e-8) significant_exact[i] = 0.0;  // left out of the error
    for (double rtol : {1e-4, 1e-6}) {
      IntegratorSettings s = settings(StepSchedule::adaptive, rtol, 1e-10, 1e-3);
      s.atol = 1e-16;
      s.abundance_floor = 1e-30;
      const Burn b = burn(network, s, start, T9, 1e6);
      ASSERT_EQ(b.result.status, zone_ok) << "T9 " << T9 << " rtol " << rtol;
      EXPECT_LT(max_relative_error(b.Y, significant_exact, 0.0), 10 * rtol) << "T9 " << T9 << " rtol " << rtol;
    }
  }
}

TEST(Qss2Zones, AbundancesStayFiniteAndAboveTheFloor) {
  // A parent that decays 1e4 times faster than the burn: with a zero floor its abundance
  // underflows to exactly 0, where p = F-/Y would be 0/0 without qss_loss_rate's guard.
  const Network network = decay_chain_network({1e4, 1.0});
  for (double floor : {0.0, 1e-30}) {
    IntegratorSettings s = settings(StepSchedule::adaptive, 1e-4, 1e-6, 10.0);
    s.atol = 1e-12;
    s.abundance_floor = floor;
    const Burn b = burn(network, s, {y0, 0.0, 0.0});
    ASSERT_EQ(b.result.status, zone_ok) << "floor " << floor;
    for (double y : b.Y) {
      EXPECT_TRUE(std::isfinite(y));
      EXPECT_GE(y, floor) << "floor " << floor;
    }
    if (floor == 0.0) EXPECT_EQ(b.Y[0], 0.0);  // the guarded case was reached
  }
}

ZoneBatch zones_of(const Network& network, const std::vector<double>& temperatures) {
  ZoneBatch batch;
  batch.resize(static_cast<std::int64_t>(temperatures.size()), network.species_count());
  for (std::size_t z = 0; z < temperatures.size(); ++z) {
    batch.temperature[z] = temperatures[z];
    batch.density[z] = 1e7;
    batch.zone_abundances(z)[network.find_species("he4")] = 0.9 / 4.0;
    batch.zone_abundances(z)[network.find_species("c12")] = 0.1 / 12.0;
  }
  return batch;
}

void run_cpu(const CompactNetwork& compact, const IntegratorSettings& settings, ZoneBatch& batch, int threads) {
  auto backend = make_backend({IntegrationMethod::qss2, BackendKind::cpu, KernelVariant::baseline}, {threads, 0, 0});
  backend->prepare(compact, settings);
  const ZoneSpan span = batch.span(0, batch.count);
  backend->upload(span);
  backend->integrate();
  backend->download(span);
}

TEST(Qss2Zones, ABadZoneFailsAloneAndThreadsDoNotChangeBits) {
  const Network network = generate_network(generator_preset("s16"));
  const CompactNetwork compact(network);
  const IntegratorSettings s = settings(StepSchedule::adaptive, 1e-4, 1e-12, 1e-6);
  const std::vector<double> temperatures = {3.0, 1.0, 2.0, 2.5, 1.5, 2.2, 2.9};
  ZoneBatch one = zones_of(network, temperatures), two = zones_of(network, temperatures);
  run_cpu(compact, s, one, 1);
  run_cpu(compact, s, two, 2);
  EXPECT_EQ(std::memcmp(one.abundances.data(), two.abundances.data(), sizeof(double) * one.abundances.size()), 0);
  ZoneBatch faulty = zones_of(network, temperatures);
  faulty.zone_abundances(2)[0] = NAN;
  faulty.density[3] = INFINITY;
  run_cpu(compact, s, faulty, 2);
  for (std::size_t z = 0; z < temperatures.size(); ++z) {
    EXPECT_EQ(one.results[z].steps, two.results[z].steps) << z;
    if (z == 2 || z == 3) {
      EXPECT_EQ(faulty.results[z].status, zone_bad_input) << z;
      continue;
    }
    EXPECT_EQ(one.results[z].status, zone_ok) << z;
    EXPECT_GT(one.results[z].rhs_evaluations, 0) << z;
    EXPECT_EQ(std::memcmp(faulty.zone_abundances(z), one.zone_abundances(z), sizeof(double) * network.species_count()), 0)
        << z;
  }
}

// Without self-heating a zone's T9 and rho are the deck's for the next outer step: bit for bit,
// and the second burn runs (a T9 of 0 left behind fails every zone as bad input).
TEST(Qss2Zones, TemperatureIsKeptForTheNextOuterStep) {
  const Network network = generate_network(generator_preset("s16"));
  const CompactNetwork compact(network);
  const IntegratorSettings s = settings(StepSchedule::adaptive, 1e-4, 1e-12, 1e-6);
  const std::vector<double> temperatures = {3.0, 1.0, 2.0};
  ZoneBatch batch = zones_of(network, temperatures);
  for (int outer_step = 1; outer_step <= 2; ++outer_step) {
    run_cpu(compact, s, batch, 1);
    for (std::size_t z = 0; z < temperatures.size(); ++z) {
      EXPECT_EQ(batch.temperature[z], temperatures[z]) << "outer step " << outer_step << ", zone " << z;
      EXPECT_EQ(batch.density[z], 1e7) << z;
      EXPECT_EQ(batch.results[z].status, zone_ok) << "outer step " << outer_step << ", zone " << z;
      EXPECT_EQ(batch.results[z].final_T9, temperatures[z]) << z;
    }
  }
}

TEST(Qss2Deck, MethodIsReadFromTheDeckAndListed) {
  const std::string deck_file = std::string(ZONEODE_SOURCE_DIR) + "/inputs/decay_chain.yaml";
  EXPECT_EQ(load_deck(deck_file, {"integrator.method=qss2"}).integrator.method, IntegrationMethod::qss2);
  try {
    load_deck(deck_file, {"integrator.method=chemeq2"});
    FAIL() << "no error";
  } catch (const DeckError& error) {
    EXPECT_NE(std::string(error.what()).find("asymptotic, implicit, qss2"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace zoneode
