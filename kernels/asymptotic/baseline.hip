// baseline: the straightforward first port, the study's starting point.
//
// One workgroup (256 threads) per zone: threads over reactions for the rate factors and fluxes,
// one thread per species for the F+/F- sums (in the CPU's order) and the update. The network, the
// rate factors, the abundances and the fluxes all stay in global memory; reductions (Ye, mass,
// error, energy) are a shared-memory tree. Blocks stay resident and take zones from a counter, so
// the workspace is per block, not per zone, and costly zones do not leave blocks idle.
// resources: gfx90a baseline_kernel, sm_90 baseline_kernel (the instantiation each target runs by default;
// scripts/kernel-resources.sh reads this line)
#include "kernel_common.hpp"

namespace zoneode::gpu {
namespace {

constexpr int baseline_block = 256;

__global__ void ZONEODE_BLOCK_SIZE(baseline_block) baseline_kernel(KernelArgs args) {
  __shared__ double scratch[BlockTeam<baseline_block, Reduction::tree>::scratch_doubles];
  run_zones<baseline_block, Reduction::tree, 1, false>(args, false, false, nullptr, scratch);
}

// With the physics options' hooks (screening, self-heating: zone_team_physics.hpp).
__global__ void ZONEODE_BLOCK_SIZE(baseline_block) baseline_physics_kernel(KernelArgs args) {
  __shared__ double scratch[BlockTeam<baseline_block, Reduction::tree>::scratch_doubles];
  run_zones<baseline_block, Reduction::tree, 1, false, false, true>(args, false, false, nullptr, scratch);
}

LaunchPlan plan(const LaunchContext& context) {
  LaunchPlan result = context.physics ? plan_persistent(baseline_physics_kernel, baseline_block, context, false, false)
                                      : plan_persistent(baseline_kernel, baseline_block, context, false, false);
  result.physics = context.physics;
  return result;
}

void launch(const LaunchPlan& plan, const KernelArgs& args) {
  if (plan.physics) baseline_physics_kernel<<<plan.grid, plan.block, plan.shared_bytes>>>(args);
  else baseline_kernel<<<plan.grid, plan.block, plan.shared_bytes>>>(args);
}

const VariantOps ops{plan, launch};

}  // namespace

const VariantOps* baseline_variant() { return &ops; }

}  // namespace zoneode::gpu
