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
// Same LDS staging and wave reductions as tuned. Block size from ZONEODE_KERNEL_CONFIG=BLOCKx0
// for sweeps; default 256.
#include "kernel_common.hpp"

namespace zoneode::gpu {
namespace {

constexpr KernelConfig final_default{256, 0};

template <int BLOCK>
__global__ void ZONEODE_BLOCK_SIZE(BLOCK) final_kernel(KernelArgs args, bool stage_network, bool stage_zone) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<BLOCK, Reduction::wave>::scratch_doubles];
  run_zones<BLOCK, Reduction::wave, 0, true>(args, stage_network, stage_zone, shared, scratch);
}

template <typename Visit>
bool with_kernel(int block, Visit&& visit) {
  if (block == 128) return visit(final_kernel<128>), true;
  if (block == 256) return visit(final_kernel<256>), true;
  if (block == 512) return visit(final_kernel<512>), true;
  return false;
}

int chunk_threads() { return kernel_config(final_default).block; }

LaunchPlan plan(const LaunchContext& context) {
  const int block = chunk_threads();
  LaunchPlan result;
  if (!with_kernel(block, [&](auto kernel) { result = plan_persistent(kernel, block, context, true, true); }))
    throw std::invalid_argument("ZONEODE_KERNEL_CONFIG: final has no block of " + std::to_string(block) +
                                " (128, 256, 512)");
  result.group = 0;
  return result;
}

void launch(const LaunchPlan& plan, const KernelArgs& args) {
  with_kernel(plan.block, [&](auto kernel) {
    kernel<<<plan.grid, plan.block, plan.shared_bytes>>>(args, plan.stage_network, plan.stage_zone);
  });
}

const VariantOps ops{"final", plan, launch, chunk_threads};

}  // namespace

const VariantOps* final_variant() { return &ops; }

}  // namespace zoneode::gpu
