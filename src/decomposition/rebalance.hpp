// Cost-based decomposition: re-cut the contiguous zone blocks so that every rank's summed cost
// (the integrator steps its zones took in the outer step just done) is as equal as the zone
// granularity allows, and move the zones to their new ranks. The blocks stay contiguous and in
// rank order, so the global zone order (and with it every output) never changes.
#pragma once

#include <cstdint>
#include <vector>

#include "decomposition/decomposition.hpp"
#include "decomposition/mpi_context.hpp"

namespace zoneode {

// The cuts of `ranks` blocks: cuts[r] is the first global zone of rank r; cuts[0] = 0 and
// cuts[ranks] = the zone count.
//
// Cut r (0 < r < ranks) is the zone index i whose cost prefix P(i) (the summed cost of zones
// before i) is closest to r/ranks of the total, the lower index on a tie; then every block is
// given at least one zone. Computed in two parts so that no rank needs every zone's cost:
// `local_cut_candidates` gives, for the ranks' zones [first, first + costs.size()) whose cost
// prefix starts at `cost_before`, the cuts that fall to them (-1 for the others); the element-wise
// maximum over the ranks' candidates, passed to `finish_cuts`, gives the cuts.
// Costs must be >= 1 (a zone always costs something); `total_cost` is the sum over all zones.
std::vector<std::int64_t> local_cut_candidates(const std::vector<std::int64_t>& costs, std::int64_t first,
                                               std::int64_t cost_before, std::int64_t total_cost, int ranks);
std::vector<std::int64_t> finish_cuts(std::vector<std::int64_t> candidates, std::int64_t zones);

// The blocks of every rank, cut by cost, computed collectively (one scan and one reduction).
std::vector<std::int64_t> cost_balanced_cuts(const MpiContext& mpi, const std::vector<std::int64_t>& local_costs,
                                             std::int64_t first, std::int64_t zones);

// Moves zone data from the old blocks to the new ones (collective). `old_data` holds this rank's
// old block, `values_per_zone` doubles per zone, zone-major; returns this rank's new block's data.
std::vector<double> move_zones(const MpiContext& mpi, const std::vector<std::int64_t>& old_cuts,
                               const std::vector<std::int64_t>& new_cuts, const std::vector<double>& old_data,
                               std::int64_t values_per_zone);

// The cuts of the equal-count blocks of decomposition.hpp.
std::vector<std::int64_t> count_cuts(std::int64_t zones, int ranks);

inline ZoneBlock block_of(const std::vector<std::int64_t>& cuts, int rank) {
  return {cuts[rank], cuts[rank + 1] - cuts[rank]};
}

}  // namespace zoneode
