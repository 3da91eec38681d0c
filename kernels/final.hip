// final: balanced term chunks and one reduction per step.
//
// Changes from tuned, each kept because the ladder measured it (kernels/EXPERIMENTS.md):
// - Balanced chunks instead of lanes per species. The F+/F- term counts are very uneven (s150:
//   the neutron has 686 terms, the median species 27), so a fixed number of lanes per species
//   waits on the heaviest one; the study scheduled its heaviest species first for that reason.
//   Here the term lists are cut on the host into chunks of at most ceil(terms / threads) terms
//   that never cross a species boundary (about one chunk per thread); each thread sums its chunks
//   into LDS, then each species adds its few chunk sums in order.
// - The electron fraction of a proposed state is reduced together with the step's mass, energy
//   and error (one block reduction per geometric step instead of two), and reused by the next
//   step when the state is accepted unscaled.
// - Per target, what the sweep chose: on the H200 128 threads per zone and only the zone's arrays
//   in shared memory (the step block is read through L1): more zones per multiprocessor.
// Wave reductions as tuned. Block size and launch bound from ZONEODE_KERNEL_CONFIG=BLOCKx0[xMIN]
// for sweeps; ZONEODE_KERNEL_PLACEMENT=network stages the step block again.
#include "kernel_common.hpp"

namespace zoneode::gpu {
namespace {

#if defined(__CUDACC__)
// H200 sweep (kernels/EXPERIMENTS.md): 128 threads, zone arrays alone in shared memory (the step
// block is read through L1, which holds it for every block of a multiprocessor): 16.7 ns per
// zone-step against 23.8 for 256 threads with the network staged.
constexpr KernelConfig final_default{128, 0, 0};
constexpr bool final_stages_network = false;
#else
// gfx90a, unmeasured: the study's staging (its L1 is 16 KB, so LDS is where the network is reused).
constexpr KernelConfig final_default{256, 0, 0};
constexpr bool final_stages_network = true;
#endif

template <int BLOCK>
__global__ void ZONEODE_BLOCK_SIZE(BLOCK) final_kernel(KernelArgs args, bool stage_network, bool stage_zone) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<BLOCK, Reduction::wave>::scratch_doubles];
  run_zones<BLOCK, Reduction::wave, 0, true>(args, stage_network, stage_zone, shared, scratch);
}

template <int BLOCK, int MIN_BLOCKS>
__global__ void ZONEODE_BOUNDED(BLOCK, MIN_BLOCKS) final_bounded_kernel(KernelArgs args, bool stage_network,
                                                                        bool stage_zone) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<BLOCK, Reduction::wave>::scratch_doubles];
  run_zones<BLOCK, Reduction::wave, 0, true>(args, stage_network, stage_zone, shared, scratch);
}

template <typename Visit>
bool with_kernel(const KernelConfig& c, Visit&& visit) {
#define ZONEODE_FINAL(B)                                                                               \
  if (c.block == B && c.min_blocks == 0) return visit(final_kernel<B>), true;                         \
  if (c.block == B && c.min_blocks == 65536 / 64 / B) return visit(final_bounded_kernel<B, 65536 / 64 / B>), true;
  ZONEODE_FINAL(64) ZONEODE_FINAL(128) ZONEODE_FINAL(256) ZONEODE_FINAL(512)
#undef ZONEODE_FINAL
  return false;
}

int chunk_threads() { return kernel_config(final_default).block; }

LaunchPlan plan(const LaunchContext& context) {
  const KernelConfig config = kernel_config(final_default);
  LaunchPlan result;
  if (!with_kernel(config, [&](auto kernel) {
        result = plan_persistent(kernel, config.block, context, final_stages_network, true);
      }))
    throw std::invalid_argument("ZONEODE_KERNEL_CONFIG: final has no " + std::to_string(config.block) + "x0x" +
                                std::to_string(config.min_blocks) +
                                " (blocks 64, 128, 256, 512; min blocks 0 or 65536 / 64 / block)");
  result.group = 0;
  result.min_blocks = config.min_blocks;
  return result;
}

void launch(const LaunchPlan& plan, const KernelArgs& args) {
  with_kernel({plan.block, 0, plan.min_blocks}, [&](auto kernel) {
    kernel<<<plan.grid, plan.block, plan.shared_bytes>>>(args, plan.stage_network, plan.stage_zone);
  });
}

const VariantOps ops{"final", plan, launch, chunk_threads};

}  // namespace

const VariantOps* final_variant() { return &ops; }

}  // namespace zoneode::gpu
