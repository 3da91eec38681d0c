#include "integrators/implicit_schedule.hpp"

#include <algorithm>
#include <stdexcept>

namespace zoneode {

namespace {

// Indices 0..count-1 grouped by key[index] (stable: increasing index within a group) as CSR.
void group_by(const std::vector<std::int32_t>& key, int groups, std::vector<std::int32_t>& offsets,
              std::vector<std::int32_t>& members) {
  offsets.assign(groups + 1, 0);
  for (const std::int32_t k : key) ++offsets[k + 1];
  for (int g = 0; g < groups; ++g) offsets[g + 1] += offsets[g];
  members.assign(key.size(), 0);
  std::vector<std::int32_t> next(offsets.begin(), offsets.end() - 1);
  for (std::size_t index = 0; index < key.size(); ++index) members[next[key[index]]++] = static_cast<std::int32_t>(index);
}

// Rows grouped in levels: level(row) = 1 + the largest level of the rows it depends on.
void levels(int n, const std::vector<std::vector<std::int32_t>>& depends, bool backward,
            std::vector<std::int32_t>& offsets, std::vector<std::int32_t>& rows) {
  std::vector<std::int32_t> level(n, 0);
  int count = 0;
  for (int step = 0; step < n; ++step) {
    const int row = backward ? n - 1 - step : step;
    for (const std::int32_t d : depends[row]) level[row] = std::max(level[row], level[d] + 1);
    count = std::max(count, level[row] + 1);
  }
  group_by(level, count, offsets, rows);
}

}  // namespace

ImplicitSchedule::ImplicitSchedule(const ImplicitStructure& s, int target_tasks) {
  const int n = s.species_count();
  const int filled = static_cast<int>(s.columns.size());
  group_by(s.term_entry, static_cast<int>(s.entry_row.size()), entry_term_offsets, entry_terms);
  group_by(s.ye_term_species, n, ye_offsets, ye_terms);
  group_by(s.energy_term_species, n, energy_offsets, energy_terms);

  matrix_entry.assign(filled, -1);
  matrix_diagonal.assign(filled, 0);
  for (std::size_t e = 0; e < s.entry_position.size(); ++e) matrix_entry[s.entry_position[e]] = static_cast<std::int32_t>(e);
  for (const std::int32_t q : s.diagonal) matrix_diagonal[q] = 1;

  // Column k's L entries (rows below k), in row order, and each position's row.
  std::vector<std::vector<std::int32_t>> column(n);
  for (int i = 0; i < n; ++i)
    for (int q = s.row_offsets[i]; q < s.diagonal[i]; ++q) column[s.columns[q]].push_back(q);
  std::vector<std::int32_t> row_of(filled);
  for (int i = 0; i < n; ++i)
    for (int q = s.row_offsets[i]; q < s.row_offsets[i + 1]; ++q) row_of[q] = i;
  auto position = [&](int row, int col) {
    const auto first = s.columns.begin() + s.row_offsets[row], last = s.columns.begin() + s.row_offsets[row + 1];
    const auto it = std::lower_bound(first, last, col);
    if (it == last || *it != col) throw std::logic_error("implicit schedule: update outside the filled pattern");
    return static_cast<std::int32_t>(it - s.columns.begin());
  };

  // One phase per pivot with L entries (its tasks may be none: an empty U row), then one that
  // stores the last pivot's l values.
  phase_offsets.push_back(0);
  store_offsets.push_back(0);
  std::vector<std::int32_t> pending;  // the previous pivot's L entries, stored in this phase
  int pending_diagonal = 0;
  auto store_pending = [&] {
    for (const std::int32_t q : pending) {
      store_l.push_back(q);
      store_diagonal.push_back(pending_diagonal);
    }
    store_offsets.push_back(static_cast<std::int32_t>(store_l.size()));
  };
  for (int k = 0; k < n; ++k) {
    if (column[k].empty()) continue;
    const int first_u = s.diagonal[k] + 1, row_length = s.row_offsets[k + 1] - first_u;
    const long long updates = static_cast<long long>(column[k].size()) * row_length;
    const int run = static_cast<int>(std::max<long long>(1, (updates + target_tasks - 1) / std::max(target_tasks, 1)));
    for (const std::int32_t q : column[k]) {
      for (int begin = 0; begin < row_length; begin += run) {
        const int count = std::min(run, row_length - begin);
        task_l.push_back(q);
        task_diagonal.push_back(s.diagonal[k]);
        task_u.push_back(first_u + begin);
        task_count.push_back(count);
        task_targets.push_back(static_cast<std::int32_t>(targets.size()));
        for (int j = 0; j < count; ++j) targets.push_back(position(row_of[q], s.columns[first_u + begin + j]));
      }
    }
    phase_offsets.push_back(static_cast<std::int32_t>(task_l.size()));
    store_pending();
    pending = column[k];
    pending_diagonal = s.diagonal[k];
  }
  phase_offsets.push_back(static_cast<std::int32_t>(task_l.size()));
  store_pending();
  if (targets.size() != s.update_target.size())
    throw std::logic_error("implicit schedule: " + std::to_string(targets.size()) + " updates, the factorisation has " +
                           std::to_string(s.update_target.size()));

  // Solve levels: forward row p needs the rows of its L part, backward row p those of its U part.
  std::vector<std::vector<std::int32_t>> lower(n), upper(n);
  for (int p = 0; p < n; ++p) {
    for (int q = s.row_offsets[p]; q < s.diagonal[p]; ++q) lower[p].push_back(s.columns[q]);
    for (int q = s.diagonal[p] + 1; q < s.row_offsets[p + 1]; ++q) upper[p].push_back(s.columns[q]);
  }
  levels(n, lower, false, forward_offsets, forward_rows);
  levels(n, upper, true, backward_offsets, backward_rows);
}

ImplicitScheduleView ImplicitSchedule::view() const {
  ImplicitScheduleView v;
  v.entry_term_offsets = entry_term_offsets.data();
  v.entry_terms = entry_terms.data();
  v.ye_offsets = ye_offsets.data();
  v.ye_terms = ye_terms.data();
  v.energy_offsets = energy_offsets.data();
  v.energy_terms = energy_terms.data();
  v.matrix_entry = matrix_entry.data();
  v.matrix_diagonal = matrix_diagonal.data();
  v.phases = phases();
  v.phase_offsets = phase_offsets.data();
  v.task_l = task_l.data();
  v.task_diagonal = task_diagonal.data();
  v.task_u = task_u.data();
  v.task_count = task_count.data();
  v.task_targets = task_targets.data();
  v.store_offsets = store_offsets.data();
  v.store_l = store_l.data();
  v.store_diagonal = store_diagonal.data();
  v.targets = targets.data();
  v.forward_levels = static_cast<int>(forward_offsets.size()) - 1;
  v.forward_offsets = forward_offsets.data();
  v.forward_rows = forward_rows.data();
  v.backward_levels = static_cast<int>(backward_offsets.size()) - 1;
  v.backward_offsets = backward_offsets.data();
  v.backward_rows = backward_rows.data();
  return v;
}

}  // namespace zoneode
