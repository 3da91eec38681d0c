// lds: stage what every step reads in LDS / shared memory - the study's single biggest win.
//
// Changes from baseline: the step block of the compact network (reactants, flags, Q values, A, Z
// and the F+/F- term lists: uint16 reaction indices, uint8 factors) is copied into LDS once per
// block, and each zone's abundances, rate factors, fluxes and proposed states live in LDS while it
// is integrated (copied in and out once per zone). Everything else is baseline's: 256 threads, one
// thread per species, tree reductions. Why: every step reads each flux once per term (5,177 terms
// for s150) through an index; from global memory those are scattered 8-byte loads.
// Where it does not fit (the limit is 64 KiB per workgroup on gfx90a; s150 needs 74 KiB for both),
// the zone arrays alone are staged, and where even those do not fit, nothing: the run header says
// which ("placement").
// resources: gfx90a lds_kernel, sm_90 lds_kernel (the instantiation each target runs by default;
// scripts/kernel-resources.sh reads this line)
#include "kernel_common.hpp"

namespace zoneode::gpu {
namespace {

constexpr int lds_block = 256;

__global__ void ZONEODE_BLOCK_SIZE(lds_block) lds_kernel(KernelArgs args, bool stage_network, bool stage_zone) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<lds_block, Reduction::tree>::scratch_doubles];
  run_zones<lds_block, Reduction::tree, 1, false>(args, stage_network, stage_zone, shared, scratch);
}

// With the physics options' hooks (screening, self-heating: zone_team_physics.hpp).
__global__ void ZONEODE_BLOCK_SIZE(lds_block) lds_physics_kernel(KernelArgs args, bool stage_network,
                                                                 bool stage_zone) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<lds_block, Reduction::tree>::scratch_doubles];
  run_zones<lds_block, Reduction::tree, 1, false, false, true>(args, stage_network, stage_zone, shared, scratch);
}

LaunchPlan plan(const LaunchContext& context) {
  LaunchPlan result = context.physics ? plan_persistent(lds_physics_kernel, lds_block, context, true, true)
                                      : plan_persistent(lds_kernel, lds_block, context, true, true);
  result.physics = context.physics;
  return result;
}

void launch(const LaunchPlan& plan, const KernelArgs& args) {
  if (plan.physics)
    lds_physics_kernel<<<plan.grid, plan.block, plan.shared_bytes>>>(args, plan.stage_network, plan.stage_zone);
  else
    lds_kernel<<<plan.grid, plan.block, plan.shared_bytes>>>(args, plan.stage_network, plan.stage_zone);
}

const VariantOps ops{plan, launch};

}  // namespace

const VariantOps* lds_variant() { return &ops; }

}  // namespace zoneode::gpu
