// Splitting zones among MPI ranks: contiguous, balanced blocks (sizes differ by at most one).
#pragma once

#include <cstdint>

namespace zoneode {

struct ZoneBlock {
  std::int64_t first = 0;  // global index of the block's first zone
  std::int64_t count = 0;
};

// The block of `rank` among `ranks`: the first (zones % ranks) ranks hold one zone more.
// Throws std::invalid_argument when ranks < 1, zones < 1 or ranks > zones.
ZoneBlock zone_block(std::int64_t zones, int ranks, int rank);

}  // namespace zoneode
