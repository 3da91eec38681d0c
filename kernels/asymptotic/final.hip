// final: every term of a step gets about the same work, and a step has as few instructions and
// barriers as the team integrator allows.
//
// What it changes from tuned, and why (measurements: kernels/EXPERIMENTS.md, rows 6-24):
// - Balanced chunks instead of lanes per species: F+/F- term counts are very uneven (s150's neutron
//   686 terms, the median species 27), so lanes per species wait on the heaviest one. The term
//   lists, a factor-k term as k unit terms, are cut on the host into chunks of at most
//   ceil(terms / 256) terms that never cross a species; each thread sums its chunks into LDS, then
//   each species adds its few chunk sums in order. Chunks are stored longest first and by column,
//   so a wave's loads coalesce, and each chunk's terms are ordered against shared-memory bank
//   conflicts of the flux gathers (kernels/asymptotic/term_chunks.cpp).
// - Every reaction's flux multiplies the network's most reactants without a branch on its own
//   count (a warp's reactions differ in count): unused slots name a 1.0 entry of the state arrays.
// - One reduction per geometric step (mass, energy, and Ye of the proposal, reused by the next
//   step; the non-finite flag rides on its barrier), three barriers per step, and an accepted
//   proposal becomes Y by exchanging array roles (zone_team.hpp). After its barrier each lane
//   loads one wave's partial and a butterfly adds them, and on NVIDIA the three sums are
//   transposed across the wave (half the values sent each way per level): with few zones the
//   reduction is on every step's serial path (EXPERIMENTS.md 23-24: (d) 26.13 -> 23.63 ns).
// - The placement (what is in LDS) is a template argument, so loads are shared or global, not
//   generic.
// - Per target: on NVIDIA 128 threads per zone, the zone's arrays alone in shared memory (the
//   network is read through the large L1) and a launch bound of 6 blocks per multiprocessor; when
//   zones are fewer than half the resident blocks, 512 threads per zone (latency-bound: more
//   threads shorten a step) and the network staged in LDS beside the zone arrays. On gfx90a
//   (16 KB L1) the network is staged in LDS, 256 threads, 4 waves per SIMD. No MI250 was
//   available: the gfx90a choices are unmeasured.
// Sweeps: run.kernel_config (BLOCKx0 or BLOCKx0xMIN_BLOCKS), run.kernel_placement, run.chunk_terms,
// run.term_order.
// resources: gfx90a final_kernelILi256ELb1ELb1E, sm_90 final_bounded_kernelILi128ELi6E (the instantiation each target runs by default;
// scripts/kernel-resources.sh reads this line)
#include <algorithm>
#include <cstdlib>

#include "kernel_common.hpp"

namespace zoneode::gpu {
namespace {

#if defined(__CUDACC__)
// The H200 sweep's choice (EXPERIMENTS.md 7, 12).
constexpr KernelConfig final_default{128, 0, 6};
constexpr bool final_stages_network = false;
#else
// gfx90a, unmeasured: the study's staging.
constexpr KernelConfig final_default{256, 0, 0};
constexpr bool final_stages_network = true;
#endif
constexpr int few_zones_block = 512;    // threads per zone when zones are few (EXPERIMENTS.md 19)
constexpr int chunk_threads_cut = 256;  // chunks of ceil(terms / 256) terms (EXPERIMENTS.md 10)
// The latency path's longest chunk: ceil(terms / 256) for networks of up to 6,144 unit terms (the
// study's 5,419 cut into 22-term chunks); each term index costs half a register.
constexpr int resident_terms = 24;

// gfx90a: 4 waves per SIMD (<= 128 VGPRs), the occupancy of the study's kernel.
template <int BLOCK, bool NETWORK, bool ZONE>
__global__ void ZONEODE_BLOCK_SIZE(BLOCK) ZONEODE_WAVES_PER_SIMD(4) final_kernel(KernelArgs args) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<BLOCK, Reduction::broadcast>::scratch_doubles];
  run_zones<BLOCK, Reduction::broadcast, 0, true, true>(args, NETWORK, ZONE, shared, scratch);
}

// A launch bound asking for MIN_BLOCKS resident blocks (caps registers on NVIDIA): for sweeps.
template <int BLOCK, int MIN_BLOCKS>
__global__ void ZONEODE_BOUNDED(BLOCK, MIN_BLOCKS) final_bounded_kernel(KernelArgs args) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<BLOCK, Reduction::broadcast>::scratch_doubles];
  run_zones<BLOCK, Reduction::broadcast, 0, true, true>(args, false, true, shared, scratch);
}

