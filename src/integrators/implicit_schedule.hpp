// The implicit method's sparse work cut into phases that a team of threads runs one zone with
// (kernels/implicit/implicit_team.hpp): within a phase every task writes values no other task of the phase
// reads or writes, so a phase needs no ordering but the barrier after it. Built once per network
// on the host from the ImplicitStructure; each task does its operations in the order the serial
// code does them, so every LU value is bitwise the serial one's, and every Jacobian entry whose
// terms fit one piece (the team's sums over species, reactions and long term lists are rounded
// differently).
//
// - Jacobian: each entry's terms (and each species' Ye and energy terms) as a list of (coefficient,
//   slot) in term order, gathered rather than scattered; lists longer than a piece are cut into
//   pieces summed side by side, then added in order (the longest list, 345 terms for s150, no
//   longer holds a phase back).
// - Matrix: each filled position's J entry (or none) and whether it is on the diagonal.
// - Self-heating's T row (sum_i w_i J_ij): J's entries grouped by column, in entry order, so that
//   a thread per column adds them in the serial scatter's order.
// - LU: one phase per pivot k (right-looking: each target gets its updates in increasing k, as in
//   the serial row-by-row loop). A task takes one L entry q of column k and a run of at most four
//   of U row k: l = a[q] / a[k,k] (the serial code's division), then a[target] -= l * a[kj] along
//   the run, the targets in the task's record. Every task of q divides again rather than wait for
//   one that stores l, and the phase of pivot k + 1 stores column k's l values (no later phase
//   reads them before the solve). A phase's tasks and stores are records in whole slots of the
//   team's size (implicit_team_view.hpp), so a thread reads its next phase's first record before
//   the barrier.
// - Solves: the rows of L (forward) and U (backward) in levels: a row's sum needs only rows of
//   earlier levels; a level's rows are summed by lanes of one wave side by side
//   (lanes_per_row), so a solve needs no block barrier between its levels. Each lane's part of
//   each round is a task of its own (SolveLaneTask), so that a lane reads its next round's task,
//   an address independent of the data, while it sums this one.
#pragma once

#include <cstdint>
#include <vector>

#include "integrators/implicit_structure.hpp"
#include "integrators/implicit_team_view.hpp"

namespace zoneode {

class ImplicitSchedule {
 public:
  // target_tasks: about how many tasks one LU phase should have (the team's size); a run of U
  // row k is at most ceil(updates of pivot k / target_tasks) long, at least 1, at most
  // lu_record_targets. piece_terms: the most terms of one piece of a Jacobian gather.
  // wave: the lanes of the device's wave (the solves' rounds are laid out for it).
  ImplicitSchedule(const ImplicitStructure& structure, int target_tasks, int wave = 32, int piece_terms = 32);

  ImplicitScheduleView view() const;
  // LU phases (0 where the filled pattern has more positions than the records' 16 bits hold:
  // lu_record_max_position; such a network has no team schedule).
  int phases() const { return phase_slots.empty() ? 0 : static_cast<int>(phase_slots.size()) - 1; }
  // Doubles of scratch the multi-piece gathers need (they use the matrix's room: at most
  // filled_count, which the constructor ensures).
  int gather_scratch() const { return gather_scratch_; }

  std::vector<double> gather_coefficient;                      // [terms], by item
  std::vector<std::int32_t> gather_slot;                       // [terms], by item
  std::vector<GatherPiece> pieces;                             // longest first
  std::vector<MultiPieceItem> multi_items;
  std::vector<std::int32_t> matrix_entry;                      // [filled]: J entry, or -1
  std::vector<std::uint8_t> matrix_diagonal;                   // [filled]: 1 on the diagonal
  std::vector<std::int32_t> column_entry_offsets, column_entries;  // J's entries by column (CSC), entry order
  std::vector<std::int32_t> phase_slots;                       // [phases + 1]
  int record_width = 0;                                        // records per slot (0: none)
  std::vector<LuRecord> lu_records;                            // [slots * record_width]
  int wave = 32;
  std::vector<SolveLaneTask> forward_tasks, backward_tasks;   // [rounds * wave]
  std::vector<std::int32_t> forward_lanes, backward_lanes;    // [rounds]

 private:
  int gather_scratch_ = 0;
};

}  // namespace zoneode
