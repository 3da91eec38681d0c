// bdf on the GPU (`integrator.method: bdf`, `run.backend: gpu`; issue 37): one zone per thread.
//   baseline  each thread runs bdf::integrate_zone, the CPU's code itself, on one zone at a time,
//             its workspace (Jacobian, LU values, stages and the history of backward differences)
//             interleaved in global memory (bdf_thread.hpp), threads resident, zones from a counter
//   final     the same (the only kernel so far)
// Why one zone per thread first: bdf reuses the factorisation over many steps, so most of its
// steps are a few Newton iterations of RHS evaluations and triangular solves, the part of the
// implicit step that the thread kernel already runs at device-memory speed; a team version would
// reuse implicit_team.hpp's Jacobian, LU and solve phases (not done yet). A result differs from the
// CPU's only through the device's exp/log/cbrt, so the implicit validation rule applies (same
// accepted and rejected steps on >= 7 of 8 zones, within 1e-3 x rtol).
#include <string>

#include "runtime/gpu_runtime.hpp"
#include "bdf_kernels.hpp"
#include "bdf_thread.hpp"
#include "implicit/implicit_kernels.hpp"

namespace zoneode::gpu {
namespace {

constexpr int bdf_thread_block = 64;      // a multiple of either wave size; occupancy is by registers
constexpr int bdf_thread_min_blocks = 8;  // as the implicit thread kernel: caps the registers at 128 on NVIDIA

__global__ void ZONEODE_BOUNDED(bdf_thread_block, bdf_thread_min_blocks) bdf_thread_kernel(KernelArgs a) {
  const std::int64_t slots = static_cast<std::int64_t>(gridDim.x) * bdf_thread_block;
  const std::int64_t slot = static_cast<std::int64_t>(blockIdx.x) * bdf_thread_block + threadIdx.x;
  const MethodNetwork network{a.rates, a.step, a.implicit};
  const int S = a.step.species_count;
  for (;;) {
    const long long zone = static_cast<long long>(atomicAdd(a.next_zone, 1ull));
    if (zone >= a.zones) break;
    ZoneResult result;
    bdf_integrate_zone_in_slot(network, a.settings, a.workspace, slots, slot, a.temperature[zone], a.density[zone],
                               a.abundances + zone * S, result);
    a.results[zone] = result;
  }
}

LaunchPlan plan_bdf_thread(const LaunchContext& c) {
  int per_multiprocessor = 0;
  (void)gpuOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, bdf_thread_kernel, bdf_thread_block, 0);
  return plan_thread_slots(c, bdf_thread_block, per_multiprocessor, bdf_slot_doubles(c.implicit_layout, c.species_count),
                           "bdf, one zone per thread");
}

void launch_bdf_thread(const LaunchPlan& plan, const KernelArgs& args) { bdf_thread_kernel<<<plan.grid, plan.block>>>(args); }

const VariantOps thread_ops{plan_bdf_thread, launch_bdf_thread, prepare_implicit};

}  // namespace

const VariantOps* bdf_variant(KernelVariant variant) {
  switch (variant) {
    case KernelVariant::baseline:
    case KernelVariant::final: return &thread_ops;
    default: return nullptr;
  }
}

std::string bdf_variant_names() { return "baseline (one zone per thread), final (the same)"; }

}  // namespace zoneode::gpu
