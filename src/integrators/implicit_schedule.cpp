#include "integrators/implicit_schedule.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace zoneode {

namespace {

// A position, row or species index as the 16 bits of LuRecord and SolveLaneTask (the constructor
// builds no team schedule where positions exceed lu_record_max_position).
std::uint16_t to_u16(std::int32_t value) { return static_cast<std::uint16_t>(value); }

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

// Rows in levels (level(row) = 1 + the largest level of the rows it depends on), each level's rows
// longest first, as rounds of lane tasks for a wave of `wave` lanes; first(p), last(p): row p's
// terms.
template <typename First, typename Last>
void rounds(int n, const std::vector<std::vector<std::int32_t>>& depends, bool backward, const std::vector<std::int32_t>& order,
            const std::vector<std::int32_t>& columns, First first, Last last, int wave, std::vector<SolveLaneTask>& tasks,
            std::vector<std::int32_t>& lanes_of) {
  std::vector<std::int32_t> level(n, 0);
  int count = 0;
  for (int step = 0; step < n; ++step) {
    const int row = backward ? n - 1 - step : step;
    for (const std::int32_t d : depends[row]) level[row] = std::max(level[row], level[d] + 1);
    count = std::max(count, level[row] + 1);
  }
  std::vector<std::int32_t> offsets, rows;
  group_by(level, count, offsets, rows);
  for (int v = 0; v < count; ++v) {
    std::stable_sort(rows.begin() + offsets[v], rows.begin() + offsets[v + 1],
                     [&](int a, int b) { return last(a) - first(a) > last(b) - first(b); });
    const int in_level = offsets[v + 1] - offsets[v];
    int longest = 0;
    for (int k = offsets[v]; k < offsets[v + 1]; ++k) longest = std::max(longest, last(rows[k]) - first(rows[k]));
    const int lanes = lanes_per_row(in_level, longest, wave), groups = wave / lanes;
    for (int base = 0; base < in_level; base += groups) {  // a round: up to `groups` rows
      for (int lane = 0; lane < wave; ++lane) {
        const int t = base + lane / lanes, k = lane % lanes;
        if (t < in_level) {
          const int p = rows[offsets[v] + t];
          SolveLaneTask task{to_u16(first(p) + k), to_u16(last(p)), static_cast<std::int16_t>(k == 0 ? p : -1), to_u16(order[p]), {}};
          for (int j = 0; j < solve_task_columns; ++j) {
            const int q = first(p) + k + j * lanes;
            task.column[j] = q < last(p) ? to_u16(columns[q]) : 0;
          }
          tasks.push_back(task);
        } else {
          tasks.push_back({0, 0, -2, 0, {}});
        }
      }
      lanes_of.push_back(lanes);
    }
  }
}

}  // namespace

