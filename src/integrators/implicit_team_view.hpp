// The device-side view of an ImplicitSchedule (implicit_schedule.hpp): plain pointers and counts,
// trivially copyable into a kernel argument. Device-side header: no containers.
#pragma once

#include <cstdint>

#include "common/portability.hpp"

namespace zoneode {

// One LU task of a phase (implicit_schedule.hpp): count > 0, a[target[j]] -= (a[l] / a[diagonal])
// * a[u + j] for j < count; count -1, a[l] = a[l] / a[diagonal] (a column's l value stored);
// count 0, nothing (a phase's records fill whole slots). 32 bytes: two 16-byte loads.
struct LuRecord {
  std::int32_t l, diagonal, u, count;
  std::int32_t target[4];
};
inline constexpr int lu_record_targets = 4;
// Records per slot: a phase is whole slots, record (slot s, column c) at s * lu_record_width + c, so
// that a team of 256, 128, 64 or 32 threads reads a slot's records coalesced, each thread its own
// columns (one, two, four or eight).
inline constexpr int lu_record_width = 256;

// One row of a triangular solve: its sum runs over positions [first, last) (forward: the L part,
// last = the diagonal; backward: the U part, first = the diagonal + 1); order: where the row's
// right-hand side is read (forward) and its solution written (backward).
struct SolveRow {
  std::int32_t row, first, last, order;
};
// A level of a triangular solve: rows [first, first + rows) of the direction's rows, which need
// only rows of earlier levels; longest: the most terms of any of them.
struct SolveLevel {
  std::int32_t first, rows, longest, unused;
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
  int phases = 0;                                      // LU phases
  const std::int32_t* phase_slots = nullptr;           // phase p: slots [s[p], s[p+1]) of lu_records
  const LuRecord* lu_records = nullptr;
  int forward_levels = 0, backward_levels = 0;
  const SolveLevel* forward_level = nullptr;           // [forward_levels]
  const SolveRow* forward_row = nullptr;               // [species], level by level
  const SolveLevel* backward_level = nullptr;
  const SolveRow* backward_row = nullptr;
};

// Lanes that sum one row of a solve level together (a power of two): about four terms a lane for
// the level's longest row, the level's rows side by side in one wave of `wave` lanes.
ZONEODE_HD constexpr int lanes_per_row(int rows, int longest, int wave) {
  int lanes = 1;
  while (2 * lanes * rows <= wave && 4 * lanes < longest) lanes *= 2;
  return lanes;
}

}  // namespace zoneode
