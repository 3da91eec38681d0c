// The physics options in the CPU path: each changes results in the expected direction by the
// expected amount on a small case computed independently; all off leaves results bit for bit.
#include <gtest/gtest.h>

#include "integrators/method_data.hpp"
#include "integrators/methods.hpp"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "deck/deck.hpp"
#include "deck/yaml_schema.hpp"
#include "integrators/asymptotic.hpp"
#include "integrators/implicit.hpp"
#include "integrators/implicit_structure.hpp"
#include "network/compact.hpp"
#include "physics/neutrinos.hpp"
#include "physics/partition_table.hpp"
#include "physics_testing.hpp"

namespace zoneode {
namespace {

IntegratorSettings implicit_adaptive(double start_time, double end_time, double rtol = 1e-10) {
  IntegratorSettings s;
  s.method = IntegrationMethod::implicit;
  s.schedule = StepSchedule::adaptive;
  s.start_time = start_time;
  s.end_time = end_time;
  s.rtol = rtol;
  s.atol = 1e-25;
  return s;
}

// p + c12 -> n13 at a T-independent rate k [cm^3/(mol s)]: charge is conserved, so Ye and with it
// the Chugunov 2007 factor f stay constant and Y_c12(t) is the analytic solution of
// dY_c/dt = -K Y_p Y_c with K = k rho f, Y_p = Y_c + D: Y_c = D Y_c0 / (Y_p0 e^(K D t) - Y_c0).
TEST(PhysicsIntegration, ScreeningSpeedsACaptureByExactlyItsFactor) {
  const double k = 1e-3, rho = 1e6, T9 = 0.2;
  Reaction capture{{0, 1}, {2}, {rate_set(std::log(k))}, 1.944, false};
  const Network network = network_of({species("p", 1, 1), species("c12", 6, 12), species("n13", 7, 13)}, {capture});
  const std::vector<double> Y0 = {0.5, 0.5 / 12.0, 0.0};
  ScreeningPlasma plasma = make_screening_plasma(T9, rho, 0.5 + 6 * 0.5 / 12.0, 0.0);
  const double f = std::exp(chugunov2007_screening_exponent(1, 1, 6, 12, plasma));
  ASSERT_GT(f, 1.02);  // a visible effect: T9 0.2, rho 1e6 gives H ~ 0.1

  const double duration = 4e-3;  // K D t ~ 2
  const IntegratorSettings settings = implicit_adaptive(1e-8, 1e-8 + duration);
  PhysicsOptions screened;
  screened.screening = ScreeningKind::chugunov2007;
  const Burned off = burn(CompactNetwork(network), settings, Y0, T9, rho);
  const Burned on = burn(CompactNetwork(network, screened), settings, Y0, T9, rho);
  ASSERT_EQ(on.result.status, zone_ok);
  const auto analytic = [&](double K) {
    const double D = Y0[0] - Y0[1];
    return D * Y0[1] / (Y0[0] * std::exp(K * D * duration) - Y0[1]);
  };
  EXPECT_NEAR(off.Y[1], analytic(k * rho), 1e-7 * analytic(k * rho));
  EXPECT_NEAR(on.Y[1], analytic(k * rho * f), 1e-7 * analytic(k * rho * f));
  EXPECT_LT(on.Y[1], off.Y[1]);  // faster burning: less c12 left
  // qss2 screens the same fluxes (to its own accuracy at rtol 1e-8; the unscreened answer is
  // analytic(k rho), several per cent away).
  IntegratorSettings qss2 = settings;
  qss2.method = IntegrationMethod::qss2;
  qss2.rtol = 1e-8;
  const Burned qss2_on = burn(CompactNetwork(network, screened), qss2, Y0, T9, rho);
  ASSERT_EQ(qss2_on.result.status, zone_ok);
  EXPECT_NEAR(qss2_on.Y[1], analytic(k * rho * f), 1e-5 * analytic(k * rho * f));
  // The flux itself is multiplied by f, at any composition.
  const CompactNetwork compact(network, screened);
  std::vector<double> rate(1), flux_on(1), flux_off(1);
  zone_rate_factors(compact.rate_view(), T9, rho, rate.data());
  zone_fluxes(compact.step_view(), rate.data(), Y0.data(), flux_on.data(), T9, rho);
  zone_fluxes(compact.step_view(), rate.data(), Y0.data(), flux_off.data());
  EXPECT_NEAR(flux_on[0] / flux_off[0], f, 1e-14 * f);
  // Weak screening at the same point: Salpeter's factor with zeta = sum (Z^2 + Z) Y.
  PhysicsOptions weak;
  weak.screening = ScreeningKind::weak;
  const CompactNetwork weak_compact(network, weak);
  zone_fluxes(weak_compact.step_view(), rate.data(), Y0.data(), flux_on.data(), T9, rho);
  plasma.z2_sum = 0.5 + 36 * 0.5 / 12.0;
  EXPECT_NEAR(flux_on[0] / flux_off[0], std::exp(weak_screening_exponent(1, 6, plasma)), 1e-14);
}

TEST(PhysicsIntegration, PartitionFunctionsScaleOnlyReverseRates) {
  // si28 -> p + al27 (a reverse set) and al27 + p -> si28 (forward), both lambda = 1.
  Reaction reverse{{2}, {0, 1}, {rate_set(0.0, 0.0, true)}, -11.585, false};
  Reaction forward{{0, 1}, {2}, {rate_set(0.0)}, 11.585, false};
  const Network network =
      network_of({species("p", 1, 1), species("al27", 13, 27), species("si28", 14, 28)}, {reverse, forward});
  PhysicsOptions on;
  on.partition_functions = true;
  const CompactNetwork with(network, on), without(network);
  for (const auto& [T9, expected] : {std::pair{3.0, 1.026217 / 1.005132},  // grid point
                                     std::pair{2.75, std::sqrt(1.012693 * 1.026217) / std::sqrt(1.001296 * 1.005132)}}) {
    EXPECT_NEAR(reaction_rate_factor(with.rate_view(), 0, T9, 1e5) / reaction_rate_factor(without.rate_view(), 0, T9, 1e5),
                expected, 1e-14)
        << T9;
    EXPECT_EQ(reaction_rate_factor(with.rate_view(), 1, T9, 1e5), reaction_rate_factor(without.rate_view(), 1, T9, 1e5));
  }
  // A table without si28 leaves the ratio at G(al27).
  const std::filesystem::path table = std::filesystem::path(::testing::TempDir()) / "zoneode_pf_al27.txt";
  std::ofstream(table) << "T9 1 4\nal27 2 2\n";
  on.partition_table = table.string();
  const CompactNetwork without_si28(network, on);
  EXPECT_NEAR(reaction_rate_factor(without_si28.rate_view(), 0, 2.0, 1e5), 2.0, 1e-14);
  // ... and names si28 and p (the nuclides of the reverse rate that the table lacks), which
  // partition_missing: refuse makes an input error that names them too.
  EXPECT_EQ(without_si28.pf_untabulated, (std::vector<std::string>{"p", "si28"}));
  on.partition_missing = PartitionMissing::refuse;
  try {
    CompactNetwork refused(network, on);
    ADD_FAILURE() << "partition_missing: refuse accepted an untabulated nuclide";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("2 nuclide(s) of reverse rates: p, si28"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(table.string()), std::string::npos) << error.what();
  }
  on.partition_missing = PartitionMissing::unity;
  on.partition_table = (std::filesystem::path(::testing::TempDir()) / "no_such_table.txt").string();
  EXPECT_THROW(CompactNetwork(network, on), InputError);
  std::filesystem::remove(table);
}

TEST(PhysicsIntegration, NeutrinoLossesTakeTheirShareOfTheEnergyRate) {
  // n13 -> c13 (beta+, Q 2.2204 MeV) and c13 + p -> n14 (not weak): the energy rate of the
  // decay alone falls by 1 - share; abundances do not change.
  Reaction decay{{0}, {1}, {rate_set(std::log(1e-3))}, 2.2204, false};
  Reaction capture{{1, 2}, {3}, {rate_set(std::log(1e-30))}, 7.551, false};
  const Network network = network_of(
      {species("n13", 7, 13), species("c13", 6, 13), species("p", 1, 1), species("n14", 7, 14)}, {decay, capture});
  PhysicsOptions on;
  on.neutrino_losses = true;
  const CompactNetwork with(network, on), without(network);
  const double share = neutrino_share(WeakKind::beta_plus, 2.2204, 6);
  EXPECT_NEAR(share * 2.2204, 0.7067, 0.01);  // Bahcall's mean 13N neutrino energy
  EXPECT_EQ(with.neutrino_share, (std::vector<double>{share, 0.0}));
  EXPECT_EQ(with.q_value_MeV[1], 7.551);
  IntegratorSettings settings;
  settings.end_time = 100.0;
  settings.start_time = 1e-6;
  const std::vector<double> Y0 = {0.01 / 13, 0.0, 0.99, 0.0};
  const Burned a = burn(with, settings, Y0, 1.0, 1e3), b = burn(without, settings, Y0, 1.0, 1e3);
  EXPECT_EQ(a.Y, b.Y);
  EXPECT_NEAR(a.result.energy_generation_rate / b.result.energy_generation_rate, 1.0 - share, 1e-12);
}

// x -> y (Z 6, A 12), Q 5 MeV, lambda = exp(T9) [1/s], rho 1e6, X_x = 1, T9(0) = 1: T and Y from
// scipy (solve_ivp Radau, rtol 1e-12) with c_v written out independently in Python
// (validation/self_heating_eos_reference.py):
//   cv(T) = 1.5 R / 12 + 4 a T^3 / rho + the exact ideal e-/e+ gas's c_v (scipy quad over momentum,
//           brentq for mu, c_v from a difference of the energy; a cubic spline in T9, 1e-9)
//   dY/dt = -exp(T9) Y,  dT9/dt = Q N_A MeV exp(T9) Y / cv / 1e9
// over 0.2 s: Y = 0.026521602479561358, T9 = 2.123418279716846.
TEST(PhysicsIntegration, SelfHeatingFollowsTheOdeAtFirstOrder) {
  Reaction decay{{0}, {1}, {rate_set(0.0, 1.0)}, 5.0, false};
  const Network network = network_of({species("c12", 6, 12), species("c12m", 6, 12)}, {decay});
  PhysicsOptions on;
  on.self_heating = true;
  const CompactNetwork compact(network, on);
  const double T9_ref = 2.123418279716846, Y_ref = 0.026521602479561358;
  double previous_error = 0.0;
  for (double fraction : {1e-2, 1e-3}) {
    IntegratorSettings settings;
    settings.start_time = 1e-6;
    settings.end_time = 1e-6 + 0.2;
    settings.dt_fraction = fraction;
    const Burned out = burn(compact, settings, {1.0 / 12.0, 0.0}, 1.0, 1e6);
    ASSERT_EQ(out.result.status, zone_ok);
    const double error = std::fabs(out.T9 - T9_ref) / T9_ref;
    EXPECT_LT(error, 20 * fraction) << fraction;
    EXPECT_NEAR(out.Y[0], Y_ref, 60 * fraction * Y_ref) << fraction;
    if (previous_error > 0.0) EXPECT_NEAR(previous_error / error, 10.0, 3.0);  // first order
    previous_error = error;
  }
  // The implicit and qss2 methods, adaptive steps (T9 in their state: test_self_heating.cpp holds them to 10 rtol).
  const Burned implicit = burn(compact, implicit_adaptive(1e-6, 1e-6 + 0.2, 1e-6), {1.0 / 12.0, 0.0}, 1.0, 1e6);
  EXPECT_NEAR(implicit.T9, T9_ref, 0.02 * T9_ref);
  IntegratorSettings qss2 = implicit_adaptive(1e-6, 1e-6 + 0.2, 1e-6);
  qss2.method = IntegrationMethod::qss2;
  const Burned qss2_burn = burn(compact, qss2, {1.0 / 12.0, 0.0}, 1.0, 1e6);
  ASSERT_EQ(qss2_burn.result.status, zone_ok);
  EXPECT_NEAR(qss2_burn.T9, T9_ref, 0.02 * T9_ref);
  EXPECT_NEAR(qss2_burn.Y[0], Y_ref, 0.05 * Y_ref);
  // Off: T stays, and the rate stays at exp(1).
  const Burned off = burn(CompactNetwork(network), implicit_adaptive(1e-6, 1e-6 + 0.2), {1.0 / 12.0, 0.0}, 1.0, 1e6);
  EXPECT_EQ(off.T9, 1.0);
  EXPECT_NEAR(off.Y[0], std::exp(-std::exp(1.0) * 0.2) / 12.0, 1e-8 / 12.0);
}

TEST(PhysicsIntegration, EverythingOffIsBitForBitTheOldNetwork) {
  Reaction capture{{0, 1}, {2}, {rate_set(-3.0, 0.5, true)}, 1.944, false};
  const Network network = network_of({species("p", 1, 1), species("c12", 6, 12), species("n13", 7, 13)}, {capture});
  const CompactNetwork plain(network), off(network, PhysicsOptions{});
  ASSERT_EQ(plain.rate_block_bytes(), off.rate_block_bytes());
  ASSERT_EQ(plain.step_block_bytes(), off.step_block_bytes());
  EXPECT_EQ(0, std::memcmp(plain.rate_block(), off.rate_block(), plain.rate_block_bytes()));
  EXPECT_EQ(0, std::memcmp(plain.step_block(), off.step_block(), plain.step_block_bytes()));
  EXPECT_EQ(off.step_view().screening, 0);
  EXPECT_EQ(off.rate_view().pf_offsets, nullptr);
}

class PhysicsDeck : public ::testing::Test {
 protected:
  std::string load_error(const std::string& physics, const std::vector<std::string>& overrides = {}) {
    const std::filesystem::path path = std::filesystem::path(::testing::TempDir()) / "zoneode_physics_deck.yaml";
    std::ofstream(path) << "network: {source: decay_chain, rates: [1.0]}\n"
                           "zones: {count: 1, temperature: {profile: constant, value: 1}, density: {profile: "
                           "constant, value: 1}, composition: {x0: 1.0}}\n"
                           "integrator: {end_time: 1.0}\n"
                        << physics;
    try {
      deck_ = load_deck(path.string(), overrides);
    } catch (const DeckError& error) {
      return error.what();
    }
    return "";
  }
  Deck deck_;
};

TEST_F(PhysicsDeck, DefaultsAreOffAndKeysAreChecked) {
  EXPECT_EQ(load_error(""), "");
  EXPECT_FALSE(deck_.physics.any());
  EXPECT_NE(deck_.resolved_yaml.find("screening: none"), std::string::npos) << deck_.resolved_yaml;
  EXPECT_EQ(load_error("physics: {screening: chugunov2007, partition_functions: true, self_heating: true, "
                       "neutrino_losses: true}\n"),
            "");
  EXPECT_EQ(deck_.physics.screening, ScreeningKind::chugunov2007);
  EXPECT_TRUE(deck_.physics.partition_functions && deck_.physics.self_heating && deck_.physics.neutrino_losses);
  EXPECT_NE(load_error("physics: {screening: strong}\n").find("physics.screening"), std::string::npos);
  EXPECT_NE(load_error("physics: {screening: strong}\n").find("chugunov2007"), std::string::npos);
  EXPECT_NE(load_error("physics: {self_heating: yes}\n").find("true or false"), std::string::npos);
  EXPECT_NE(load_error("physics: {neutrinos: true}\n").find("neutrinos"), std::string::npos);
  EXPECT_NE(load_error("physics: {partition_table: /no/such/file}\n").find("partition_table"), std::string::npos);
  // Every option is accepted with the GPU backend too (the kernels evaluate them), but for
  // self-heating with an explicit method: its GPU kernels do not carry T9 in the state (refused at
  // the key; DeckTest.SelfHeatingWithAnExplicitMethodOnTheGpuIsRefusedAtItsKey).
  for (const char* option : {"screening: weak", "screening: chugunov2007", "partition_functions: true",
                             "neutrino_losses: true"})
    EXPECT_EQ(load_error(std::string("run: {backend: gpu}\nphysics: {") + option + "}\n"), "") << option;
  EXPECT_NE(load_error("run: {backend: gpu}\nphysics: {self_heating: true}\n").find("physics.self_heating"),
            std::string::npos);
  // And with every method on both backends (the GPU's qss2 and implicit kernels have physics
  // instantiations too; self-heating on the GPU with the implicit method only).
  for (const char* method : {"qss2", "implicit"}) {
    const std::vector<std::string> set = {std::string("integrator.method=") + method};
    for (const char* option : {"screening: weak", "screening: chugunov2007", "self_heating: true",
                               "partition_functions: true", "neutrino_losses: true"}) {
      EXPECT_EQ(load_error(std::string("physics: {") + option + "}\n", set), "") << method << " " << option;
      const bool refused = std::string(option) == "self_heating: true" && std::string(method) == "qss2";
      EXPECT_EQ(load_error(std::string("run: {backend: gpu}\nphysics: {") + option + "}\n", set).empty(), !refused)
          << method << " " << option;
    }
  }
}

}  // namespace
}  // namespace zoneode
