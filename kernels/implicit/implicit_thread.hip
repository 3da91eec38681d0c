// implicit, one zone per thread (`run.kernel: baseline` with `integrator.method: implicit`).
//
// Each thread runs implicit::integrate_zone, the CPU's code itself, on one zone at a time, so a
// result differs from the CPU's only through the device's exp/log/cbrt. Threads stay resident and
// take zones from a counter. The zone's workspace (Jacobian, LU values, stages: 14,469 doubles for
// s150) does not fit on chip, so it lives in global memory, interleaved across the thread slots
// (implicit_thread.hpp): the lanes of a wave doing the same step on their own zones read
// consecutive doubles. The network's arrays are read by every lane at the same index (broadcast).
// The cost is the workspace traffic (the LU alone reads and writes ~1 MB per zone-step for s150),
// so this kernel is bound by device memory bandwidth.
#include <string>

#include "runtime/gpu_runtime.hpp"
#include "implicit_kernels.hpp"
#include "implicit_thread.hpp"

namespace zoneode::gpu {
namespace {

constexpr int implicit_thread_block = 64;  // a multiple of either wave size; occupancy is by registers
// NVIDIA: 8 blocks per SM caps the registers at 128 (167 without a bound; 334 B of spill stores
// at 128, to L1): 512 slots per SM, 67,584 on an H200, so 65,536 zones take one round rather than
// a second round for the 14,848 beyond the 50,688 slots of 6 blocks per SM.
constexpr int implicit_thread_min_blocks = 8;

__global__ void ZONEODE_BOUNDED(implicit_thread_block, implicit_thread_min_blocks)
    implicit_thread_kernel(KernelArgs a) {
  const std::int64_t slots = static_cast<std::int64_t>(gridDim.x) * implicit_thread_block;
  const std::int64_t slot = static_cast<std::int64_t>(blockIdx.x) * implicit_thread_block + threadIdx.x;
  const MethodNetwork network{a.rates, a.step, a.implicit};
  const int S = a.step.species_count;
  for (;;) {
    const long long zone = static_cast<long long>(atomicAdd(a.next_zone, 1ull));
    if (zone >= a.zones) break;
    ZoneResult result;
    integrate_zone_in_slot(network, a.settings, a.workspace, slots, slot, a.temperature[zone], a.density[zone],
                           a.abundances + zone * S, result);
    a.results[zone] = result;
  }
}

}  // namespace

LaunchPlan plan_thread_slots(const LaunchContext& c, int block, int per_multiprocessor, std::int64_t slot_doubles,
                             const std::string& what) {
  if (per_multiprocessor < 1) per_multiprocessor = 1;
  const std::int64_t resident = static_cast<std::int64_t>(per_multiprocessor) * c.multiprocessors * block;
  const std::uint64_t slot_bytes = 8 * static_cast<std::uint64_t>(slot_doubles);
  const ImplicitSlots slots = plan_implicit_slots(c.zones, block, resident, c.multiprocessors, c.workspace_budget_bytes,
                                                  slot_bytes, c.free_bytes, c.species_count);
  LaunchPlan plan;
  plan.block = block;
  plan.grid = static_cast<int>(slots.blocks);
  plan.workspace_doubles = block * slot_doubles;  // per block; interleaved over every slot
  plan.summary = std::to_string(slots.slots) + " thread slots (" + std::to_string(plan.grid) + " blocks x " +
                 std::to_string(plan.block) + ", " + std::to_string(resident) + " resident), " + what + ", " +
                 std::to_string(slot_bytes) + " B of workspace per slot interleaved in global memory (" +
                 std::to_string(slots.slots * slot_bytes) + " B in all)";
  return plan;
}

LaunchPlan plan_implicit_thread(const LaunchContext& c) {
  int per_multiprocessor = 0;
  (void)gpuOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, implicit_thread_kernel,
                                                     implicit_thread_block, 0);
  return plan_thread_slots(c, implicit_thread_block, per_multiprocessor,
                           implicit_slot_doubles(c.implicit_layout, c.species_count), "one zone per thread");
}

void launch_implicit_thread(const LaunchPlan& plan, const KernelArgs& args) {
  implicit_thread_kernel<<<plan.grid, plan.block>>>(args);
}

}  // namespace zoneode::gpu
