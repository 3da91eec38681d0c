#include "integrators/partitioned_inverse.hpp"

#include <algorithm>

#include "integrators/implicit_structure.hpp"

namespace zoneode {

namespace {

// A unit triangular factor's graph in its solve numbering (edges from an unknown to those it
// updates, each numbered higher): coefficient positions and the row whose reciprocal scales them.
struct Edge {
  std::int32_t to, position, row;
};

}  // namespace

PartitionedInverse::PartitionedInverse(const ImplicitStructure& structure, int partitions, PartitionedInverseFault fault)
    : n_(structure.species_count()), lu_(structure.lu_view()) {
  const int n = n_;
  std::vector<std::vector<Edge>> edges[2] = {std::vector<std::vector<Edge>>(n), std::vector<std::vector<Edge>>(n)};
  for (int p = 0; p < n; ++p) {
    for (int q = lu_.row_offsets[p]; q < lu_.diagonal[p]; ++q) edges[0][lu_.columns[q]].push_back({p, q, -1});
    for (int q = lu_.diagonal[p] + 1; q < lu_.row_offsets[p + 1]; ++q)
      edges[1][n - 1 - lu_.columns[q]].push_back({n - 1 - p, q, p});
  }
  std::int64_t offset = 0;
  for (int f = 0; f < 2; ++f) {
    Factor& factor = factors_[f];
    const std::vector<std::vector<Edge>>& out = edges[f];
    std::vector<int> level(n, 0);
    for (int u = 0; u < n; ++u)
      for (const Edge& e : out[u]) level[e.to] = std::max(level[e.to], level[u] + 1);
    factor.levels = n > 0 ? *std::max_element(level.begin(), level.end()) + 1 : 0;
    factor.partitions = std::max(1, std::min(partitions, factor.levels));
    const int T = factor.partitions;
    // Partition t holds levels [levels t / T, levels (t + 1) / T) (zoneode-solve-partitions' split).
    std::vector<int> partition_of_level(factor.levels);
    for (int t = 0; t < T; ++t) {
      for (int l = factor.levels * t / T; l < factor.levels * (t + 1) / T; ++l) partition_of_level[l] = t;
      factor.longest_partition = std::max(factor.longest_partition, factor.levels * (t + 1) / T - factor.levels * t / T);
    }
    for (const auto& e : out) factor.factor_entries += static_cast<std::int64_t>(e.size());
    auto partition_of = [&](int u) { return partition_of_level[level[u]]; };
    // Entries and forming operations, column by column; entry_of[i] for the current column.
    std::vector<std::int32_t> entry_of(n, -1);
    std::vector<std::vector<std::int32_t>> row_entries_of(n);  // per row: its entries, by round below
    for (int j = 0; j < n; ++j) {
      const int t = partition_of(j);
      std::vector<int> reached{j};
      std::fill(entry_of.begin(), entry_of.end(), -1);
      for (std::size_t next = 0; next < reached.size(); ++next) {  // the unknowns j reaches through t
        const int k = reached[next];
        for (const Edge& e : out[k]) {
          if (entry_of[e.to] >= 0 || e.to == j) continue;
          entry_of[e.to] = static_cast<std::int32_t>(factor.entry_row.size());
          factor.entry_row.push_back(e.to);
          factor.entry_column.push_back(j);
          if (partition_of(e.to) == t) reached.push_back(e.to);
        }
      }
      std::sort(reached.begin(), reached.end());  // the solve numbering is a topological order
      for (const int k : reached)
        for (const Edge& e : out[k])
          factor.ops.push_back({entry_of[e.to], k == j ? -1 : entry_of[k], e.position, e.row});
    }
    // The rounds: partition t's rows, each with its entries of t's columns (columns ascending).
    factor.round_offsets.assign(1, 0);
    for (int t = 0; t < T; ++t) {
      std::vector<std::vector<std::int32_t>> of_row(n);
      for (std::int32_t e = 0; e < static_cast<std::int32_t>(factor.entry_row.size()); ++e)
        if (partition_of(factor.entry_column[e]) == t) of_row[factor.entry_row[e]].push_back(e);
      for (int i = 0; i < n; ++i) {
        if (of_row[i].empty()) continue;
        std::sort(of_row[i].begin(), of_row[i].end(),
                  [&](std::int32_t a, std::int32_t b) { return factor.entry_column[a] < factor.entry_column[b]; });
        factor.round_rows.push_back(i);
        if (factor.row_entry_offsets.empty()) factor.row_entry_offsets.push_back(0);
        factor.row_entries.insert(factor.row_entries.end(), of_row[i].begin(), of_row[i].end());
        factor.row_entry_offsets.push_back(static_cast<std::int32_t>(factor.row_entries.size()));
      }
      factor.round_offsets.push_back(static_cast<std::int32_t>(factor.round_rows.size()));
    }
    if (factor.row_entry_offsets.empty()) factor.row_entry_offsets.push_back(0);
    offset_[f] = offset;
    offset += static_cast<std::int64_t>(factor.entry_row.size());
  }
  if (fault == PartitionedInverseFault::drop_entry && !factors_[0].ops.empty())
    factors_[0].ops.erase(factors_[0].ops.begin() + static_cast<std::ptrdiff_t>(factors_[0].ops.size() / 2));
}

std::int64_t PartitionedInverse::largest_round(int f) const {
  const Factor& factor = factors_[f];
  std::int64_t largest = 0;
  for (int t = 0; t < factor.partitions; ++t)
    largest = std::max<std::int64_t>(largest, factor.row_entry_offsets[factor.round_offsets[t + 1]] -
                                                  factor.row_entry_offsets[factor.round_offsets[t]]);
  return largest;
}

void PartitionedInverse::form(const double* a, double* w) const {
  double* const reciprocal = w + entries();  // U's diagonal, factor order
  for (int p = 0; p < n_; ++p) reciprocal[p] = 1.0 / a[lu_.diagonal[p]];
  for (int f = 0; f < 2; ++f) {
    const Factor& factor = factors_[f];
    double* const values = w + offset_[f];
    std::fill(values, values + factor.entry_row.size(), 0.0);
    for (const Factor::Op& op : factor.ops) {
      const double coefficient = op.row < 0 ? a[op.position] : a[op.position] * reciprocal[op.row];
      values[op.target] -= op.source < 0 ? coefficient : coefficient * values[op.source];
    }
  }
}

void PartitionedInverse::solve(const double* w, const double* b, double* x, double* work) const {
  const int n = n_;
  double* const y = work;          // the unknowns in the current factor's solve numbering
  double* const next = work + n;   // a round's new values
  const double* const reciprocal = w + entries();
  for (int p = 0; p < n; ++p) y[p] = b[lu_.order[p]];
  for (int f = 0; f < 2; ++f) {
    const Factor& factor = factors_[f];
    const double* const values = w + offset_[f];
    if (f == 1) {  // z = D^-1 y in U's numbering
      for (int p = 0; p < n; ++p) next[n - 1 - p] = y[p] * reciprocal[p];
      std::copy(next, next + n, y);
    }
    for (int t = 0; t < factor.partitions; ++t) {
      for (int r = factor.round_offsets[t]; r < factor.round_offsets[t + 1]; ++r) {
        double sum = 0.0;
        for (int k = factor.row_entry_offsets[r]; k < factor.row_entry_offsets[r + 1]; ++k) {
          const int e = factor.row_entries[k];
          sum += values[e] * y[factor.entry_column[e]];
        }
        next[r - factor.round_offsets[t]] = y[factor.round_rows[r]] + sum;
      }
      for (int r = factor.round_offsets[t]; r < factor.round_offsets[t + 1]; ++r)
        y[factor.round_rows[r]] = next[r - factor.round_offsets[t]];
    }
  }
  for (int p = 0; p < n; ++p) x[lu_.order[p]] = y[n - 1 - p];
}

}  // namespace zoneode
