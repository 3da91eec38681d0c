// tuned: block size, lanes per species and launch bounds chosen by a recorded sweep, per target.
//
// Changes from wave: the kernel is instantiated for 128, 256 and 512 threads, 4, 8 or 16 lanes
// per species, and with or without a launch bound that asks for more resident blocks per
// multiprocessor (capping registers at 64: 8 blocks of 128, 4 of 256, 2 of 512 threads); each
// target runs the configuration its sweep chose (kernels/EXPERIMENTS.md; the sweep sets
// run.kernel_config=BLOCKxGROUPxMIN_BLOCKS per point).
// Why: wave keeps few threads resident per multiprocessor (2 blocks of 256 at 96 registers on
// NVIDIA), and barriers then stall whole multiprocessors; smaller or more blocks hide them.
// No AMD GPU was available: gfx90a uses the NVIDIA choice, unmeasured (and HIP ignores the bound).
// resources: gfx90a tuned_kernelILi256ELi8E, sm_90 tuned_bounded_kernelILi512ELi8ELi2E (the instantiation each target runs by default;
// scripts/kernel-resources.sh reads this line)
#include "kernel_common.hpp"

namespace zoneode::gpu {
namespace {

#if defined(__CUDACC__)
// The H200 sweep's choice (EXPERIMENTS.md 5).
constexpr KernelConfig swept{512, 8, 2};
#else
constexpr KernelConfig swept{256, 8, 0};  // not measured on an MI250: the NVIDIA choice
#endif

template <int BLOCK, int GROUP>
__global__ void ZONEODE_BLOCK_SIZE(BLOCK) tuned_kernel(KernelArgs args, bool stage_network, bool stage_zone) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<BLOCK, Reduction::wave>::scratch_doubles];
  run_zones<BLOCK, Reduction::wave, GROUP, false>(args, stage_network, stage_zone, shared, scratch);
}

template <int BLOCK, int GROUP, int MIN_BLOCKS>
__global__ void ZONEODE_BOUNDED(BLOCK, MIN_BLOCKS) tuned_bounded_kernel(KernelArgs args, bool stage_network,
                                                                        bool stage_zone) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<BLOCK, Reduction::wave>::scratch_doubles];
  run_zones<BLOCK, Reduction::wave, GROUP, false>(args, stage_network, stage_zone, shared, scratch);
}

// With the physics options' hooks (screening, self-heating: zone_team_physics.hpp), in the swept
// configuration only (a sweep's other configurations run without options).
template <int BLOCK, int GROUP, int MIN_BLOCKS>
__global__ void ZONEODE_BOUNDED(BLOCK, MIN_BLOCKS > 0 ? MIN_BLOCKS : 1)
    tuned_physics_kernel(KernelArgs args, bool stage_network, bool stage_zone) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<BLOCK, Reduction::wave>::scratch_doubles];
  run_zones<BLOCK, Reduction::wave, GROUP, false, false, true>(args, stage_network, stage_zone, shared, scratch);
}

// Calls visit(kernel) with the instantiation for the configuration; false if there is none.
template <typename Visit>
bool with_kernel(const KernelConfig& c, Visit&& visit) {
#define ZONEODE_TUNED(B, G)                                                                        \
  if (c.block == B && c.group == G && c.min_blocks == 0) return visit(tuned_kernel<B, G>), true;   \
  if (c.block == B && c.group == G && c.min_blocks == 65536 / 64 / B)                               \
    return visit(tuned_bounded_kernel<B, G, 65536 / 64 / B>), true;
  ZONEODE_TUNED(128, 4) ZONEODE_TUNED(128, 8) ZONEODE_TUNED(128, 16)
  ZONEODE_TUNED(256, 4) ZONEODE_TUNED(256, 8) ZONEODE_TUNED(256, 16)
  ZONEODE_TUNED(512, 4) ZONEODE_TUNED(512, 8) ZONEODE_TUNED(512, 16)
#undef ZONEODE_TUNED
  return false;
}

LaunchPlan plan(const LaunchContext& context) {
  const KernelConfig config = kernel_config(context, swept);
  LaunchPlan result;
  if (context.physics) {
    const auto kernel = tuned_physics_kernel<swept.block, swept.group, swept.min_blocks>;
    if (config.block != swept.block || config.group != swept.group || config.min_blocks != swept.min_blocks)
      throw std::invalid_argument("run.kernel_config: tuned runs the physics options (screening, partition_functions, "
                                  "self_heating) in " +
                                  config_name(swept) + " only, not " + config_name(config));
    result = plan_persistent(kernel, config.block, context, true, true);
    result.group = config.group;
    result.min_blocks = config.min_blocks;
    result.physics = true;
    return result;
  }
  if (!with_kernel(config, [&](auto kernel) { result = plan_persistent(kernel, config.block, context, true, true); }))
    throw std::invalid_argument("run.kernel_config: tuned has no " + config_name(config) +
                                " (blocks 128, 256, 512; lanes 4, 8, 16; min blocks 0 or 65536 / 64 / block)");
  result.group = config.group;
  result.min_blocks = config.min_blocks;
  return result;
}

void launch(const LaunchPlan& plan, const KernelArgs& args) {
  if (plan.physics) {
    tuned_physics_kernel<swept.block, swept.group, swept.min_blocks>
        <<<plan.grid, plan.block, plan.shared_bytes>>>(args, plan.stage_network, plan.stage_zone);
    return;
  }
  with_kernel({plan.block, plan.group, plan.min_blocks}, [&](auto kernel) {
    kernel<<<plan.grid, plan.block, plan.shared_bytes>>>(args, plan.stage_network, plan.stage_zone);
  });
}

const VariantOps ops{plan, launch};

}  // namespace

const VariantOps* tuned_variant() { return &ops; }

}  // namespace zoneode::gpu
