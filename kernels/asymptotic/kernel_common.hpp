// Device code shared by the variant files: the zone loop of a persistent block, the staging of
// the step block and a zone's arrays in LDS, and the launch helpers.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "runtime/gpu_runtime.hpp"
#include "runtime/kernel_launch.hpp"
#include "zone_team.hpp"
#include "qss2/zone_team_qss2.hpp"

namespace zoneode::gpu {

// The step view over another copy of the step block (same offsets).
__device__ inline StepView rebase(const StepView& view, const std::byte* from, const std::byte* to) {
  auto move = [&](auto* pointer) {
    using T = std::remove_pointer_t<decltype(pointer)>;
    return reinterpret_cast<T*>(to + (reinterpret_cast<const std::byte*>(pointer) - from));
  };
  StepView v = view;
  v.reactant_count = move(view.reactant_count);
  v.reactant_species = move(view.reactant_species);
  v.reaction_flags = move(view.reaction_flags);
  v.q_value_MeV = move(view.q_value_MeV);
  v.creation_offsets = move(view.creation_offsets);
  v.creation_reaction = move(view.creation_reaction);
  v.creation_factor = move(view.creation_factor);
  v.destruction_offsets = move(view.destruction_offsets);
  v.destruction_reaction = move(view.destruction_reaction);
  v.destruction_factor = move(view.destruction_factor);
  v.species_A = move(view.species_A);
  v.species_Z = move(view.species_Z);
  return v;
}

// The persistent-block kernel body: stage what the plan says, then take zones from the counter
// until none is left. GROUP lanes per species, or balanced term chunks when GROUP is 0.
// `shared` is the dynamic shared memory, `scratch` the team's. PHYSICS: the instantiation with the
// physics options' hooks (zone_team_physics.hpp), which a variant launches when LaunchPlan::physics.
// METHOD is a compile-time choice too: a kernel runs one method's team integrator, so that the
// variants' asymptotic kernels keep their registers and occupancy (qss2's kernels:
// kernels/qss2/qss2_kernels.hip). LANES: the device's, or the CPU emulation's, which runs this body
// with fibers as a block's threads (tests/test_asymptotic_team.cpp; there `__shared__` is `static`).
// RESIDENT_TERMS > 0 (asymptotic, GROUP 0): final's latency path, each thread's chunk (of at most
// RESIDENT_TERMS terms), species and reactions held in registers (ResidentChunkSums,
// ResidentReactions: the launch must fit them, resident_fits below); bitwise the same results.
template <int BLOCK, Reduction REDUCTION, int GROUP, bool FUSED_YE, bool SWAP = false, bool PHYSICS = false,
          IntegrationMethod METHOD = IntegrationMethod::asymptotic, typename LANES = DeviceLanes, int RESIDENT_TERMS = 0>
__device__ inline void run_zones(const KernelArgs& a, bool stage_network, bool stage_zone, double* shared,
                                 double* scratch) {
  __shared__ unsigned long long zone_slot;
  const BlockTeam<BLOCK, REDUCTION, LANES> team{scratch};
  const int S = a.step.species_count, R = a.step.reaction_count;
  StepView net = a.step;
  double* zone_arrays = a.workspace + LANES::block_index() * a.workspace_doubles;
  double* lds = shared;
  if (stage_network) {
    // The step block is a whole number of doubles (compact.cpp pads it).
    const double* from = reinterpret_cast<const double*>(a.step_block);
    const int doubles = static_cast<int>((a.step_block_bytes + 7) / 8);
    for (int k = team.rank(); k < doubles; k += BLOCK) lds[k] = from[k];
    net = rebase(a.step, a.step_block, reinterpret_cast<const std::byte*>(lds));
    lds += doubles;
  }
  if (stage_zone) zone_arrays = lds;
  // Balanced chunks (final) read reactants through padded state arrays: entry S is 1.0, the unused
  // reactant slot (WordReactions), so a zone's Y is always copied into the block's own array.
  constexpr bool padded = GROUP == 0;
  const int P = padded ? S + 1 : S;
  const bool local_copy = stage_zone || padded;
  double* Y_local = zone_arrays;
  double* rate_factor = Y_local + P;
  double* flux = rate_factor + R;
  double* y_full = flux + R;
  double* y_half = y_full + P;
  double* chunk_sum = y_half + P;
  if (padded && team.rank() == 0) Y_local[S] = y_full[S] = y_half[S] = 1.0;  // never overwritten: updates cover [0, S)
  static_assert(RESIDENT_TERMS == 0 || (GROUP == 0 && METHOD == IntegrationMethod::asymptotic && !PHYSICS),
                "the latency path: final's plain asymptotic kernel");
  using Resident = ResidentChunkSums<BLOCK, RESIDENT_TERMS == 0 ? 1 : RESIDENT_TERMS>;
  using ResidentWords = ResidentReactions<BLOCK, resident_reactions_per_thread>;
  [[maybe_unused]] const Resident resident_sums = RESIDENT_TERMS > 0 ? Resident(a, team.rank(), chunk_sum) : Resident{};
  [[maybe_unused]] const ResidentWords resident_words = RESIDENT_TERMS > 0 ? ResidentWords(a, team.rank()) : ResidentWords{};
  team.sync();
  for (;;) {
    if (team.rank() == 0) zone_slot = LANES::take_next(a.next_zone);
    team.sync();
    const long long zone = static_cast<long long>(zone_slot);
    team.sync();  // before thread 0 takes the next zone
    if (zone >= a.zones) break;
    double* Y_global = a.abundances + zone * S;
    double* Y = Y_global;
    if (local_copy) {
      for (int i = team.rank(); i < S; i += BLOCK) Y_local[i] = Y_global[i];
      team.sync();
      Y = Y_local;
    }
    if constexpr (METHOD == IntegrationMethod::qss2) {
      // y_full: predictor, then corrector; y_half: q0; after the chunk sums, p0 (zone_array_doubles).
      const auto qss2 = [&](const auto& sums, const auto& reactions) {
        integrate_zone_team_qss2<PHYSICS>(team, sums, reactions, a.rates, net, a.settings, a.temperature[zone], a.density[zone],
                                 Y, rate_factor, flux, y_full, y_half, chunk_sum + a.chunks, a.results + zone);
      };
      if constexpr (GROUP == 0) {
        qss2(ChunkSums{a.chunk_terms, a.chunk_column_start, a.chunk_length, a.chunk_list_index, a.creation_chunks,
                       a.destruction_chunks, a.chunks, chunk_sum},
             WordReactions{a.reaction_words, a.reactant_slots});
      } else {
        qss2(LaneGroupSums<GROUP>{}, StepViewReactions{});
      }
    } else if constexpr (RESIDENT_TERMS > 0) {
      integrate_zone_team<FUSED_YE, SWAP, PHYSICS>(team, resident_sums, resident_words, a.rates, net, a.settings,
                                                   a.temperature[zone], a.density[zone], Y, rate_factor, flux, y_full,
                                                   y_half, a.results + zone);
    } else if constexpr (GROUP == 0) {
      const ChunkSums sums{a.chunk_terms,     a.chunk_column_start, a.chunk_length, a.chunk_list_index,
                           a.creation_chunks, a.destruction_chunks, a.chunks,       chunk_sum};
      integrate_zone_team<FUSED_YE, SWAP, PHYSICS>(team, sums, WordReactions{a.reaction_words, a.reactant_slots}, a.rates, net, a.settings, a.temperature[zone], a.density[zone], Y,
                                    rate_factor, flux, y_full, y_half, a.results + zone);
    } else {
      integrate_zone_team<FUSED_YE, SWAP, PHYSICS>(team, LaneGroupSums<GROUP>{}, StepViewReactions{}, a.rates, net, a.settings, a.temperature[zone],
                                    a.density[zone], Y, rate_factor, flux, y_full, y_half, a.results + zone);
    }
    if (local_copy) {
      for (int i = team.rank(); i < S; i += BLOCK) Y_global[i] = Y_local[i];
      team.sync();
    }
  }
}

// Where a staging variant puts a block's arrays: the step block and the zone's arrays in LDS if
// allowed and they fit together; else the zone's arrays alone; else nothing (global memory).
// The deck's run.kernel_placement (network|zone|global, for the ladder's experiments) sets what a
// staging variant may stage: network both, zone the zone arrays only, global none. Leaves the grid 0.
inline LaunchPlan place_arrays(int block, const LaunchContext& c, bool allow_network, bool allow_zone) {
  if (c.tuning.placement != KernelPlacement::automatic) {
    allow_network = c.tuning.placement == KernelPlacement::network;
    allow_zone = allow_zone && c.tuning.placement != KernelPlacement::global;
  }
  LaunchPlan plan;
  plan.block = block;
  const std::size_t zone_bytes = 8 * zone_array_doubles(c.species_count, c.reaction_count, c.chunks, c.state_padding, c.method);
  const std::size_t network_bytes = (c.step_block_bytes + 7) / 8 * 8;
  const std::size_t static_bytes = 6 * block * sizeof(double) + 64;  // the team's scratch and the zone slot
  const std::size_t room = c.max_shared_bytes > static_bytes ? c.max_shared_bytes - static_bytes : 0;
  if (allow_zone && allow_network && zone_bytes + network_bytes <= room) {
    plan.stage_network = plan.stage_zone = true;
    plan.shared_bytes = zone_bytes + network_bytes;
  } else if (allow_zone && zone_bytes <= room) {
    plan.stage_zone = true;
    plan.shared_bytes = zone_bytes;
  }
  plan.workspace_doubles =
      plan.stage_zone ? 0 : zone_array_doubles(c.species_count, c.reaction_count, c.chunks, c.state_padding, c.method);
  return plan;
}

#if !defined(ZONEODE_GPU_HOST_EMULATION)
// The grid of a persistent launch of `kernel` as placed: as many blocks as can be resident, at
// most one per zone.
template <typename Kernel>
void size_grid(Kernel kernel, const LaunchContext& c, LaunchPlan& plan) {
  (void)gpuFuncSetAttribute(reinterpret_cast<const void*>(kernel), gpuFuncAttributeMaxDynamicSharedMemorySize,
                            static_cast<int>(plan.shared_bytes));
#if defined(__CUDACC__)
  // The carve-out preference below stays the kernel's until set again: back to the driver's default
  // first, so that a later plan (another network in the process, the library's burners) starts
  // from it and the occupancy query sees it.
  (void)cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributePreferredSharedMemoryCarveout,
                             static_cast<int>(cudaSharedmemCarveoutDefault));
#endif
  int per_multiprocessor = 0;
  (void)gpuOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, plan.block, plan.shared_bytes);
  if (per_multiprocessor < 1) per_multiprocessor = 1;
