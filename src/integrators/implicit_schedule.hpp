// The implicit method's sparse work cut into phases that a team of threads runs one zone with
// (kernels/implicit_team.hpp): within a phase every task writes values no other task of the phase
// reads or writes, so a phase needs no ordering but the barrier after it. Built once per network
// on the host from the ImplicitStructure; each task does its operations in the order the serial
// code does them, so every Jacobian entry, LU value and solve component is bitwise the serial
// one's (the team's sums over species and reactions are reductions, rounded differently).
//
// - Jacobian: each entry's terms (and each species' Ye and energy terms) as a list in term order,
//   summed by one thread, instead of the serial scatter over terms.
// - Matrix: each filled position's J entry (or none) and whether it is on the diagonal.
// - LU: one phase per pivot k (right-looking: each target gets its updates in increasing k, as in
//   the serial row-by-row loop). A task takes one L entry q of column k and a run of U row k:
//   l = a[q] / a[k,k] (the serial code's division), then a[target] -= l * a[kj] along the run.
//   Every task of q divides again rather than wait for one that stores l, and the phase of pivot
//   k + 1 stores column k's l values (no later phase reads them before the solve).
// - Solves: the rows of L (forward) and U (backward) in levels: a row's sum needs only rows of
//   earlier levels; one thread sums a row in the serial order.
#pragma once

#include <cstdint>
#include <vector>

#include "integrators/implicit_structure.hpp"
#include "integrators/implicit_team_view.hpp"

namespace zoneode {

class ImplicitSchedule {
 public:
  // target_tasks: about how many tasks one LU phase should have (the team's size); a run of U
  // row k is at most ceil(updates of pivot k / target_tasks) long, at least 1.
  ImplicitSchedule(const ImplicitStructure& structure, int target_tasks);

  ImplicitScheduleView view() const;
  int phases() const { return static_cast<int>(phase_offsets.size()) - 1; }

  std::vector<std::int32_t> entry_term_offsets, entry_terms;    // [entries + 1], term indices
  std::vector<std::int32_t> ye_offsets, ye_terms;               // [species + 1], Ye term indices
  std::vector<std::int32_t> energy_offsets, energy_terms;       // [species + 1], energy term indices
  std::vector<std::int32_t> matrix_entry;                       // [filled]: J entry, or -1
  std::vector<std::uint8_t> matrix_diagonal;                    // [filled]: 1 on the diagonal
  std::vector<std::int32_t> phase_offsets;                      // [pivots + 2]: tasks of phase p
  std::vector<std::int32_t> task_l, task_diagonal, task_u, task_count, task_targets;  // [tasks]
  std::vector<std::int32_t> store_offsets, store_l, store_diagonal;  // [pivots + 2], [L entries]
  std::vector<std::int32_t> targets;                             // [updates], by task
  std::vector<std::int32_t> forward_offsets, forward_rows;       // levels of L's rows
  std::vector<std::int32_t> backward_offsets, backward_rows;     // levels of U's rows
};

}  // namespace zoneode
