// tuned: block size and lanes per species chosen by a recorded sweep, per target.
//
// Changes from wave: the kernel is instantiated for 128, 256 and 512 threads and 2, 4, 8 or 16
// lanes per species; each target runs the pair its sweep chose (kernels/EXPERIMENTS.md, made by
// scripts/gpu-ladder.sh, which sets ZONEODE_KERNEL_CONFIG=BLOCKxGROUP for each point of the
// sweep). Bigger blocks put more threads on one zone (fewer zones per multiprocessor, shorter
// steps); more lanes per species shorten the longest F+/F- sums but leave lanes idle on species
// with few terms. The launch bound is each instantiation's own block size (HIP only, see
// gpu_runtime.hpp). No AMD GPU was available: gfx90a uses the NVIDIA choice, unmeasured.
#include "kernel_common.hpp"

namespace zoneode::gpu {
namespace {

#if defined(__CUDACC__)
constexpr KernelConfig swept{256, 8};  // H200 sweep (kernels/EXPERIMENTS.md)
#else
constexpr KernelConfig swept{256, 8};  // not measured on an MI250: the NVIDIA choice
#endif

template <int BLOCK, int GROUP>
__global__ void ZONEODE_BLOCK_SIZE(BLOCK) tuned_kernel(KernelArgs args, bool stage_network, bool stage_zone) {
  extern __shared__ double shared[];
  __shared__ double scratch[BlockTeam<BLOCK, Reduction::wave>::scratch_doubles];
  run_zones<BLOCK, Reduction::wave, GROUP, false>(args, stage_network, stage_zone, shared, scratch);
}

// Calls visit(kernel) with the instantiation for (block, group); false if there is none.
template <typename Visit>
bool with_kernel(int block, int group, Visit&& visit) {
#define ZONEODE_TUNED_CASE(B, G) \
  if (block == B && group == G) return visit(tuned_kernel<B, G>), true;
  ZONEODE_TUNED_CASE(128, 2) ZONEODE_TUNED_CASE(128, 4) ZONEODE_TUNED_CASE(128, 8) ZONEODE_TUNED_CASE(128, 16)
  ZONEODE_TUNED_CASE(256, 2) ZONEODE_TUNED_CASE(256, 4) ZONEODE_TUNED_CASE(256, 8) ZONEODE_TUNED_CASE(256, 16)
  ZONEODE_TUNED_CASE(512, 2) ZONEODE_TUNED_CASE(512, 4) ZONEODE_TUNED_CASE(512, 8) ZONEODE_TUNED_CASE(512, 16)
#undef ZONEODE_TUNED_CASE
  return false;
}

LaunchPlan plan(const LaunchContext& context) {
  const KernelConfig config = kernel_config(swept);
  LaunchPlan result;
  if (!with_kernel(config.block, config.group,
                   [&](auto kernel) { result = plan_persistent(kernel, config.block, context, true, true); }))
    throw std::invalid_argument("ZONEODE_KERNEL_CONFIG: tuned has no " + std::to_string(config.block) + "x" +
                                std::to_string(config.group) + " (blocks 128, 256, 512; lanes 2, 4, 8, 16)");
  result.group = config.group;
  return result;
}

void launch(const LaunchPlan& plan, const KernelArgs& args) {
  with_kernel(plan.block, plan.group, [&](auto kernel) {
    kernel<<<plan.grid, plan.block, plan.shared_bytes>>>(args, plan.stage_network, plan.stage_zone);
  });
}

const VariantOps ops{"tuned", plan, launch};

}  // namespace

const VariantOps* tuned_variant() { return &ops; }

}  // namespace zoneode::gpu
