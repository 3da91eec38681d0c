#include "decomposition/rebalance.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace zoneode {

std::vector<std::int64_t> local_cut_candidates(const std::vector<std::int64_t>& costs, std::int64_t first,
                                               std::int64_t cost_before, std::int64_t total_cost, int ranks) {
  if (ranks < 1 || total_cost < 1) throw std::invalid_argument("local_cut_candidates: no ranks or no cost");
  for (std::int64_t cost : costs)
    if (cost < 1) throw std::invalid_argument("local_cut_candidates: zone costs must be >= 1");
  std::vector<std::int64_t> candidates(ranks - 1, -1);
  // Exact arithmetic: P(i) * ranks against total * r, in 128 bits (no rounding of the targets).
  using Wide = __int128;
  const Wide total = total_cost;
  Wide prefix = cost_before;  // P(first + k) at local zone k
  int cut = 1;                // the next cut to place; cut r's target is total * r / ranks
  while (cut < ranks && prefix * ranks >= total * cut) ++cut;  // cuts that fall before these zones
  for (std::size_t k = 0; k < costs.size() && cut < ranks; ++k) {
    const Wide before = prefix;
    prefix += costs[k];
    // Zone first + k carries the prefix across every target in (before, prefix]: the cut is at
    // this zone (index i) or after it (i + 1), whichever prefix is closer, the lower on a tie.
    while (cut < ranks && prefix * ranks >= total * cut) {
      const Wide target = total * cut;
      const Wide below = target - before * ranks, above = prefix * ranks - target;
      const std::int64_t zone = first + static_cast<std::int64_t>(k);
      candidates[cut - 1] = below <= above ? zone : zone + 1;
      ++cut;
    }
  }
  return candidates;
}

std::vector<std::int64_t> finish_cuts(std::vector<std::int64_t> candidates, std::int64_t zones) {
  const int ranks = static_cast<int>(candidates.size()) + 1;
  if (zones < ranks) throw std::invalid_argument("finish_cuts: fewer zones than ranks");
  std::vector<std::int64_t> cuts(ranks + 1);
  cuts[0] = 0;
  cuts[ranks] = zones;
  for (int r = 1; r < ranks; ++r) {
    if (candidates[r - 1] < 0 || candidates[r - 1] > zones)
      throw std::logic_error("finish_cuts: cut " + std::to_string(r) + " was placed by no rank");
    cuts[r] = candidates[r - 1];
  }
  // Every block keeps at least one zone: forwards (cuts[r] >= r), then backwards (cuts[r] <=
  // zones - (ranks - r)); the second pass keeps the first's order.
  for (int r = 1; r < ranks; ++r) cuts[r] = std::max(cuts[r], cuts[r - 1] + 1);
  for (int r = ranks - 1; r >= 1; --r) cuts[r] = std::min(cuts[r], cuts[r + 1] - 1);
  return cuts;
}

std::vector<std::int64_t> count_cuts(std::int64_t zones, int ranks) {
  std::vector<std::int64_t> cuts(ranks + 1);
  for (int r = 0; r < ranks; ++r) cuts[r] = zone_block(zones, ranks, r).first;
  cuts[ranks] = zones;
  return cuts;
}

std::vector<std::int64_t> cost_balanced_cuts(const MpiContext& mpi, const std::vector<std::int64_t>& local_costs,
                                             std::int64_t first, std::int64_t zones) {
  std::int64_t local_total = 0;
  for (std::int64_t cost : local_costs) local_total += cost;
  std::int64_t cost_before = 0;
  MPI_Exscan(&local_total, &cost_before, 1, MPI_INT64_T, MPI_SUM, mpi.comm());
  if (mpi.root()) cost_before = 0;  // MPI_Exscan leaves rank 0's result undefined
  const std::int64_t total = mpi.sum(local_total);
  const std::vector<std::int64_t> mine = local_cut_candidates(local_costs, first, cost_before, total, mpi.size());
  std::vector<std::int64_t> candidates(mine.size(), -1);
  MPI_Allreduce(mine.data(), candidates.data(), static_cast<int>(mine.size()), MPI_INT64_T, MPI_MAX, mpi.comm());
  return finish_cuts(std::move(candidates), zones);
}

std::vector<double> move_zones(const MpiContext& mpi, const std::vector<std::int64_t>& old_cuts,
                               const std::vector<std::int64_t>& new_cuts, const std::vector<double>& old_data,
                               std::int64_t values_per_zone) {
  const int ranks = mpi.size(), me = mpi.rank();
  const ZoneBlock old_block = block_of(old_cuts, me), new_block = block_of(new_cuts, me);
  // One zone is one element of a contiguous type: counts are zones and stay far below INT_MAX.
  if (values_per_zone > std::numeric_limits<int>::max() || old_cuts.back() > std::numeric_limits<int>::max())
    throw std::runtime_error("move_zones: too many zones or values per zone for MPI counts");
  MPI_Datatype zone_type;
  MPI_Type_contiguous(static_cast<int>(values_per_zone), MPI_DOUBLE, &zone_type);
  MPI_Type_commit(&zone_type);
  std::vector<int> send_counts(ranks), send_offsets(ranks), receive_counts(ranks), receive_offsets(ranks);
  const auto overlap = [](ZoneBlock a, ZoneBlock b) {
    const std::int64_t begin = std::max(a.first, b.first), end = std::min(a.first + a.count, b.first + b.count);
    return ZoneBlock{begin, std::max<std::int64_t>(0, end - begin)};
  };
  for (int q = 0; q < ranks; ++q) {
    const ZoneBlock sent = overlap(old_block, block_of(new_cuts, q));
    send_counts[q] = static_cast<int>(sent.count);
    send_offsets[q] = static_cast<int>(sent.count ? sent.first - old_block.first : 0);
    const ZoneBlock received = overlap(new_block, block_of(old_cuts, q));
    receive_counts[q] = static_cast<int>(received.count);
    receive_offsets[q] = static_cast<int>(received.count ? received.first - new_block.first : 0);
  }
  std::vector<double> new_data(static_cast<std::size_t>(new_block.count * values_per_zone));
  MPI_Alltoallv(old_data.data(), send_counts.data(), send_offsets.data(), zone_type, new_data.data(),
                receive_counts.data(), receive_offsets.data(), zone_type, mpi.comm());
  MPI_Type_free(&zone_type);
  return new_data;
}

}  // namespace zoneode