#if defined(__CUDACC__)
  // A kernel that reads the network through L1 (step block not staged) needs L1 to hold it. On
  // sm_90 L1 is what the resident blocks' shared memory leaves of 256 KiB, in carve-out steps: the
  // study's network at 6 blocks x 33.1 KiB per SM takes the 228 KiB step and leaves 28 KiB of L1
  // for its 47.6 KiB step block and its ~24 KiB of chunk lists and reaction words. H100,
  // 2026-12-06, final, the study's problem (ns per zone-step at 832 / 6,656 zones, 2e-7 s burns):
  // L1 28 KiB (6 blocks/SM) 30.0 / 17.0; 60 KiB (5) 28.7 / 19.7; 92 KiB (4) 15.2 / 12.7; 156 KiB (3)
  // 20.9 / 15.6; the generated s150 (46.1 KiB, 832 zones) 14.1 at 60 KiB, 13.9 at 92. So: the most
  // resident blocks whose carve-out leaves L1 the step block and 40 KiB more, that carve-out asked
  // for (the driver honours it: the 4-block rows), and the grid sized to those blocks. Each zone's
  // arithmetic is the same at any occupancy: the outputs are bitwise those of 6 blocks.
  // A configuration the deck pins (run.kernel_config, for sweeps) keeps the occupancy it asks for.
  //
  // The rule is a prediction, and it does not hold for every network: the generated s150 at 65,536
  // zones, regimes (a) and (b), ran 8.9% slower at 5 blocks (92 KiB of L1) than at 6 (60 KiB):
  // 10.01 / 9.89 against 9.19 / 9.08 ns (H100, 2026-12-06, gpu-ladder.sh). So the backend measures
  // the occupancy on the run's first batch (gpu_backend.hip, measure_occupancy) and asks for its
  // pick through c.resident_blocks_wanted; the rule stands where nothing is measured.
  if (!c.tuning.configured && !plan.stage_network && c.unified_l1_bytes > 0 && c.step_block_bytes > 0 && c.max_shared_per_multiprocessor > 0) {
    cudaFuncAttributes attributes{};
    (void)cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(kernel));
    const std::size_t per_block = plan.shared_bytes + attributes.sharedSizeBytes + c.reserved_shared_bytes;
    const std::size_t wanted_l1 = static_cast<std::size_t>(c.step_block_bytes) + 40 * 1024;
    plan.occupancy_limit = per_multiprocessor;
    const bool measured = c.resident_blocks_wanted > 0;
    for (int blocks = measured ? std::min(c.resident_blocks_wanted, per_multiprocessor) : per_multiprocessor; blocks >= 1; --blocks) {
      std::size_t carveout = 0;  // the smallest step that holds `blocks` blocks [B]
      for (const int kib : c.carveout_kib) {
        carveout = static_cast<std::size_t>(kib) * 1024;
        if (carveout >= blocks * per_block) break;
      }
      if (carveout < blocks * per_block) continue;
      if (measured || c.unified_l1_bytes - carveout >= wanted_l1 || blocks == 1) {
        if (blocks < per_multiprocessor) {
          const int percent = static_cast<int>((100 * carveout + c.max_shared_per_multiprocessor - 1) / c.max_shared_per_multiprocessor);
          (void)cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributePreferredSharedMemoryCarveout,
                                     percent < 100 ? percent : 100);
          plan.l1_note = std::to_string(blocks) + " blocks/SM (not " + std::to_string(per_multiprocessor) +
                         (measured ? ", measured faster" : "") + "): L1 keeps " +
                         std::to_string((c.unified_l1_bytes - carveout) / 1024) + " KiB for the " +
                         std::to_string(c.step_block_bytes / 1024) + " KiB step block";
          per_multiprocessor = blocks;
        }
        break;
      }
    }
  }
#endif
  const std::int64_t resident = static_cast<std::int64_t>(per_multiprocessor) * c.multiprocessors;
  plan.grid = static_cast<int>(c.zones < resident ? (c.zones > 0 ? c.zones : 1) : resident);
}

// Plans a persistent launch of `kernel` with `block` threads: place_arrays, then size_grid.
template <typename Kernel>
LaunchPlan plan_persistent(Kernel kernel, int block, const LaunchContext& c, bool allow_network, bool allow_zone) {
  LaunchPlan plan = place_arrays(block, c, allow_network, allow_zone);
  size_grid(kernel, c, plan);
  return plan;
}
#endif

}  // namespace zoneode::gpu
