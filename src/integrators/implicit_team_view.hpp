// The device-side view of an ImplicitSchedule (implicit_schedule.hpp): plain pointers and counts,
// trivially copyable into a kernel argument. Device-side header: no containers.
#pragma once

#include <cstdint>

namespace zoneode {

struct ImplicitScheduleView {
  const std::int32_t* entry_term_offsets = nullptr;  // J entry e: terms [o[e], o[e+1]) of entry_terms
  const std::int32_t* entry_terms = nullptr;
  const std::int32_t* ye_offsets = nullptr;          // species i: Ye terms [o[i], o[i+1]) of ye_terms
  const std::int32_t* ye_terms = nullptr;
  const std::int32_t* energy_offsets = nullptr;      // species i: energy terms likewise
  const std::int32_t* energy_terms = nullptr;
  const std::int32_t* matrix_entry = nullptr;        // filled position q: J entry, or -1
  const std::uint8_t* matrix_diagonal = nullptr;     // 1 where q is on the diagonal
  int phases = 0;                                    // LU phases
  const std::int32_t* phase_offsets = nullptr;       // phase p: tasks [o[p], o[p+1])
  const std::int32_t* task_l = nullptr;              // the L entry q the task divides
  const std::int32_t* task_diagonal = nullptr;       // the pivot's diagonal position
  const std::int32_t* task_u = nullptr;              // the task's first U row position
  const std::int32_t* task_count = nullptr;          // updates along U row from task_u
  const std::int32_t* task_targets = nullptr;        // the task's first target in `targets`
  const std::int32_t* store_offsets = nullptr;       // phase p: stores [o[p], o[p+1])
  const std::int32_t* store_l = nullptr;             // a[store_l] /= a[store_diagonal]
  const std::int32_t* store_diagonal = nullptr;
  const std::int32_t* targets = nullptr;             // update targets, by task
  int forward_levels = 0, backward_levels = 0;
  const std::int32_t* forward_offsets = nullptr;     // level v: rows [o[v], o[v+1]) of forward_rows
  const std::int32_t* forward_rows = nullptr;
  const std::int32_t* backward_offsets = nullptr;
  const std::int32_t* backward_rows = nullptr;
};

}  // namespace zoneode
