// Splitting zones among MPI ranks: contiguous, balanced blocks (sizes differ by at most one).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace zoneode {

// How the zones are split among the ranks (deck key zones.decomposition): equal counts, or
// re-cut after every outer step by the cost of the step just done (decomposition/rebalance.hpp).
enum class Decomposition { count, cost };
inline constexpr Decomposition decompositions[] = {Decomposition::count, Decomposition::cost};
inline std::string_view decomposition_name(Decomposition decomposition) {  // its deck spelling
  switch (decomposition) {  // no default: the compiler names a decomposition left out
    case Decomposition::count: return "count";
    case Decomposition::cost: return "cost";
  }
  throw std::invalid_argument("decomposition_name: " + std::to_string(static_cast<int>(decomposition)) +
                              " is no Decomposition");
}

struct ZoneBlock {
  std::int64_t first = 0;  // global index of the block's first zone
  std::int64_t count = 0;
};

// The block of `rank` among `ranks`: the first (zones % ranks) ranks hold one zone more.
// Throws std::invalid_argument when ranks < 1, zones < 1 or ranks > zones.
ZoneBlock zone_block(std::int64_t zones, int ranks, int rank);

}  // namespace zoneode
