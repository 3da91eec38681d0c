// The device-side view of an ImplicitSchedule (implicit_schedule.hpp): plain pointers and counts,
// trivially copyable into a kernel argument. Device-side header: no containers.
#pragma once

#include <cstdint>

#include "common/portability.hpp"

namespace zoneode {

// One LU task of a phase (implicit_schedule.hpp): count > 0, a[target[j]] -= (a[l] / a[diagonal])
// * a[u + j] for j < count; count -1, a[l] = a[l] / a[diagonal] (a column's l value stored);
// count 0, nothing (a phase's records fill whole slots). 16 bytes, one load: positions of the
// filled pattern as 16-bit values (lu_record_max_position), since every thread reads its record of
// every phase from L2 at every factorisation (s150: 150 phases; 32-byte records in slots of 256
// were 1.2 MB per factorisation, most of it padding: ncu's long-scoreboard stalls on the record).
struct LuRecord {
  std::uint16_t l, diagonal, u;
  std::int16_t count;
  std::uint16_t target[4];
};
inline constexpr int lu_record_targets = 4;
// The team kernels' LU records hold positions up to this (networks whose filled pattern is larger
// have no team schedule: their LU alone would be 512 KB a zone).
inline constexpr int lu_record_max_position = 65535;

// One lane's part of a round of a triangular solve. A round is a level's rows (or some of them,
// where they are more than a wave's lane groups) summed side by side by groups of `lanes` lanes
// (lanes_per_row): a lane adds a[q] * y[column q] over its row's positions first, first + lanes,
// ... < last. row >= 0: the group's first lane, which writes the row's value (order: where the row's
// right-hand side is read, forward, or its solution written, backward; backward, first - 1 is the
// diagonal); -1: another lane of the group; -2: a lane without a row (first == last). column: the
// columns of the lane's first solve_task_columns positions (0 beyond last), so that their y loads
// need not wait for a column index load (the task is read a round ahead). 16 bytes, one load:
// positions as 16 bits (a team schedule exists only where they fit: lu_record_max_position).
inline constexpr int solve_task_columns = 4;
struct SolveLaneTask {
  std::uint16_t first, last;
  std::int16_t row;
  std::uint16_t order;
  std::uint16_t column[solve_task_columns];
};

// A sum of terms split into pieces (the Jacobian's gathers): a piece sums the terms [first, last)
// of its item's list in order; output >= 0: the item is this one piece, and its value is that sum;
// output < 0: the sum goes to scratch slot -1 - output, and a MultiPieceItem adds the item's
// slots in order.
struct GatherPiece {
  std::int32_t first, last, output;
};
struct MultiPieceItem {
  std::int32_t item, first_scratch, pieces;
};

struct ImplicitScheduleView {
  // The Jacobian's gathers: items 0..entries-1 the J entries, then the species' Ye terms, then
  // their energy terms, each a list of (coefficient, slot) terms in term order, cut into pieces.
  int gather_pieces = 0, multi_piece_items = 0;
  const double* gather_coefficient = nullptr;          // [terms], item by item
  const std::int32_t* gather_slot = nullptr;           // [terms]
  const GatherPiece* pieces = nullptr;                 // [gather_pieces], longest first
  const MultiPieceItem* multi_items = nullptr;         // [multi_piece_items]
  const std::int32_t* matrix_entry = nullptr;          // filled position q: J entry, or -1
  const std::uint8_t* matrix_diagonal = nullptr;       // 1 where q is on the diagonal
  // J's entries by column: column j's are column_entries[column_entry_offsets[j] ..
  // column_entry_offsets[j + 1]), in increasing entry order (self-heating's T row).
  const std::int32_t* column_entry_offsets = nullptr;  // [species + 1]
  const std::int32_t* column_entries = nullptr;        // [entries]
  int phases = 0;                                      // LU phases
  // Records per slot: a phase is whole slots, record (slot s, column c) at s * lu_record_width + c
  // (the team's size, so that its threads read a slot coalesced, one record each; a larger team's
  // threads beyond a phase's records have none). 0: no team schedule (lu_record_max_position).
  int lu_record_width = 0;
  const std::int32_t* phase_slots = nullptr;           // phase p: slots [s[p], s[p+1]) of lu_records
  const LuRecord* lu_records = nullptr;
  // The solves' rounds, lane by lane: round v's task of lane l at [v * solve_wave + l].
  int solve_wave = 0;                                  // lanes of a round: the device's wave
  int forward_rounds = 0, backward_rounds = 0;
  const SolveLaneTask* forward_tasks = nullptr;        // [forward_rounds * solve_wave]
  const std::int32_t* forward_lanes = nullptr;         // [forward_rounds]: lanes per row
  const SolveLaneTask* backward_tasks = nullptr;
  const std::int32_t* backward_lanes = nullptr;
};

// Lanes that sum one row of a solve level together (a power of two): about four terms a lane for
// the level's longest row, the level's rows side by side in one wave of `wave` lanes.
ZONEODE_HD constexpr int lanes_per_row(int rows, int longest, int wave) {
  int lanes = 1;
  while (2 * lanes * rows <= wave && 4 * lanes < longest) lanes *= 2;
  return lanes;
}

}  // namespace zoneode