// A whole 1,024-thread block per zone (run.kernel_config only: the plan takes 512 for few zones);
// the bound is required.
__global__ void ZONEODE_BOUNDED(1024, 1) final_wide_kernel(KernelArgs args) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<1024, Reduction::broadcast>::scratch_doubles];
  run_zones<1024, Reduction::broadcast, 0, true, true>(args, false, true, shared, scratch);
}

// The latency path (few zones): the few-zones block with each thread's chunk, species and reaction
// words in registers (zone_team.hpp, ResidentChunkSums and ResidentReactions); bitwise
// final_kernel<few_zones_block, ...>'s results. One block per multiprocessor (the bound: NVIDIA's
// 128 registers at 512 threads), no waves-per-SIMD cap on gfx90a: a block alone on its CU may
// take all of its registers.
template <bool NETWORK>
__global__ void ZONEODE_BOUNDED(few_zones_block, 1) final_latency_kernel(KernelArgs args) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<few_zones_block, Reduction::broadcast>::scratch_doubles];
  run_zones<few_zones_block, Reduction::broadcast, 0, true, true, false, IntegrationMethod::asymptotic, DeviceLanes,
            resident_terms>(args, NETWORK, true, shared, scratch);
}

// Whether the latency path holds a launch: every chunk, species and reaction word on its own thread's registers.
bool resident_fits(const LaunchContext& c) {
  return ResidentChunkSums<few_zones_block, resident_terms>::fits(c.chunks, c.longest_chunk, c.species_count) &&
         ResidentReactions<few_zones_block, resident_reactions_per_thread>::fits(c.reaction_count) &&
         !std::getenv("ZONEODE_GPU_DEBUG_NO_RESIDENT");  // the memory-read path, for side-by-side timing
}

// With the physics options' hooks (screening, self-heating: zone_team_physics.hpp): the default
// block and the few-zones block, every placement, and the default bound where the target has one.
// gfx90a: no waves-per-SIMD cap (the options' code would spill under 128 VGPRs).
template <int BLOCK, bool NETWORK, bool ZONE>
__global__ void ZONEODE_BLOCK_SIZE(BLOCK) final_physics_kernel(KernelArgs args) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<BLOCK, Reduction::broadcast>::scratch_doubles];
  run_zones<BLOCK, Reduction::broadcast, 0, true, true, true>(args, NETWORK, ZONE, shared, scratch);
}
template <int BLOCK, int MIN_BLOCKS>
__global__ void ZONEODE_BOUNDED(BLOCK, MIN_BLOCKS) final_physics_bounded_kernel(KernelArgs args) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<BLOCK, Reduction::broadcast>::scratch_doubles];
  run_zones<BLOCK, Reduction::broadcast, 0, true, true, true>(args, false, true, shared, scratch);
}

template <typename Visit>
bool with_physics_kernel(int block, bool network, bool zone, Visit&& visit, int min_blocks) {
  if (min_blocks > 0) {
    if constexpr (final_default.min_blocks > 0) {
      if (block == final_default.block && min_blocks == final_default.min_blocks && zone && !network)
        return visit(final_physics_bounded_kernel<final_default.block, final_default.min_blocks>), true;
    }
    return false;
  }
#define ZONEODE_FINAL_PHYSICS(B)                                                \
  if (block == B) {                                                             \
    if (network && zone) return visit(final_physics_kernel<B, true, true>), true; \
    if (zone) return visit(final_physics_kernel<B, false, true>), true;          \
    return visit(final_physics_kernel<B, false, false>), true;                   \
  }
  ZONEODE_FINAL_PHYSICS(final_default.block) ZONEODE_FINAL_PHYSICS(few_zones_block)
#undef ZONEODE_FINAL_PHYSICS
  return false;
}

