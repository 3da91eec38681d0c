// Balanced contiguous blocks: every zone in exactly one block, sizes differ by at most one.
#include <gtest/gtest.h>

#include <stdexcept>

#include "decomposition/decomposition.hpp"

namespace zoneode {
namespace {

TEST(Decomposition, BlocksCoverEveryZoneOnceAndBalance) {
  for (std::int64_t zones : {1, 2, 7, 10, 37, 1000, 1000003}) {
    for (int ranks : {1, 2, 3, 4, 7, 16}) {
      if (ranks > zones) continue;
      std::int64_t next = 0, smallest = zones, largest = 0;
      for (int rank = 0; rank < ranks; ++rank) {
        const ZoneBlock block = zone_block(zones, ranks, rank);
        EXPECT_EQ(block.first, next) << zones << " zones, rank " << rank << " of " << ranks;
        next = block.first + block.count;
        smallest = std::min(smallest, block.count);
        largest = std::max(largest, block.count);
      }
      EXPECT_EQ(next, zones);
      EXPECT_LE(largest - smallest, 1);
      EXPECT_GE(smallest, 1);
    }
  }
  // 10 zones on 4 ranks: 3, 3, 2, 2.
  EXPECT_EQ(zone_block(10, 4, 0).count, 3);
  EXPECT_EQ(zone_block(10, 4, 1).first, 3);
  EXPECT_EQ(zone_block(10, 4, 2).first, 6);
  EXPECT_EQ(zone_block(10, 4, 3).count, 2);
}

TEST(Decomposition, MoreRanksThanZonesIsAnError) {
  try {
    zone_block(3, 4, 0);
    FAIL();
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(),
                 "4 MPI ranks for 3 zones: every rank needs at least one zone; run with at most 3 ranks");
  }
}

}  // namespace
}  // namespace zoneode
