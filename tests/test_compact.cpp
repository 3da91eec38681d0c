// The compact network and the per-zone maths against hand-computed numbers.
#include <gtest/gtest.h>

#include <cmath>

#include "integrators/asymptotic.hpp"
#include "network/rates.hpp"
#include "network/compact.hpp"

namespace zoneode {
namespace {

RateSet constant_set(double lambda) {
  RateSet set;
  set.a[0] = std::log(lambda);
  return set;
}

// he4, c12, o16, ne20, p, n with triple alpha, 12C(a,g), 12C+12C -> 20Ne + a and an electron capture.
Network small_network() {
  Network net;
  net.name = "hand";
  net.species = {{"he4", 2, 4, 2.4249}, {"c12", 6, 12, 0.0}, {"o16", 8, 16, -4.737}, {"ne20", 10, 20, -7.0419},
                 {"p", 1, 1, 7.289}, {"n", 0, 1, 8.0713}};
  Reaction triple_alpha{{0, 0, 0}, {1}, {constant_set(2.0)}, 7.275, false};
  Reaction alpha_capture{{1, 0}, {2}, {constant_set(5.0)}, 7.162, false};
  Reaction carbon_fusion{{1, 1}, {3, 0}, {constant_set(3.0), constant_set(1.0)}, 4.617, false};
  Reaction electron_capture{{4}, {5}, {constant_set(0.25)}, -0.782, true};
  net.reactions = {triple_alpha, alpha_capture, carbon_fusion, electron_capture};
  return net;
}

TEST(CompactNetwork, CsrListsHoldEachSpeciesTermsWithMultiplicities) {
  const CompactNetwork compact(small_network());
  EXPECT_EQ(compact.species_count(), 6);
  EXPECT_EQ(compact.reaction_count(), 4);
  // F- terms: he4 in 3a (x3) and 12C(a,g); c12 in (a,g) and 12C+12C (x2); p in ec.
  ASSERT_EQ(compact.destruction_offsets, (std::vector<std::int32_t>{0, 2, 4, 4, 4, 5, 5}));
  EXPECT_EQ(compact.destruction_reaction, (std::vector<reaction_index_t>{0, 1, 1, 2, 3}));
  EXPECT_EQ(compact.destruction_factor, (std::vector<stoich_factor_t>{3, 1, 1, 2, 1}));
  // F+ terms: he4 from 12C+12C; c12 from 3a; o16 from (a,g); ne20 from fusion; n from ec.
  ASSERT_EQ(compact.creation_offsets, (std::vector<std::int32_t>{0, 1, 2, 3, 4, 4, 5}));
  EXPECT_EQ(compact.creation_reaction, (std::vector<reaction_index_t>{2, 0, 1, 2, 3}));
  EXPECT_EQ(compact.flux_terms(), 10);
  const TermCounts counts = count_terms(small_network());
  EXPECT_EQ(counts.creation, 5);
  EXPECT_EQ(counts.destruction, 5);
  EXPECT_EQ(compact.set_count(), 5);
  EXPECT_DOUBLE_EQ(compact.identical_factor[0], 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(compact.identical_factor[2], 1.0 / 2.0);
  EXPECT_DOUBLE_EQ(compact.identical_factor[1], 1.0);
}

TEST(ZoneMath, FluxesFollowTheReaclibConventions) {
  const CompactNetwork compact(small_network());
  const StepView net = compact.step_view();
  const double T9 = 1.7, rho = 3.0e5;
  const double Y[6] = {0.2, 0.03, 0.01, 0.001, 0.05, 0.0};
  const double ye = 2 * 0.2 + 6 * 0.03 + 8 * 0.01 + 10 * 0.001 + 1 * 0.05;
  EXPECT_NEAR(electron_fraction(net, Y), ye, 1e-15);
  double rate[4], flux[4];
  zone_rate_factors(compact.rate_view(), T9, rho, rate);
  zone_fluxes(net, rate, Y, flux);
  // triple alpha: rho^2 lambda Y^3 / 3!
  EXPECT_NEAR(flux[0] / (rho * rho * 2.0 * 0.2 * 0.2 * 0.2 / 6.0), 1.0, 1e-14);
  // two-body: rho lambda Ya Yb
  EXPECT_NEAR(flux[1] / (rho * 5.0 * 0.03 * 0.2), 1.0, 1e-14);
  // identical pair, two sets summed: rho (3 + 1) Y^2 / 2!
  EXPECT_NEAR(flux[2] / (rho * 4.0 * 0.03 * 0.03 / 2.0), 1.0, 1e-14);
  // electron capture: lambda per unit rho Ye
  EXPECT_NEAR(flux[3] / (0.25 * rho * ye * 0.05), 1.0, 1e-14);
  // F+/F- sums with stoichiometric factors.
  EXPECT_NEAR(destruction_sum(net, 0, flux), 3 * flux[0] + flux[1], 1e-14 * flux[0]);
  EXPECT_NEAR(destruction_sum(net, 1, flux), flux[1] + 2 * flux[2], 1e-14 * flux[1]);
  EXPECT_NEAR(creation_sum(net, 0, flux), flux[2], 0.0);
  EXPECT_NEAR(creation_sum(net, 1, flux), flux[0], 0.0);
  // Energy: sum flux Q.
  EXPECT_NEAR(energy_release_rate(net, flux),
              7.275 * flux[0] + 7.162 * flux[1] + 4.617 * flux[2] - 0.782 * flux[3], 1e-13 * 7.275 * flux[0]);
}

TEST(ZoneMath, ReaclibSetEvaluatesEveryTerm) {
  const double a[7] = {1.5, -0.3, -2.0, 0.7, -0.1, 0.02, -0.6667};
  for (double T9 : {0.2, 1.0, 4.5}) {
    const double expected = std::exp(1.5 - 0.3 / T9 - 2.0 * std::pow(T9, -1.0 / 3) + 0.7 * std::pow(T9, 1.0 / 3) -
                                     0.1 * T9 + 0.02 * std::pow(T9, 5.0 / 3) - 0.6667 * std::log(T9));
    EXPECT_NEAR(reaclib_set_lambda(a, T9) / expected, 1.0, 1e-14) << "T9 " << T9;
  }
  const double two[7] = {std::log(2.0), 0, 0, 0, 0, 0, 1.0};  // 2 T9
  EXPECT_NEAR(reaclib_set_lambda(two, 2.0), 4.0, 1e-14);
}

TEST(ZoneMath, AsymptoticUpdateBranchesByHand) {
  // F- dt = 0.5 < Y = 1: forward Euler, 1 + (0.2 - 0.5) = 0.7
  EXPECT_DOUBLE_EQ(asymptotic_update(1.0, 0.2, 0.5, 1.0, 0.0), 0.7);
  // F- dt = 40 > Y = 2: (2 + 0.3*10) / (1 + 40/2) = 5/21
  EXPECT_DOUBLE_EQ(asymptotic_update(2.0, 0.3, 4.0, 10.0, 0.0), 5.0 / 21.0);
  // The floor holds.
  EXPECT_DOUBLE_EQ(asymptotic_update(1e-40, 0.0, 0.0, 1.0, 1e-30), 1e-30);
  // Forward Euler may undershoot the floor too: 1 - 0.9 = 0.1 stays; 1 + (0 - 1) * 1 = 0 -> floor.
  EXPECT_DOUBLE_EQ(asymptotic_update(1.0, 0.0, 1.0, 1.0, 1e-30), 1e-30);
}

TEST(ZoneMath, MassFractionSum) {
  const CompactNetwork compact(small_network());
  const double Y[6] = {0.1, 0.02, 0.0, 0.01, 0.1, 0.0};
  EXPECT_NEAR(mass_fraction_sum(compact.step_view(), Y), 0.4 + 0.24 + 0.2 + 0.1, 1e-15);
}

TEST(CompactNetwork, RejectsInvalidNetworks) {
  Network bad = small_network();
  bad.reactions[0].reactants = {0, 0, 0, 0, 0};
  EXPECT_THROW(CompactNetwork{bad}, std::runtime_error);
  bad = small_network();
  bad.reactions[1].products = {17};
  EXPECT_THROW(CompactNetwork{bad}, std::runtime_error);
  bad = small_network();
  bad.reactions[2].sets.clear();
  EXPECT_THROW(CompactNetwork{bad}, std::runtime_error);
  bad = small_network();
  bad.species[1].name = "he4";
  EXPECT_THROW(CompactNetwork{bad}, std::runtime_error);
}

}  // namespace
}  // namespace zoneode
