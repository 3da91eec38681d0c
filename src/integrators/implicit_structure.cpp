#include "integrators/implicit_structure.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

namespace zoneode {

std::vector<std::int32_t> minimum_degree_order(const std::vector<std::vector<std::int32_t>>& adjacency) {
  const int n = static_cast<int>(adjacency.size());
  std::vector<std::set<std::int32_t>> graph(n);
  for (int i = 0; i < n; ++i) {
    for (const std::int32_t j : adjacency[i]) {
      if (j != i) {
        graph[i].insert(j);
        graph[j].insert(i);
      }
    }
  }
  std::vector<bool> eliminated(n, false);
  std::vector<std::int32_t> order;
  order.reserve(n);
  for (int step = 0; step < n; ++step) {
    int best = -1;
    for (int i = 0; i < n; ++i) {
      if (!eliminated[i] && (best < 0 || graph[i].size() < graph[best].size())) best = i;
    }
    eliminated[best] = true;
    order.push_back(best);
    const std::vector<std::int32_t> neighbours(graph[best].begin(), graph[best].end());
    for (const std::int32_t a : neighbours) {
      graph[a].erase(best);
      for (const std::int32_t b : neighbours) {
        if (a != b) graph[a].insert(b);
      }
    }
    graph[best].clear();
  }
  return order;
}

ImplicitStructure::ImplicitStructure(const CompactNetwork& network) : species_count_(network.species_count()) {
  const int S = network.species_count();
  const int R = network.reaction_count();
  // Net stoichiometry per reaction: species -> creation factor - destruction factor.
  std::vector<std::map<int, int>> net(R);
  for (int i = 0; i < S; ++i) {
    for (int k = network.creation_offsets[i]; k < network.creation_offsets[i + 1]; ++k)
      net[network.creation_reaction[k]][i] += network.creation_factor[k];
    for (int k = network.destruction_offsets[i]; k < network.destruction_offsets[i + 1]; ++k)
      net[network.destruction_reaction[k]][i] -= network.destruction_factor[k];
  }
  std::map<std::pair<int, int>, int> entry_of;  // (row, column) -> entry index
  auto entry = [&](int row, int column) {
    auto [it, added] = entry_of.try_emplace({row, column}, static_cast<int>(entry_row.size()));
    if (added) {
      entry_row.push_back(row);
      entry_column.push_back(column);
    }
    return it->second;
  };
  auto add_terms = [&](int slot, int r, int column) {
    for (const auto& [species, nu] : net[r]) {
      if (nu == 0) continue;
      term_slot.push_back(slot);
      term_entry.push_back(entry(species, column));
      term_coefficient.push_back(nu);
    }
    energy_term_slot.push_back(slot);
    energy_term_species.push_back(column);
    energy_term_coefficient.push_back(network.q_value_MeV[r]);
  };
  slot_offsets.push_back(0);
  int slot = 0;
  for (int r = 0; r < R; ++r) {
    const int count = network.reactant_count[r];
    for (int k = 0; k < count; ++k) add_terms(slot++, r, network.reactant_species[max_reactants_per_reaction * r + k]);
    if (network.reaction_flags[r] & reaction_flag_electron_capture) {
      // d flux / d Ye: into the Ye column (rank-one part of J) and, times Z_m, the energy row.
      for (const auto& [species, nu] : net[r]) {
        if (nu == 0) continue;
        ye_term_slot.push_back(slot);
        ye_term_species.push_back(species);
        ye_term_coefficient.push_back(nu);
      }
      for (int m = 0; m < S; ++m) {
        if (network.species_Z[m] == 0.0) continue;
        energy_term_slot.push_back(slot);
        energy_term_species.push_back(m);
        energy_term_coefficient.push_back(network.q_value_MeV[r] * network.species_Z[m]);
      }
      ++slot;
    }
    slot_offsets.push_back(slot);
  }

  // Pattern of M = I/(h gamma) - J: J's entries and the diagonal; symmetrised for the ordering.
  std::vector<std::set<std::int32_t>> pattern(S);
  for (int i = 0; i < S; ++i) pattern[i].insert(i);
  for (std::size_t e = 0; e < entry_row.size(); ++e) pattern[entry_row[e]].insert(entry_column[e]);
  for (const auto& row : pattern) matrix_entries_ += static_cast<std::int64_t>(row.size());
  std::vector<std::vector<std::int32_t>> adjacency(S);
  for (int i = 0; i < S; ++i) adjacency[i].assign(pattern[i].begin(), pattern[i].end());
  order = minimum_degree_order(adjacency);
  std::vector<std::int32_t> position_of(S);
  for (int p = 0; p < S; ++p) position_of[order[p]] = p;

  // Symbolic factorisation, row by row in factor order: row i gains U row k's columns beyond k for
  // every k < i in its (growing) pattern.
  std::vector<std::set<std::int32_t>> filled(S);
  for (int i = 0; i < S; ++i)
    for (const std::int32_t j : pattern[i]) filled[position_of[i]].insert(position_of[j]);
  for (int i = 0; i < S; ++i) {
    for (auto it = filled[i].begin(); it != filled[i].end() && *it < i; ++it) {
      for (auto kj = filled[*it].upper_bound(*it); kj != filled[*it].end(); ++kj) filled[i].insert(*kj);
    }
  }
  row_offsets.push_back(0);
  for (int i = 0; i < S; ++i) {
    for (const std::int32_t j : filled[i]) {
      if (j == i) diagonal.push_back(static_cast<std::int32_t>(columns.size()));
      columns.push_back(j);
    }
    row_offsets.push_back(static_cast<std::int32_t>(columns.size()));
  }
  auto position = [&](int row, int column) {
    const auto first = columns.begin() + row_offsets[row];
    const auto last = columns.begin() + row_offsets[row + 1];
    const auto it = std::lower_bound(first, last, column);
    if (it == last || *it != column) throw std::logic_error("sparse LU: entry outside the filled pattern");
    return static_cast<std::int32_t>(it - columns.begin());
  };
  // The update list, in the loop order of sparse_lu_factor.
  for (int i = 0; i < S; ++i) {
    for (int q = row_offsets[i]; q < diagonal[i]; ++q) {
      const int k = columns[q];
      for (int kj = diagonal[k] + 1; kj < row_offsets[k + 1]; ++kj) update_target.push_back(position(i, columns[kj]));
    }
  }
  for (std::size_t e = 0; e < entry_row.size(); ++e)
    entry_position.push_back(position(position_of[entry_row[e]], position_of[entry_column[e]]));

  // Workspace of one zone, in doubles.
  std::int64_t at = 0;
  auto take = [&](std::int64_t& offset, std::int64_t count) {
    offset = at;
    at += count;
  };
  take(layout_.rate_factor, R);
  take(layout_.flux, R);
  take(layout_.slot, slot);
  take(layout_.jacobian, static_cast<std::int64_t>(entry_row.size()));
  take(layout_.matrix, filled_entries());
  take(layout_.energy_row, S);
  take(layout_.ye_column, S);
  take(layout_.ye_solution, S);
  take(layout_.rhs, S);
  take(layout_.state, S);
  take(layout_.stages, 4 * static_cast<std::int64_t>(S));
  take(layout_.solve, S);
  if (network.physics().screening != ScreeningKind::none) {
    take(layout_.screening_column, S);
    take(layout_.screening_solution, S);
  }
  if (network.physics().self_heating) {
    take(layout_.stage_rate_factor, R);
    take(layout_.temperature_column, S);
    take(layout_.temperature_solution, S);
    take(layout_.temperature_row, S);
  }
  layout_.total = at;
}

JacobianView ImplicitStructure::jacobian_view() const {
  JacobianView view;
  view.slot_count = slot_offsets.back();
  view.slot_offsets = slot_offsets.data();
  view.term_count = static_cast<int>(term_slot.size());
  view.term_slot = term_slot.data();
  view.term_entry = term_entry.data();
  view.term_coefficient = term_coefficient.data();
  view.entry_count = static_cast<int>(entry_row.size());
  view.entry_row = entry_row.data();
  view.entry_column = entry_column.data();
  view.ye_term_count = static_cast<int>(ye_term_slot.size());
  view.ye_term_slot = ye_term_slot.data();
  view.ye_term_species = ye_term_species.data();
  view.ye_term_coefficient = ye_term_coefficient.data();
  view.energy_term_count = static_cast<int>(energy_term_slot.size());
  view.energy_term_slot = energy_term_slot.data();
  view.energy_term_species = energy_term_species.data();
  view.energy_term_coefficient = energy_term_coefficient.data();
  return view;
}

SparseLuView ImplicitStructure::lu_view() const {
  SparseLuView view;
  view.n = species_count_;
  view.order = order.data();
  view.row_offsets = row_offsets.data();
  view.columns = columns.data();
  view.diagonal = diagonal.data();
  view.filled_count = static_cast<int>(columns.size());
  view.update_target = update_target.data();
  return view;
}

}  // namespace zoneode
