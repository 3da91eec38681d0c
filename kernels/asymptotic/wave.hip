// wave: wave-cooperative F+/F- sums and reductions.
//
// Changes from lds: each species' F+ and F- sums are split over a group of 8 lanes (each lane
// adds every 8th term in CSR order, then the group adds its lanes with shuffles), so a species
// with many terms no longer serialises one thread while the others wait at the barrier; the
// block reductions add within each wave by shuffles first, leaving a tree of waves/2 levels
// instead of log2(256) barriers. Same LDS staging as lds. The sums' order changes, so results
// differ from the CPU's in the last bits (validation/README.md), reproducibly.
// resources: gfx90a wave_kernel, sm_90 wave_kernel (the instantiation each target runs by default;
// scripts/kernel-resources.sh reads this line)
#include "kernel_common.hpp"

namespace zoneode::gpu {
namespace {

constexpr int wave_block = 256;
constexpr int lanes_per_species = 8;

__global__ void ZONEODE_BLOCK_SIZE(wave_block) wave_kernel(KernelArgs args, bool stage_network, bool stage_zone) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<wave_block, Reduction::wave>::scratch_doubles];
  run_zones<wave_block, Reduction::wave, lanes_per_species, false>(args, stage_network, stage_zone, shared, scratch);
}

// With the physics options' hooks (screening, self-heating: zone_team_physics.hpp).
__global__ void ZONEODE_BLOCK_SIZE(wave_block) wave_physics_kernel(KernelArgs args, bool stage_network,
                                                                   bool stage_zone) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<wave_block, Reduction::wave>::scratch_doubles];
  run_zones<wave_block, Reduction::wave, lanes_per_species, false, false, true>(args, stage_network, stage_zone, shared,
                                                                              scratch);
}

LaunchPlan plan(const LaunchContext& context) {
  LaunchPlan result = context.physics ? plan_persistent(wave_physics_kernel, wave_block, context, true, true)
                                      : plan_persistent(wave_kernel, wave_block, context, true, true);
  result.physics = context.physics;
  return result;
}

void launch(const LaunchPlan& plan, const KernelArgs& args) {
  if (plan.physics)
    wave_physics_kernel<<<plan.grid, plan.block, plan.shared_bytes>>>(args, plan.stage_network, plan.stage_zone);
  else
    wave_kernel<<<plan.grid, plan.block, plan.shared_bytes>>>(args, plan.stage_network, plan.stage_zone);
}

const VariantOps ops{plan, launch};

}  // namespace

const VariantOps* wave_variant() { return &ops; }

}  // namespace zoneode::gpu
