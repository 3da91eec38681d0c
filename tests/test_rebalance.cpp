// Cost-balanced cuts (decomposition/rebalance.hpp): hand-computed cases, a brute-force search
// over every cut position, and the split computation (each rank its own zones) equal to the
// whole. Moving zones between ranks needs MPI: tests/signal_end_to_end.sh runs it on 2 and 3 ranks.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "common/splitmix64.hpp"
#include "decomposition/rebalance.hpp"

namespace zoneode {
namespace {

std::vector<std::int64_t> whole_cuts(const std::vector<std::int64_t>& costs, int ranks) {
  std::int64_t total = 0;
  for (std::int64_t c : costs) total += c;
  return finish_cuts(local_cut_candidates(costs, 0, 0, total, ranks), static_cast<std::int64_t>(costs.size()));
}

TEST(Rebalance, HandComputedCuts) {
  // Total 107. Two ranks: P(4) = 4 is 49.5 below half, P(5) = 104 is 50.5 above: cut at 4.
  const std::vector<std::int64_t> spike{1, 1, 1, 1, 100, 1, 1, 1};
  EXPECT_EQ(whole_cuts(spike, 2), (std::vector<std::int64_t>{0, 4, 8}));
  // Three ranks: targets 35.7 (P(4) = 4 is closer than 104) and 71.3 (P(5) = 104 is closer).
  EXPECT_EQ(whole_cuts(spike, 3), (std::vector<std::int64_t>{0, 4, 5, 8}));
  // Equal costs: the cuts of equal counts.
  EXPECT_EQ(whole_cuts(std::vector<std::int64_t>(12, 5), 4), (std::vector<std::int64_t>{0, 3, 6, 9, 12}));
  // A tie (target 2 between P(1) = 1 and P(2) = 3, both 1 away) takes the lower cut.
  EXPECT_EQ(whole_cuts({1, 2, 1}, 2), (std::vector<std::int64_t>{0, 1, 3}));
  // One rank: everything.
  EXPECT_EQ(whole_cuts({3, 1, 4}, 1), (std::vector<std::int64_t>{0, 3}));
}

TEST(Rebalance, EveryRankKeepsAZone) {
  // Zone 0 holds nearly all the cost: both cuts would fall at 0 or 1; blocks of 1, 1 and 2 zones.
  EXPECT_EQ(whole_cuts({1000, 1, 1, 1}, 3), (std::vector<std::int64_t>{0, 1, 2, 4}));
  // The last zone holds nearly all: the cuts are pushed back to leave it one rank.
  EXPECT_EQ(whole_cuts({1, 1, 1, 1000}, 3), (std::vector<std::int64_t>{0, 2, 3, 4}));
  EXPECT_EQ(whole_cuts({1, 1}, 2), (std::vector<std::int64_t>{0, 1, 2}));
}

TEST(Rebalance, CutsAreTheClosestPrefixesByBruteForce) {
  std::uint64_t state = 7;
  int unclamped = 0;  // cases where no block needed a zone added: the cuts are the argmins exactly
  for (int trial = 0; trial < 200; ++trial) {
    const int zones = 1 + static_cast<int>(splitmix64(state++) % 60);
    std::vector<std::int64_t> costs(zones);
    // Costs over four decades (as hot and cool zones differ), or over one.
    for (auto& c : costs) c = 1 + static_cast<std::int64_t>(splitmix64(state++) % (trial % 2 ? 10 : 10000));
    std::vector<std::int64_t> prefix(zones + 1, 0);
    for (int i = 0; i < zones; ++i) prefix[i + 1] = prefix[i] + costs[i];
    for (int ranks = 1; ranks <= std::min(zones, 6); ++ranks) {
      const std::vector<std::int64_t> cuts = whole_cuts(costs, ranks);
      ASSERT_EQ(cuts.size(), static_cast<std::size_t>(ranks + 1));
      EXPECT_EQ(cuts.front(), 0);
      EXPECT_EQ(cuts.back(), zones);
      // Every cut position tried: the i with the least |P(i) ranks - total r|, the lowest on a tie.
      std::vector<std::int64_t> best(ranks + 1, 0);
      best[ranks] = zones;
      for (int r = 1; r < ranks; ++r) {
        for (int i = 1; i <= zones; ++i) {
          if (std::llabs(prefix[i] * ranks - prefix[zones] * r) < std::llabs(prefix[best[r]] * ranks - prefix[zones] * r))
            best[r] = i;
        }
      }
      bool all_blocks_nonempty = true;
      for (int r = 0; r < ranks; ++r) all_blocks_nonempty = all_blocks_nonempty && best[r + 1] > best[r];
      if (all_blocks_nonempty) {
        ++unclamped;
        EXPECT_EQ(cuts, best) << "trial " << trial << ", " << ranks << " ranks";
      }
      for (int r = 0; r < ranks; ++r) EXPECT_GT(cuts[r + 1], cuts[r]) << "an empty block";
    }
  }
  EXPECT_GT(unclamped, 500);
}

TEST(Rebalance, SplitComputationEqualsTheWhole) {
  // Each "rank" places only the cuts that fall in its own zones; the element-wise maximum of the
  // candidates gives the cuts of the whole, for any split of the zones.
  std::uint64_t state = 99;
  for (int trial = 0; trial < 100; ++trial) {
    const int zones = 8 + static_cast<int>(splitmix64(state++) % 50);
    std::vector<std::int64_t> costs(zones);
    for (auto& c : costs) c = 1 + static_cast<std::int64_t>(splitmix64(state++) % 1000);
    std::int64_t total = 0;
    for (std::int64_t c : costs) total += c;
    for (int ranks : {2, 3, 5, 8}) {
      const std::vector<std::int64_t> owners = count_cuts(zones, 1 + trial % 4);  // any split of the zones
      std::vector<std::int64_t> combined(ranks - 1, -1);
      std::int64_t before = 0;
      for (std::size_t part = 0; part + 1 < owners.size(); ++part) {
        const std::vector<std::int64_t> mine(costs.begin() + owners[part], costs.begin() + owners[part + 1]);
        const std::vector<std::int64_t> candidates = local_cut_candidates(mine, owners[part], before, total, ranks);
        for (int r = 0; r < ranks - 1; ++r) {
          if (candidates[r] >= 0) {
            EXPECT_EQ(combined[r], -1) << "cut " << r + 1 << " placed by two parts";
            combined[r] = candidates[r];
          }
        }
        for (std::int64_t c : mine) before += c;
      }
      EXPECT_EQ(finish_cuts(combined, zones), whole_cuts(costs, ranks)) << "trial " << trial << ", " << ranks << " ranks";
    }
  }
}

TEST(Rebalance, CountCutsAreTheEqualCountBlocks) {
  const std::vector<std::int64_t> cuts = count_cuts(10, 4);
  EXPECT_EQ(cuts, (std::vector<std::int64_t>{0, 3, 6, 8, 10}));
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(block_of(cuts, rank).first, zone_block(10, 4, rank).first);
    EXPECT_EQ(block_of(cuts, rank).count, zone_block(10, 4, rank).count);
  }
}

TEST(Rebalance, BadInputIsRefused) {
  EXPECT_THROW(local_cut_candidates({1, 0, 1}, 0, 0, 2, 2), std::invalid_argument);  // a zone of no cost
  EXPECT_THROW(finish_cuts({-1}, 4), std::logic_error);                             // a cut nobody placed
  EXPECT_THROW(finish_cuts({1, 2}, 2), std::invalid_argument);                      // 3 ranks, 2 zones
}

}  // namespace
}  // namespace zoneode
