// The implicit method (integrators/implicit.hpp): exact solutions at several tolerances, the
// method's order, zone independence (a failing zone leaves its neighbours bitwise unchanged), the
// deck and the backends that offer it. Its linear algebra: test_implicit_jacobian.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "common/constants.hpp"
#include "deck/deck.hpp"
#include "deck/yaml_schema.hpp"
#include "integrators/implicit.hpp"
#include "integrators/implicit_structure.hpp"
#include "network/analytic.hpp"
#include "network/compact.hpp"
#include "network/generator.hpp"
#include "network/reaclib.hpp"
#include "zones/zone_batch.hpp"

#include "implicit_testing.hpp"

namespace zoneode {
namespace {

struct Burn {
  std::vector<double> Y;
  ZoneResult result;
};

Burn burn(const Network& network, const IntegratorSettings& settings, std::vector<double> Y, double T9 = 1.0,
          double rho = 1.0, const PhysicsOptions& physics = {}) {
  const CompactNetwork compact(network, physics);
  const ImplicitStructure structure(compact);
  const MethodNetwork method_network{compact.rate_view(), compact.step_view(), structure.view()};
  std::vector<double> workspace(implicit::workspace_doubles(method_network));
  Burn out{std::move(Y), {}};
  implicit::integrate_zone(method_network, settings, T9, rho, out.Y.data(), workspace.data(), out.result);
  return out;
}

double max_relative_error(const std::vector<double>& got, const std::vector<double>& exact, double significant) {
  double worst = 0.0;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    if (exact[i] > significant) worst = std::fmax(worst, std::fabs(got[i] - exact[i]) / exact[i]);
  }
  return worst;
}

IntegratorSettings adaptive(double rtol, double start, double end) {
  IntegratorSettings s;
  s.method = IntegrationMethod::implicit;
  s.schedule = StepSchedule::adaptive;
  s.start_time = start;
  s.end_time = end;
  s.dt_fraction = 0.01;
  s.rtol = rtol;
  s.atol = 1e-20;
  s.max_dt_growth = 5.0;
  s.abundance_floor = 0.0;
  s.max_mass_drift = 1e-6;
  return s;
}

const std::vector<double> chain_rates = {3.0, 0.7, 0.05};  // [1/s]
constexpr double y0 = 1.0 / 100.0;                         // X = 1 for A = 100

TEST(ImplicitAnalytic, BatemanChainErrorFollowsTolerance) {
  const Network network = decay_chain_network(chain_rates);
  for (double rtol : {1e-4, 1e-6, 1e-8}) {
    const IntegratorSettings s = adaptive(rtol, 1e-6, 20.0);
    const Burn b = burn(network, s, {y0, 0.0, 0.0, 0.0});
    ASSERT_EQ(b.result.status, zone_ok);
    EXPECT_DOUBLE_EQ(b.result.time_reached, 20.0);
    const auto exact = bateman_solution(chain_rates, y0, 20.0 - s.start_time);
    const double error = max_relative_error(b.Y, exact, 1e-6 * y0);
    EXPECT_LT(error, 10 * rtol) << "rtol " << rtol;
    EXPECT_NEAR(b.result.mass_fraction_sum, 1.0, 1e-12);
    // 1 MeV per decay: decays per gram = 3 y0 - 3 Y0 - 2 Y1 - Y2 (mol/g).
    const double decays = 3 * y0 - 3 * exact[0] - 2 * exact[1] - exact[2];
    const double expected = constants::avogadro * constants::mev_to_erg * decays / (20.0 - s.start_time);
    EXPECT_LT(std::fabs(b.result.energy_generation_rate / expected - 1.0), 10 * rtol) << "rtol " << rtol;
    // One Jacobian and one factorisation per attempt at a new state; three RHS per step.
    EXPECT_EQ(b.result.jacobian_evaluations, b.result.steps);
    EXPECT_EQ(b.result.factorizations, b.result.steps + b.result.rejected_steps);
    EXPECT_EQ(b.result.rhs_evaluations, 3 * b.result.steps + 2 * b.result.rejected_steps);
  }
}

TEST(ImplicitAnalytic, StiffPairAtSeveralTolerances) {
  // k dt up to ~1e9 over the burn: explicit methods would need ~1e9 steps.
  const double kf = 1e8, kr = 3e7;  // [1/s]
  for (double rtol : {1e-4, 1e-6, 1e-8}) {
    for (double t_end : {1e-8, 1e-7, 1.0}) {
      const IntegratorSettings s = adaptive(rtol, 1e-12, t_end);
      const Burn b = burn(reversible_pair_network(kf, kr), s, {y0, 0.0});
      ASSERT_EQ(b.result.status, zone_ok);
      const auto exact = reversible_pair_solution(kf, kr, y0, 0.0, t_end - s.start_time);
      EXPECT_LT(max_relative_error(b.Y, exact, 1e-6 * y0), 10 * rtol) << "rtol " << rtol << " t_end " << t_end;
      // Large steps at equilibrium: the count does not grow with k t (1e8 here).
      if (t_end == 1.0) EXPECT_LT(b.result.steps, 1500) << "rtol " << rtol;
    }
  }
}

TEST(ImplicitAnalytic, FixedStepsConvergeAtThirdOrder) {
  // Geometric schedule: no error control, dt = dt_fraction t. Rodas3 is order 3 on nonlinear
  // problems too: a generated network (two-body fluxes) against a tight adaptive reference. Fast
  // electron captures (rate x rho Ye, rho = 1e7) make the order depend on their Ye column being in
  // the linear solve (a Rosenbrock method with an inexact Jacobian loses order).
  const Network network = with_electron_captures(generate_network(generator_preset("s16")));
  std::vector<double> Y(network.species_count(), 0.0);
  for (int i = 0; i < network.species_count(); ++i) {
    if (network.species[i].name == "he4") Y[i] = 0.9 / 4.0;
    if (network.species[i].name == "c12") Y[i] = 0.1 / 12.0;
  }
  const double T9 = 2.0, rho = 1e7;
  IntegratorSettings reference = adaptive(1e-12, 1e-9, 1e-4);
  reference.atol = 1e-30;
  const Burn exact = burn(network, reference, Y, T9, rho);
  ASSERT_EQ(exact.result.status, zone_ok);
  std::vector<double> errors;
  for (double fraction : {0.04, 0.02, 0.01}) {
    IntegratorSettings s = reference;
    s.schedule = StepSchedule::geometric;
    s.dt_fraction = fraction;
    const Burn b = burn(network, s, Y, T9, rho);
    ASSERT_EQ(b.result.status, zone_ok);
    errors.push_back(max_relative_error(b.Y, exact.Y, 1e-10));
  }
  for (int k = 0; k < 2; ++k) {
    const double order = std::log2(errors[k] / errors[k + 1]);
    EXPECT_GT(order, 2.6) << errors[k] << " -> " << errors[k + 1];
    EXPECT_LT(order, 3.5) << errors[k] << " -> " << errors[k + 1];
  }
}

// The same with weak screening at a density where it is strong (H ~ 1 for he4 + c12): its
// exp(H(sum (Z^2 + Z) Y)) moves as the burn turns he4 into heavier nuclei, and the order holds
// only with that dependence in the Jacobian (the Ye and screening columns, solved by Woodbury).
TEST(ImplicitAnalytic, FixedStepsConvergeAtThirdOrderWithWeakScreening) {
  const Network network = with_electron_captures(generate_network(generator_preset("s16")));
  std::vector<double> Y(network.species_count(), 0.0);
  for (int i = 0; i < network.species_count(); ++i) {
    if (network.species[i].name == "he4") Y[i] = 0.9 / 4.0;
    if (network.species[i].name == "c12") Y[i] = 0.1 / 12.0;
  }
  PhysicsOptions physics;
  physics.screening = ScreeningKind::weak;
  const double T9 = 2.0, rho = 1e9;
  IntegratorSettings reference = adaptive(1e-12, 1e-10, 1e-7);
  reference.atol = 1e-30;
  const Burn exact = burn(network, reference, Y, T9, rho, physics);
  ASSERT_EQ(exact.result.status, zone_ok);
  std::vector<double> errors;
  for (double fraction : {0.04, 0.02, 0.01}) {
    IntegratorSettings s = reference;
    s.schedule = StepSchedule::geometric;
    s.dt_fraction = fraction;
    const Burn b = burn(network, s, Y, T9, rho, physics);
    ASSERT_EQ(b.result.status, zone_ok);
    errors.push_back(max_relative_error(b.Y, exact.Y, 1e-10));
  }
  for (int k = 0; k < 2; ++k) {
    const double order = std::log2(errors[k] / errors[k + 1]);
    EXPECT_GT(order, 2.6) << errors[k] << " -> " << errors[k + 1];
    EXPECT_LT(order, 3.5) << errors[k] << " -> " << errors[k + 1];
  }
}

// p -> n by electron capture: flux = k rho Ye Y_p with Ye = Y_p (n is neutral), so
// dY_p/dt = -k rho Y_p^2, Y_p(t) = Y0 / (1 + k rho Y0 t). Half of d(dY_p/dt)/dY_p comes through Ye.
Network capture_pair(double k_per_s) {
  Network network;
  network.name = "capture-pair";
  network.species = {{"p", 1, 1, 0.0}, {"n", 0, 1, 0.0}};
  Reaction capture;
  capture.reactants = {0};
  capture.products = {1};
  RateSet set;
  set.a[0] = std::log(k_per_s);
  set.label = "ec";
  set.resonance = 'w';
  capture.sets = {set};
  capture.Q_MeV = 1.0;
  capture.electron_capture = true;
  network.reactions = {capture};
  return network;
}

TEST(ImplicitAnalytic, CaptureFollowingYeIsSolvedExactly) {
  // Fixed steps dt = 0.04 t..0.01 t: with the Ye column in the linear solve (Sherman-Morrison) the
  // error is at rounding level (~1e-15: the solution is smooth in log t); without it the method is
  // a W-method with half the true Jacobian here, first order, 7e-3..1.7e-3 (checked by removing it).
  const double k = 1e6, y0 = 1.0, t0 = 1e-9, t1 = 1e-3;  // k y0 t1 = 1e3: stiff at the end
  const Network network = capture_pair(k);
  for (double fraction : {0.04, 0.02, 0.01}) {
    IntegratorSettings s = adaptive(1e-6, t0, t1);
    s.schedule = StepSchedule::geometric;
    s.dt_fraction = fraction;
    const Burn b = burn(network, s, {y0, 0.0});
    ASSERT_EQ(b.result.status, zone_ok);
    const double exact = y0 / (1.0 + k * y0 * (t1 - t0));
    EXPECT_LT(std::fabs(b.Y[0] - exact) / exact, 1e-9) << "dt_fraction " << fraction;
    EXPECT_NEAR(b.Y[0] + b.Y[1], y0, 1e-13);
  }
}

// Runs zones through the CPU backend with the implicit method.
std::vector<ZoneResult> run_cpu(const CompactNetwork& compact, const IntegratorSettings& settings, ZoneBatch& batch,
                                int threads) {
  auto backend = make_backend({IntegrationMethod::implicit, BackendKind::cpu, KernelVariant::baseline}, {threads, 0, 0});
  backend->prepare(compact, settings);
  const ZoneSpan span = batch.span(0, batch.count);
  backend->upload(span);
  backend->integrate();
  backend->download(span);
  return batch.results;
}

ZoneBatch zones_of(const Network& network, const std::vector<double>& temperatures) {
  ZoneBatch batch;
  batch.resize(static_cast<std::int64_t>(temperatures.size()), network.species_count());
  for (std::size_t z = 0; z < temperatures.size(); ++z) {
    batch.temperature[z] = temperatures[z];
    batch.density[z] = 1e7;
    for (int i = 0; i < network.species_count(); ++i) {
      if (network.species[i].name == "he4") batch.zone_abundances(z)[i] = 0.9 / 4.0;
      if (network.species[i].name == "c12") batch.zone_abundances(z)[i] = 0.1 / 12.0;
    }
  }
  return batch;
}

TEST(ImplicitZones, NonFiniteZoneFailsAloneNeighboursBitwiseUnchanged) {
  const Network network = generate_network(generator_preset("s16"));
  const CompactNetwork compact(network);
  IntegratorSettings settings = adaptive(1e-6, 1e-12, 1e-6);
  settings.max_mass_drift = 1e-2;
  const std::vector<double> temperatures = {1.5, 2.0, 2.5, 3.0, 1.0};
  ZoneBatch clean = zones_of(network, temperatures);
  run_cpu(compact, settings, clean, 2);
  ZoneBatch faulty = zones_of(network, temperatures);
  faulty.zone_abundances(2)[0] = NAN;
  faulty.density[3] = INFINITY;
  run_cpu(compact, settings, faulty, 2);
  for (int z = 0; z < 5; ++z) {
    if (z == 2 || z == 3) {
      EXPECT_EQ(faulty.results[z].status, zone_bad_input) << z;
      continue;
    }
    EXPECT_EQ(clean.results[z].status, zone_ok) << z;
    EXPECT_EQ(faulty.results[z].status, zone_ok) << z;
    EXPECT_EQ(faulty.results[z].steps, clean.results[z].steps) << z;
    EXPECT_EQ(std::memcmp(faulty.zone_abundances(z), clean.zone_abundances(z), sizeof(double) * network.species_count()), 0)
        << z;
    EXPECT_EQ(std::memcmp(&faulty.results[z].energy_generation_rate, &clean.results[z].energy_generation_rate,
                          sizeof(double)), 0) << z;
  }
}

TEST(ImplicitZones, AbundancesNeverFallBelowTheFloor) {
  // A parent that decays 1e4 times faster than the burn is exhausted: without the floor it ends at
  // 1e-231 mol/g (checked), below the 1e-30 floor. The floor also catches the slightly negative
  // values a Rosenbrock step can give exhausted species, so output files stay valid zone input.
  const Network network = decay_chain_network({1e4, 1.0});
  for (double floor : {0.0, 1e-30}) {
    IntegratorSettings s = adaptive(1e-4, 1e-6, 10.0);
    s.atol = 1e-12;
    s.abundance_floor = floor;
    const Burn b = burn(network, s, {y0, 0.0, 0.0});
    ASSERT_EQ(b.result.status, zone_ok);
    for (double y : b.Y) EXPECT_GE(y, floor) << "floor " << floor;
  }
}

TEST(ImplicitZones, OneAndTwoThreadsGiveBitwiseTheSameZones) {
  const Network network = generate_network(generator_preset("s16"));
  const CompactNetwork compact(network);
  const IntegratorSettings settings = adaptive(1e-5, 1e-12, 1e-6);
  const std::vector<double> temperatures = {3.0, 1.0, 2.0, 2.5, 1.5, 2.2, 2.9};
  ZoneBatch one = zones_of(network, temperatures), two = zones_of(network, temperatures);
  run_cpu(compact, settings, one, 1);
  run_cpu(compact, settings, two, 2);
  EXPECT_EQ(std::memcmp(one.abundances.data(), two.abundances.data(), sizeof(double) * one.abundances.size()), 0);
  for (std::size_t z = 0; z < temperatures.size(); ++z) EXPECT_EQ(one.results[z].steps, two.results[z].steps);
}

TEST(ImplicitDeck, MethodIsReadFromTheDeckAndListedInErrors) {
  const std::string deck_file = std::string(ZONEODE_SOURCE_DIR) + "/inputs/decay_chain.yaml";
  EXPECT_EQ(load_deck(deck_file, {"integrator.method=implicit"}).integrator.method, IntegrationMethod::implicit);
  EXPECT_EQ(load_deck(deck_file, {}).integrator.method, IntegrationMethod::asymptotic);
  try {
    load_deck(deck_file, {"integrator.method=rosenbrock"});
    FAIL() << "no error";
  } catch (const DeckError& error) {
    EXPECT_NE(std::string(error.what()).find("asymptotic, implicit"), std::string::npos) << error.what();
  }
}

TEST(ImplicitBackends, GpuOffersTheImplicitMethodWithItsOwnKernels) {
  // Without a GPU backend any GPU selection is refused as not built; with one, the implicit method
  // refuses the kernels it does not have and names those it has (before any device is touched).
  const bool gpu_built = !built_kernel_variants().empty();
  try {
    make_backend({IntegrationMethod::implicit, BackendKind::gpu, KernelVariant::tuned}, {});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    if (gpu_built) {
      EXPECT_NE(message.find("'tuned' does not exist for integrator.method: implicit"), std::string::npos) << message;
      EXPECT_NE(message.find("baseline"), std::string::npos) << message;
    } else {
      EXPECT_NE(message.find("run.backend: 'gpu' is not built"), std::string::npos) << message;
    }
  }
}

}  // namespace
}  // namespace zoneode
