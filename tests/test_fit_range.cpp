// Above the REACLIB fits' range (issue 39, item 3): every set is evaluated at min(T9, 10), the
// partition functions at the zone's own T9; the sets whose fits would run away are named.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "network/compact.hpp"
#include "network/fit_range.hpp"
#include "network/rates.hpp"
#include "physics/partition_table.hpp"
#include "physics/self_heating.hpp"
#include "physics_testing.hpp"

namespace zoneode {
namespace {

// A fit that rises steeply with T9 (the shape of s31 <-> p + p30's mb07 set beyond T9 10).
const std::array<double, 7> steep = {-30.0, -2.0, 0.0, 0.0, 1.5, 0.2, 3.0};

double hand_lambda(const std::array<double, 7>& a, double T9) {
  return std::exp(a[0] + a[1] / T9 + a[2] * std::pow(T9, -1.0 / 3) + a[3] * std::pow(T9, 1.0 / 3) + a[4] * T9 +
                  a[5] * std::pow(T9, 5.0 / 3) + a[6] * std::log(T9));
}

TEST(FitRange, SetsAreHeldAtT9TenAbove) {
  Reaction capture{{0, 1}, {2}, {fit_set(steep)}, 1.0, false};
  const CompactNetwork compact(network_of({species("p", 1, 1), species("f18", 9, 18), species("ne19", 10, 19)}, {capture}));
  const RateView rates = compact.rate_view();
  const double rho = 1e5;
  for (double T9 : {0.5, 3.0, 9.99, 10.0})  // the fit itself up to 10
    EXPECT_NEAR(reaction_rate_factor(rates, 0, T9, rho), rho * hand_lambda(steep, T9), 1e-13 * rho * hand_lambda(steep, T9));
  // Bitwise: T9 read through volatile, so that neither side is folded at compile time (GCC's
  // correctly rounded constant cbrt/log/exp may differ from the library's in the last bit).
  volatile double ten = 10.0;
  const double at_10 = reaction_rate_factor(rates, 0, ten, rho);
  for (double T9 : {10.000001, 10.5, 11.0, 12.0, 100.0}) {
    volatile double hot = T9;
    EXPECT_EQ(reaction_rate_factor(rates, 0, hot, rho), at_10) << T9;
  }
  // Planted fault: the fit followed to T9 12 would be e^(1.5 * 2 + ...) times more.
  EXPECT_GT(rho * hand_lambda(steep, 12.0), 20.0 * at_10);
  EXPECT_TRUE(std::isnan(reaclib_fit_T9(std::numeric_limits<double>::quiet_NaN())));
  // The host's reaction_lambda agrees.
  volatile double twelve = 12.0;
  EXPECT_EQ(reaction_lambda(capture, twelve), reaction_lambda(capture, ten));
}

TEST(FitRange, PartitionFunctionsTakeTheZonesT9) {
  // ne19 -> p + f18, a reverse set: above T9 10 the fit is held but G(ne19) is the 2003 table's
  // at the zone's T9 (6.67 at T9 12 against 5.600298 at 10).
  Reaction reverse{{2}, {0, 1}, {rate_set(0.0, 0.0, true)}, -6.4112, false};
  const Network network = network_of({species("p", 1, 1), species("f18", 9, 18), species("ne19", 10, 19)}, {reverse});
  PhysicsOptions on;
  on.partition_functions = true;
  const CompactNetwork with(network, on), without(network);
  const PartitionTable table = read_partition_table(default_partition_table_path());
  const double G_f18_12 = table.find("f18")->at(24), G_ne19_12 = table.find("ne19")->at(24);
  ASSERT_EQ(table.grid_T9[24], 12.0);
  EXPECT_NEAR(reaction_rate_factor(with.rate_view(), 0, 12.0, 1e5) / reaction_rate_factor(without.rate_view(), 0, 12.0, 1e5),
              G_f18_12 / G_ne19_12, 1e-12 * G_f18_12 / G_ne19_12);
  // Self-heating's T column: above 10 only the partition functions' slope is left.
  const double dT9 = reaction_rate_factor_dT9(with.rate_view(), 0, 12.0, 1e5);
  const double h = 1e-4;
  const double numeric =
      (reaction_rate_factor(with.rate_view(), 0, 12.0 + h, 1e5) - reaction_rate_factor(with.rate_view(), 0, 12.0 - h, 1e5)) /
      (2 * h);
  EXPECT_NEAR(dT9, numeric, 1e-6 * std::fabs(numeric));
  EXPECT_EQ(reaction_rate_factor_dT9(without.rate_view(), 0, 12.0, 1e5), 0.0);
}

TEST(FitRange, NamesTheSetsThatWouldRunAwayRisingFirst) {
  Reaction rising{{0, 1}, {2}, {rate_set(0.0), fit_set(steep)}, 1.0, false};
  Reaction falling{{2}, {0, 1}, {fit_set({0.0, 0.0, 0.0, 0.0, -4.0, 0.0, 0.0})}, -1.0, false};
  Reaction flat{{1, 1}, {0}, {rate_set(1.0)}, 0.5, false};
  const Network network =
      network_of({species("p", 1, 1), species("f18", 9, 18), species("ne19", 10, 19)}, {falling, rising, flat});
  EXPECT_TRUE(rate_sets_beyond_fit(network, 10.0, std::log(10.0)).empty());
  EXPECT_TRUE(rate_sets_beyond_fit(network, 9.0, 0.0).empty());
  const std::vector<FitRangeSet> sets = rate_sets_beyond_fit(network, 12.0, std::log(10.0));
  ASSERT_EQ(sets.size(), 2u);  // the flat sets change by nothing
  EXPECT_EQ(sets[0].reaction, 1);
  EXPECT_EQ(sets[0].set, 1);
  EXPECT_NEAR(sets[0].log_change, std::log(hand_lambda(steep, 12.0) / hand_lambda(steep, 10.0)), 1e-9);
  EXPECT_EQ(sets[1].reaction, 0);
  EXPECT_NEAR(sets[1].log_change, -8.0, 1e-12);  // -4 (12 - 10)
  EXPECT_EQ(sets[0].describe(network).rfind("p + f18 -> ne19", 0), 0u) << sets[0].describe(network);
  EXPECT_NE(sets[0].describe(network).find(", set 2 of 2: fit x e^"), std::string::npos) << sets[0].describe(network);
  EXPECT_EQ(rate_set_count(network), 4);
}

}  // namespace
}  // namespace zoneode
