// The qss2 method's kernels: run_zones with METHOD = qss2 (kernels/qss2/zone_team_qss2.hpp) in the
// shape of each variant's plan, so that every variant runs qss2 with its own threads per zone,
// sums (lanes per species or final's balanced chunks), reduction and placement, while the
// variants' own kernels stay asymptotic-only: a kernel's registers are those of its heaviest path,
// and qss2's (sm_90 128, gfx90a 158-180 VGPRs) would lower every variant's occupancy.
//
// The reduction follows the sums, as in the variants: chunks (final) broadcast, one lane per
// species (baseline, lds) a tree, lane groups (wave, tuned) wave shuffles. Instantiated for the
// variants' default configurations; a run.kernel_config sweep outside them is refused.
#include <stdexcept>

#include "asymptotic/kernel_common.hpp"

namespace zoneode::gpu {
namespace {

template <int GROUP>
constexpr Reduction qss2_reduction = GROUP == 0 ? Reduction::broadcast : GROUP == 1 ? Reduction::tree : Reduction::wave;

// PHYSICS: the instantiation with screening, partition functions and self-heating
// (zone_team_physics.hpp), launched when an option is on (LaunchPlan::physics).
template <int BLOCK, int GROUP, bool PHYSICS>
__global__ void ZONEODE_BLOCK_SIZE(BLOCK) qss2_kernel(KernelArgs args, bool stage_network, bool stage_zone) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<BLOCK, qss2_reduction<GROUP>>::scratch_doubles];
  run_zones<BLOCK, qss2_reduction<GROUP>, GROUP, false, false, PHYSICS, IntegrationMethod::qss2>(args, stage_network,
                                                                                        stage_zone, shared, scratch);
}

// Calls visit(kernel) with the instantiation for BLOCK threads, GROUP lanes and physics; false if none.
template <typename Visit>
bool with_kernel(int block, int group, bool physics, Visit&& visit) {
#define ZONEODE_QSS2(B, G)                                         \
  if (block == B && group == G) {                                  \
    if (physics) return visit(qss2_kernel<B, G, true>), true;      \
    return visit(qss2_kernel<B, G, false>), true;                  \
  }
  ZONEODE_QSS2(128, 0) ZONEODE_QSS2(256, 0)  // final (128 on the H200; 256 on gfx90a)
  ZONEODE_QSS2(512, 0)                        // final for few zones
  ZONEODE_QSS2(256, 1)                        // baseline, lds
  ZONEODE_QSS2(256, 8) ZONEODE_QSS2(512, 8)   // wave; tuned (gfx90a 256, sm_90 512)
#undef ZONEODE_QSS2
  return false;
}

}  // namespace

LaunchPlan plan_qss2(LaunchPlan plan, const LaunchContext& context) {
  plan.min_blocks = 0;  // the variants' launch bounds belong to their asymptotic kernels
  plan.physics = context.physics;  // the run header says which instantiation ran
  if (!with_kernel(plan.block, plan.group, plan.physics, [&](auto kernel) { size_grid(kernel, context, plan); }))
    throw std::invalid_argument("integrator.method: qss2 on the GPU has no kernel for " + std::to_string(plan.block) +
                                " threads and " + std::to_string(plan.group) +
                                " lanes per species (run.kernel_config); it has 128x0, 256x0, 512x0, 256x1, 256x8, 512x8");
  return plan;
}

void launch_qss2(const LaunchPlan& plan, const KernelArgs& args) {
  with_kernel(plan.block, plan.group, plan.physics, [&](auto kernel) {
    kernel<<<plan.grid, plan.block, plan.shared_bytes>>>(args, plan.stage_network, plan.stage_zone);
  });
}

}  // namespace zoneode::gpu
