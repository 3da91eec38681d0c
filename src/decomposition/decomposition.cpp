#include "decomposition/decomposition.hpp"

#include <stdexcept>
#include <string>

namespace zoneode {

ZoneBlock zone_block(std::int64_t zones, int ranks, int rank) {
  if (ranks < 1 || rank < 0 || rank >= ranks) throw std::invalid_argument("zone_block: bad rank " + std::to_string(rank));
  if (zones < 1) throw std::invalid_argument("zone_block: no zones");
  if (ranks > zones) {
    throw std::invalid_argument(std::to_string(ranks) + " MPI ranks for " + std::to_string(zones) +
                                " zones: every rank needs at least one zone; run with at most " +
                                std::to_string(zones) + " ranks");
  }
  const std::int64_t base = zones / ranks, extra = zones % ranks;
  ZoneBlock block;
  block.count = base + (rank < extra ? 1 : 0);
  block.first = rank * base + (rank < extra ? rank : extra);
  return block;
}

}  // namespace zoneode
