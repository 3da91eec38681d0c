// What the implicit method needs of a network beyond the compact network, built once per network
// on the host: the Jacobian's term list and pattern (jacobian.hpp), a fill-reducing ordering and
// the sparse LU's symbolic factorisation (sparse_lu.hpp), and the per-zone workspace layout.
#pragma once

#include <cstdint>
#include <vector>

#include "integrators/implicit.hpp"
#include "network/compact.hpp"

namespace zoneode {

class ImplicitStructure {
 public:
  explicit ImplicitStructure(const CompactNetwork& network);

  JacobianView jacobian_view() const;
  SparseLuView lu_view() const;
  ImplicitView view() const { return {jacobian_view(), lu_view(), entry_position.data(), layout_}; }
  const ImplicitWorkspaceLayout& layout() const { return layout_; }
  std::int64_t workspace_doubles() const { return layout_.total; }
  int species_count() const { return species_count_; }
  // Nonzeros of M = I/(h gamma) - J before (pattern of J plus the diagonal) and after fill-in.
  std::int64_t matrix_entries() const { return matrix_entries_; }
  std::int64_t filled_entries() const { return static_cast<std::int64_t>(columns.size()); }
  // Multiply-adds of one factorisation (the update list's length).
  std::int64_t factor_updates() const { return static_cast<std::int64_t>(update_target.size()); }

  // Host arrays behind the views.
  std::vector<std::int32_t> slot_offsets, term_slot, term_entry, entry_row, entry_column;
  std::vector<double> term_coefficient;
  std::vector<std::int32_t> ye_term_slot, ye_term_species;
  std::vector<double> ye_term_coefficient;
  std::vector<std::int32_t> energy_term_slot, energy_term_species;
  std::vector<double> energy_term_coefficient;
  std::vector<std::int32_t> order, row_offsets, columns, diagonal, update_target;
  std::vector<std::int32_t> entry_position;  // J entry e -> its position in the filled pattern

 private:
  int species_count_ = 0;
  std::int64_t matrix_entries_ = 0;
  ImplicitWorkspaceLayout layout_;
};

// Minimum-degree ordering of a symmetric pattern (adjacency lists, no self loops): repeatedly
// eliminates the node of least current degree (lowest index on ties), joining its neighbours.
// Returns order[p] = node eliminated p-th. Host only; O(n * degree^2), for n in the hundreds.
std::vector<std::int32_t> minimum_degree_order(const std::vector<std::vector<std::int32_t>>& adjacency);

}  // namespace zoneode