// Calls visit(kernel) with the instantiation for the block size, placement and bound (the physics
// one when `physics`); false if none.
template <typename Visit>
bool with_kernel(int block, bool network, bool zone, Visit&& visit, int min_blocks = 0, bool physics = false,
                 bool resident = false) {
  if (physics) return with_physics_kernel(block, network, zone, visit, min_blocks);
  if (resident) {
    if (block != few_zones_block || !zone || min_blocks > 0) return false;
    return network ? visit(final_latency_kernel<true>) : visit(final_latency_kernel<false>), true;
  }
  if (min_blocks > 0) {
    if (block == 128 && min_blocks == 6 && zone && !network) return visit(final_bounded_kernel<128, 6>), true;
    if (block == 128 && min_blocks == 7 && zone && !network) return visit(final_bounded_kernel<128, 7>), true;
    return false;
  }
#define ZONEODE_FINAL(B)                                                \
  if (block == B) {                                                     \
    if (network && zone) return visit(final_kernel<B, true, true>), true; \
    if (zone) return visit(final_kernel<B, false, true>), true;          \
    return visit(final_kernel<B, false, false>), true;                   \
  }
  ZONEODE_FINAL(64) ZONEODE_FINAL(128) ZONEODE_FINAL(256) ZONEODE_FINAL(512)
#undef ZONEODE_FINAL
  // 1,024 threads (few zones): needs the bound, which caps registers at 64.
  if (block == 1024 && zone && !network) return visit(final_wide_kernel), true;
  return false;
}

// stage_network: the network may be staged in LDS too (where it fits), not only the zone arrays.
// resident: the latency path where the launch allows it (the few-zones block, zone arrays in LDS,
// no physics options, resident_fits).
LaunchPlan plan_for(const KernelConfig& config, const LaunchContext& context, bool stage_network = final_stages_network,
                    bool resident = false) {
  LaunchPlan result = place_arrays(config.block, context, stage_network, true);
  result.group = 0;
  // The bounded instantiations hold the zone arrays alone in LDS; other placements (a network
  // too large for it, or a sweep's run.kernel_placement) run unbounded, as the run header says.
  result.min_blocks = result.stage_zone && !result.stage_network ? config.min_blocks : 0;
  result.physics = context.physics;
  result.resident = resident && config.block == few_zones_block && result.stage_zone && result.min_blocks == 0 &&
                    !result.physics && resident_fits(context);
  result.kernel = result.resident ? 1 : 0;
  if (!with_kernel(
          config.block, result.stage_network, result.stage_zone,
          [&](auto kernel) { size_grid(kernel, context, result); }, result.min_blocks, result.physics, result.resident)) {
    if (result.physics)
      throw std::invalid_argument("run.kernel_config: final runs the physics options (screening, partition_functions, "
                                  "self_heating) in " +
                                  std::to_string(final_default.block) + " or " + std::to_string(few_zones_block) +
                                  " threads only, not " + config_name(config));
    throw std::invalid_argument("run.kernel_config: final has no " + config_name(config) +
                                " (blocks 64, 128, 256, 512 without a bound; 128x0x6 and 128x0x7; 1024 with zone placement)");
  }
  return result;
}

LaunchPlan plan(const LaunchContext& context) {
  const KernelConfig config = kernel_config(context, final_default);
  LaunchPlan result = plan_for(config, context);
  // Few zones leave most of the GPU idle: more threads per zone shorten each step instead. Few:
  // less than half of what the default configuration keeps resident. A block then has its
  // multiprocessor to itself, so its LDS holds the network too (where it fits): on the H200, (d)
  // 26.13 ns per zone-step against 27.10 with the network read through L1 (EXPERIMENTS.md 21).
  if (!context.tuning.configured && config.block < few_zones_block) {
    LaunchContext full = context;
    full.zones = std::int64_t{1} << 40;
    if (context.zones < plan_for(config, full).grid / 2) result = plan_for({few_zones_block, 0, 0}, context, true, true);
  }
  return result;
}

void launch(const LaunchPlan& plan, const KernelArgs& args) {
  with_kernel(
      plan.block, plan.stage_network, plan.stage_zone,
      [&](auto kernel) { kernel<<<plan.grid, plan.block, plan.shared_bytes>>>(args); }, plan.min_blocks, plan.physics,
      plan.resident);
}

// The host side: the term chunks and reaction words, once per run (kernel_launch.hpp).
void prepare(const CompactNetwork& network, DeviceUploads& uploads, KernelArgs& args, LaunchContext& context) {
  prepare_term_chunks(network, uploads, args, context, chunk_threads_cut);
}

const VariantOps ops{plan, launch, prepare};

}  // namespace

const VariantOps* final_variant() { return &ops; }

}  // namespace zoneode::gpu
