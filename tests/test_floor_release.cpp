// The energy release of reactions on species held at the abundance floor (issue 40,
// integrators/floor_release.hpp), against a brute-force sum over every reaction's flux, and on the
// case that showed it: an o18 zone at rho 1e12, where the explicit methods count 15 erg/(g s) from
// protons and alphas that the floor puts back after every step.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "integrators/floor_release.hpp"
#include "network/compact.hpp"
#include "network/generator.hpp"

namespace zoneode {
namespace {

// Every reaction's flux at Y (screened as the network says), and sum Q flux over those with a
// reactant at most twice the floor: the reactions scanned one by one, not through the species' lists.
double brute_force(const CompactNetwork& compact, double T9, double rho, const std::vector<double>& Y, double floor) {
  const RateView rates = compact.rate_view();
  const StepView net = compact.step_view();
  const double ye = electron_fraction(net, Y.data());
  const ScreeningPlasma plasma = screening_plasma(net, Y.data(), T9, rho, ye);
  double sum = 0.0;
  for (int r = 0; r < net.reaction_count; ++r) {
    bool floored = false;
    for (int k = 0; k < net.reactant_count[r]; ++k)
      floored = floored || Y[net.reactant_species[max_reactants_per_reaction * r + k]] <= 2.0 * floor;
    if (floored) sum += reaction_flux(net, r, reaction_rate_factor(rates, r, T9, rho), Y.data(), ye, plasma) *
                        net.q_value_MeV[r];
  }
  return sum;
}

TEST(FloorRelease, EqualsTheSumOverTheReactionsOnFlooredSpecies) {
  const Network network = generate_network(generator_preset("default"));
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  // The default floor, and one as large as the other abundances (1e-4 mol/g), where a reaction with
  // two reactants at the floor weighs as much as one with one: counted twice, it would show.
  for (const double floor : {1e-30, 1e-4})
  for (ScreeningKind screening : {ScreeningKind::none, ScreeningKind::weak}) {
    PhysicsOptions physics;
    physics.screening = screening;
    const CompactNetwork compact(network, physics);
    const int n = compact.species_count();
    for (int trial = 0; trial < 20; ++trial) {
      // About a third of the species at the floor (some of them twice in one reaction), the rest
      // above it by 1e-12..1e-2 mol/g; trial 0 has none at the floor.
      std::vector<double> Y(n);
      for (int i = 0; i < n; ++i)
        Y[i] = trial > 0 && uniform(random) < 0.35 ? floor * (1.0 + uniform(random))  // as renormalised
                                                  : 2.0 * floor + std::pow(10.0, -12.0 + 10.0 * uniform(random));
      const double T9 = 0.5 + 2.5 * uniform(random), rho = std::pow(10.0, 4.0 + 8.0 * uniform(random));
      const double expected = brute_force(compact, T9, rho, Y, floor);
      const double got = floor_sustained_release_rate(compact.rate_view(), compact.step_view(), T9, rho, Y.data(), floor);
      if (trial == 0) {
        EXPECT_EQ(got, 0.0);
        continue;
      }
      EXPECT_NE(expected, 0.0);
      // The same terms in another order.
      EXPECT_NEAR(got, expected, 1e-12 * std::fabs(expected)) << "trial " << trial;
    }
  }
}

TEST(FloorRelease, AnO18ZoneAtRho1e12BurnsOnlyWhatTheFloorSupplies) {
  // Pure o18 at T9 1, rho 1e12: no proton or alpha to burn with; at the floor they are.
  const Network network = generate_network(generator_preset("default"));
  const CompactNetwork compact(network);
  const StepView net = compact.step_view();
  const double floor = 1e-30;
  std::vector<double> Y(net.species_count, floor);
  const int o18 = network.find_species("o18");
  ASSERT_GE(o18, 0);
  Y[o18] = 1.0 / 18.0;
  const double to_erg = constants::avogadro * constants::mev_to_erg;
  const double rate = to_erg * floor_sustained_release_rate(compact.rate_view(), net, 1.0, 1e12, Y.data(), floor);
  // Every reaction but o18 + o18 has a reactant at the floor, so the floor's share is all of the
  // release rate at this state but that one reaction's.
  std::vector<double> flux(net.reaction_count);
  const double ye = electron_fraction(net, Y.data());
  for (int r = 0; r < net.reaction_count; ++r)
    flux[r] = reaction_flux(net, r, reaction_rate_factor(compact.rate_view(), r, 1.0, 1e12), Y.data(), ye);
  double o18_o18 = 0.0;
  for (int r = 0; r < net.reaction_count; ++r) {
    bool all_o18 = true;
    for (int k = 0; k < net.reactant_count[r]; ++k)
      all_o18 = all_o18 && net.reactant_species[max_reactants_per_reaction * r + k] == o18;
    if (all_o18) o18_o18 += flux[r] * net.q_value_MeV[r];
  }
  EXPECT_NEAR(rate, to_erg * (energy_release_rate(net, flux.data()) - o18_o18), 1e-12 * std::fabs(rate));
  // 13 erg/(g s) at the floor of 1e-30 mol/g (the run counts 15.5 over a 1 s burn); linear in the floor.
  EXPECT_GT(rate, 1.0);
  EXPECT_LT(rate, 100.0);
  std::vector<double> lower(Y);
  for (int i = 0; i < net.species_count; ++i)
    if (i != o18) lower[i] = 1e-40;
  const double rate_lower = to_erg * floor_sustained_release_rate(compact.rate_view(), net, 1.0, 1e12, lower.data(), 1e-40);
  EXPECT_NEAR(rate_lower, rate * 1e-10, 1e-3 * rate * 1e-10);
}

}  // namespace
}  // namespace zoneode
