// The implicit method with one zone per thread (kernels/implicit/implicit_thread.hip): what is not device
// specific, so that the CPU tests prove it (tests/test_implicit_gpu_layout.cpp).
//
// Layout: thread slot s of `slots` owns a column of one interleaved array. Value v of the slot
// (its implicit workspace, then a copy of its zone's abundances) lives at base[v * slots + s],
// so at any step the lanes of a wave, doing the same operation on their own zones, touch
// consecutive doubles (coalesced), where a zone-major workspace would put them 14,469 doubles
// apart (s150). A zone's Y is copied in before and out after, since the zones' own array is
// zone-major.
#pragma once

#include <cstdint>
#include <string>

#include "common/errors.hpp"
#include "common/portability.hpp"
#include "common/strided.hpp"
#include "integrators/implicit.hpp"
#include "integrators/method_network.hpp"

namespace zoneode::gpu {

// Doubles of one thread slot: the implicit workspace and the zone's abundances.
inline std::int64_t implicit_slot_doubles(const ImplicitWorkspaceLayout& layout, int species_count) {
  return layout.total + species_count;
}
inline std::int64_t implicit_slot_doubles(const MethodNetwork& network) {
  return implicit_slot_doubles(network.implicit.layout, network.step.species_count);
}

// Integrates one zone in thread slot `slot` of `slots` over the interleaved array `base`
// (slots x implicit_slot_doubles values): Y_zone (zone-major, species_count values) in and out.
ZONEODE_HD inline void integrate_zone_in_slot(const MethodNetwork& network, const IntegratorSettings& settings,
                                              double* base, std::int64_t slots, std::int64_t slot, double T9,
                                              double rho, double* Y_zone, ZoneResult& result) {
  const StridedArray<double> workspace{base + slot, slots};
  const StridedArray<double> Y = workspace + network.implicit.layout.total;  // after the workspace
  const int S = network.step.species_count;
  for (int i = 0; i < S; ++i) Y[i] = Y_zone[i];
  implicit::integrate_zone(network, settings, T9, rho, Y, workspace, result);
  for (int i = 0; i < S; ++i) Y_zone[i] = Y[i];
}

// How many thread slots a launch has: as many threads as can be resident, no more than the zones
// need but a block per multiprocessor (few zones then spread over the device: threads without a
// zone return at once), and no more than fit in the device memory given to the workspace; whole
// blocks.
struct ImplicitSlots {
  std::int64_t blocks = 0;
  std::int64_t slots = 0;  // blocks x block
};

// resident_threads: the kernel's occupancy x multiprocessors x block; budget_bytes: the device
// memory the workspace may take; slot_bytes: 8 x implicit_slot_doubles. Throws InputError when
// not one block of slots fits (naming the zones in flight that would fit).
inline ImplicitSlots plan_implicit_slots(std::int64_t zones, int block, std::int64_t resident_threads,
                                         int multiprocessors, std::uint64_t budget_bytes, std::uint64_t slot_bytes,
                                         std::uint64_t free_bytes, int species) {
  const std::int64_t fit = static_cast<std::int64_t>(budget_bytes / slot_bytes);
  if (fit < block) {
    throw InputError("integrator.method: implicit on the GPU: one zone in flight needs " + std::to_string(slot_bytes) +
                     " bytes of device workspace (" + std::to_string(species) + " species: Jacobian, LU values, " +
                     "stages), and of the " + std::to_string(free_bytes) + " bytes free on the device " +
                     std::to_string(budget_bytes) + " may hold workspaces: " + std::to_string(fit) +
                     " zones in flight fit, fewer than one block of " + std::to_string(block) +
                     " (use fewer ranks per GPU, a smaller network, or run.backend: cpu)");
  }
  std::int64_t wanted_blocks = zones > block ? (zones + block - 1) / block : 1;
  if (wanted_blocks < multiprocessors) wanted_blocks = multiprocessors;
  std::int64_t blocks = resident_threads / block;
  if (blocks < 1) blocks = 1;
  if (wanted_blocks < blocks) blocks = wanted_blocks;
  if (fit / block < blocks) blocks = fit / block;
  return {blocks, blocks * block};
}

}  // namespace zoneode::gpu