ImplicitSchedule::ImplicitSchedule(const ImplicitStructure& s, int target_tasks, int wave_lanes, int piece_terms)
    : wave(wave_lanes) {
  if (wave < 1 || (wave & (wave - 1)) != 0) throw std::logic_error("implicit schedule: a wave of " + std::to_string(wave));
  const int n = s.species_count();
  const int filled = static_cast<int>(s.columns.size());
  const int entries = static_cast<int>(s.entry_row.size());

  // Gathers: each item's (coefficient, slot) terms in term order.
  std::vector<std::int32_t> entry_offsets, entry_terms, ye_offsets, ye_terms, energy_offsets, energy_terms;
  group_by(s.term_entry, entries, entry_offsets, entry_terms);
  group_by(s.ye_term_species, n, ye_offsets, ye_terms);
  group_by(s.energy_term_species, n, energy_offsets, energy_terms);
  std::vector<std::int32_t> item_first;  // [items + 1]
  auto add_items = [&](const std::vector<std::int32_t>& offsets, const std::vector<std::int32_t>& terms,
                       const std::vector<double>& coefficient, const std::vector<std::int32_t>& slot) {
    for (std::size_t i = 0; i + 1 < offsets.size(); ++i) {
      item_first.push_back(static_cast<std::int32_t>(gather_coefficient.size()));
      for (int k = offsets[i]; k < offsets[i + 1]; ++k) {
        gather_coefficient.push_back(coefficient[terms[k]]);
        gather_slot.push_back(slot[terms[k]]);
      }
    }
  };
  add_items(entry_offsets, entry_terms, s.term_coefficient, s.term_slot);
  add_items(ye_offsets, ye_terms, s.ye_term_coefficient, s.ye_term_slot);
  add_items(energy_offsets, energy_terms, s.energy_term_coefficient, s.energy_term_slot);
  item_first.push_back(static_cast<std::int32_t>(gather_coefficient.size()));
  const int items = static_cast<int>(item_first.size()) - 1;
  // Pieces of at most piece_terms terms; the multi-piece items' sums need scratch, which lives in
  // the matrix's room (free while the Jacobian is made): longer pieces until it fits.
  for (int terms = std::max(1, piece_terms);; terms *= 2) {
    pieces.clear();
    multi_items.clear();
    gather_scratch_ = 0;
    for (int item = 0; item < items; ++item) {
      const int first = item_first[item], last = item_first[item + 1];
      if (last - first <= terms) {
        pieces.push_back({first, last, item});
        continue;
      }
      const int count = (last - first + terms - 1) / terms;
      multi_items.push_back({item, gather_scratch_, count});
      for (int k = 0; k < count; ++k)
        pieces.push_back({first + k * terms, std::min(last, first + (k + 1) * terms), -1 - (gather_scratch_ + k)});
      gather_scratch_ += count;
    }
    if (gather_scratch_ <= filled) break;
  }
  // Longest first: thread t takes pieces t, t + team, ..., so the long ones are spread.
  std::stable_sort(pieces.begin(), pieces.end(),
                   [](const GatherPiece& a, const GatherPiece& b) { return a.last - a.first > b.last - b.first; });

  matrix_entry.assign(filled, -1);
  matrix_diagonal.assign(filled, 0);
  for (std::size_t e = 0; e < s.entry_position.size(); ++e) matrix_entry[s.entry_position[e]] = static_cast<std::int32_t>(e);
  for (const std::int32_t q : s.diagonal) matrix_diagonal[q] = 1;
  // Self-heating's T row sums J's entries by column, each column's in entry order (the serial
  // temperature_border's order).
  group_by(s.entry_column, n, column_entry_offsets, column_entries);

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
  // stores the last pivot's l values; each phase's records fill whole slots (at least one) of the
  // team's size (the smallest power of two >= target_tasks, 32 to 256).
  phase_slots.push_back(0);
  record_width = 32;
  while (record_width < std::min(target_tasks, 256)) record_width *= 2;
  if (filled - 1 > lu_record_max_position) record_width = 0;  // no team schedule: positions beyond 16 bits
  std::vector<LuRecord> phase;
  std::int64_t updates = 0;
  auto close_phase = [&] {
    const std::size_t width = static_cast<std::size_t>(record_width);
    const std::size_t slots = std::max<std::size_t>(1, (phase.size() + width - 1) / width);
    phase.resize(slots * width, LuRecord{0, 0, 0, 0, {0, 0, 0, 0}});
    lu_records.insert(lu_records.end(), phase.begin(), phase.end());
    phase_slots.push_back(phase_slots.back() + static_cast<std::int32_t>(slots));
    phase.clear();
  };
  std::vector<std::int32_t> pending;  // the previous pivot's L entries, stored in this phase
  int pending_diagonal = 0;
  for (int k = 0; k < n && record_width > 0; ++k) {
    if (column[k].empty()) continue;
    const int first_u = s.diagonal[k] + 1, row_length = s.row_offsets[k + 1] - first_u;
    const long long pivot_updates = static_cast<long long>(column[k].size()) * row_length;
    const int run = static_cast<int>(std::min<long long>(
        lu_record_targets, std::max<long long>(1, (pivot_updates + target_tasks - 1) / std::max(target_tasks, 1))));
    for (const std::int32_t q : column[k]) {
      for (int begin = 0; begin < row_length; begin += run) {
        LuRecord task{to_u16(q), to_u16(s.diagonal[k]), to_u16(first_u + begin),
                      static_cast<std::int16_t>(std::min(run, row_length - begin)), {0, 0, 0, 0}};
        for (int j = 0; j < task.count; ++j)
          task.target[j] = to_u16(position(row_of[q], s.columns[first_u + begin + j]));
        updates += task.count;
        phase.push_back(task);
      }
    }
    for (const std::int32_t q : pending) phase.push_back({to_u16(q), to_u16(pending_diagonal), 0, -1, {0, 0, 0, 0}});
    close_phase();
    pending = column[k];
    pending_diagonal = s.diagonal[k];
  }
  if (record_width == 0) {
    phase_slots.clear();
  } else {
    for (const std::int32_t q : pending) phase.push_back({to_u16(q), to_u16(pending_diagonal), 0, -1, {0, 0, 0, 0}});
    close_phase();
  }
  if (record_width > 0 && updates != static_cast<std::int64_t>(s.update_target.size()))
    throw std::logic_error("implicit schedule: " + std::to_string(updates) + " updates, the factorisation has " +
                           std::to_string(s.update_target.size()));

  // Solve levels: forward row p needs the rows of its L part, backward row p those of its U part.
  std::vector<std::vector<std::int32_t>> lower(n), upper(n);
  for (int p = 0; p < n; ++p) {
    for (int q = s.row_offsets[p]; q < s.diagonal[p]; ++q) lower[p].push_back(s.columns[q]);
    for (int q = s.diagonal[p] + 1; q < s.row_offsets[p + 1]; ++q) upper[p].push_back(s.columns[q]);
  }
  if (record_width == 0) return;  // positions beyond the tasks' 16 bits: no team schedule
  rounds(n, lower, false, s.order, s.columns, [&](int p) { return s.row_offsets[p]; }, [&](int p) { return s.diagonal[p]; },
         wave, forward_tasks, forward_lanes);
  rounds(n, upper, true, s.order, s.columns, [&](int p) { return s.diagonal[p] + 1; },
         [&](int p) { return s.row_offsets[p + 1]; }, wave, backward_tasks, backward_lanes);
}

ImplicitScheduleView ImplicitSchedule::view() const {
  ImplicitScheduleView v;
  v.gather_pieces = static_cast<int>(pieces.size());
  v.multi_piece_items = static_cast<int>(multi_items.size());
  v.gather_coefficient = gather_coefficient.data();
  v.gather_slot = gather_slot.data();
  v.pieces = pieces.data();
  v.multi_items = multi_items.data();
  v.matrix_entry = matrix_entry.data();
  v.matrix_diagonal = matrix_diagonal.data();
  v.column_entry_offsets = column_entry_offsets.data();
  v.column_entries = column_entries.data();
  v.phases = phases();
  v.lu_record_width = record_width;
  v.phase_slots = phase_slots.data();
  v.lu_records = lu_records.data();
  v.solve_wave = wave;
  v.forward_rounds = static_cast<int>(forward_lanes.size());
  v.forward_tasks = forward_tasks.data();
  v.forward_lanes = forward_lanes.data();
  v.backward_rounds = static_cast<int>(backward_lanes.size());
  v.backward_tasks = backward_tasks.data();
  v.backward_lanes = backward_lanes.data();
  return v;
}

}  // namespace zoneode
