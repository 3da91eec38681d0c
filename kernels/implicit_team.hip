// implicit, one zone per workgroup (`run.kernel: lds`, 256 threads) or per wave (`run.kernel:
// wave`) with `integrator.method: implicit`.
//
// The team runs implicit_team::integrate_zone (implicit_team.hpp): the phases of the network's
// ImplicitSchedule with a barrier after each, reductions by wave shuffles and one barrier. Why: the
// one-zone-per-thread kernel streams each zone's LU values from device memory at every update
// (~1 MB per zone-step for s150), where a team keeps them on chip. Placement: the LU values and the
// zone's vectors (the "hot" arrays: 51.6 KB for s150, 46 KB for rp-z24) in LDS where they fit,
// the rate factors, fluxes, flux derivatives and J entries (the "cold" ones) too where that keeps
// as many blocks resident; what is not in LDS is in a per-block workspace in global memory. The
// run header says which. The cost is latency: a triangular solve is a chain of row levels
// (85 for s150), one barrier each, four or five solves per step.
#include <string>

#include "gpu_runtime.hpp"
#include "implicit_kernels.hpp"
#include "implicit_team.hpp"
#include "implicit_thread.hpp"

namespace zoneode::gpu {

namespace {

// A workgroup of SIZE threads as the Team of implicit_team.hpp. scratch: 2 x waves doubles of
// shared memory (the reductions alternate halves, so one barrier per reduction suffices: a thread
// writes a half again only after the next reduction's barrier, which every thread passes only
// after reading this one).
template <int SIZE>
struct DeviceTeam {
  static_assert(SIZE % wave_size == 0, "whole waves");
  static constexpr int waves = SIZE / wave_size;
  double* scratch;
  mutable int buffer = 0;

  template <typename Body>
  __device__ void for_each(int count, Body&& body) const {
    for (int i = static_cast<int>(threadIdx.x); i < count; i += SIZE) body(i);
    __syncthreads();
  }
  template <bool MAX, typename Term>
  __device__ double reduce(int count, Term&& term) const {
    double v = 0.0;
    for (int i = static_cast<int>(threadIdx.x); i < count; i += SIZE) v = MAX ? combine_error(v, term(i)) : v + term(i);
#pragma unroll
    for (int offset = wave_size / 2; offset > 0; offset /= 2) {
      const double other = shuffle_down(v, offset, wave_size);
      v = MAX ? combine_error(v, other) : v + other;
    }
    double* partials = scratch + buffer * waves;
    buffer ^= 1;
    if (threadIdx.x % wave_size == 0) partials[threadIdx.x / wave_size] = v;
    __syncthreads();
    double total = partials[0];
    for (int w = 1; w < waves; ++w) total = MAX ? combine_error(total, partials[w]) : total + partials[w];
    return total;
  }
  template <typename Term>
  __device__ double sum(int count, Term&& term) const {
    return reduce<false>(count, term);
  }
  template <typename Term>
  __device__ double max_error(int count, Term&& term) const {
    return reduce<true>(count, term);
  }
};

// NVIDIA: a 256-thread team is bound to 4 blocks per SM (64 registers, ~0.5 KB of spills to L1)
// rather than 2 (128 registers): LDS holds 4 zones of s150 and the team is latency-bound.
template <int SIZE>
constexpr int implicit_team_min_blocks = SIZE >= 256 ? 4 : 1;

// Placement from the per-block workspace (LaunchPlan::workspace_doubles): none, everything in
// LDS; the cold arrays' size, the hot ones in LDS; both sizes, everything in global memory.
// PHYSICS: the instantiation with screening and self-heating (implicit_team.hpp), launched when an
// option is on (LaunchPlan::physics), so that the plain kernel keeps its registers.
template <int SIZE, bool PHYSICS>
__global__ void ZONEODE_BOUNDED(SIZE, implicit_team_min_blocks<SIZE>) implicit_team_kernel(KernelArgs a) {
  extern __shared__ double shared[];
  __shared__ double scratch[2 * DeviceTeam<SIZE>::waves];
  __shared__ unsigned long long zone_slot;
  const DeviceTeam<SIZE> team{scratch};
  const int n = a.step.species_count;
  const ImplicitWorkspaceLayout& layout = a.implicit.layout;
  const ImplicitTeamSplit split = implicit_team_split(layout, n);
  double* block = a.workspace + blockIdx.x * a.workspace_doubles;
  const bool all_global = a.workspace_doubles >= split.hot + split.cold;
  double* hot = all_global ? block : shared;
  double* cold = all_global ? block + split.hot : a.workspace_doubles == 0 ? shared + split.hot : block;
  const ImplicitTeamArrays w = implicit_team_arrays(layout, n, hot, cold);
  const MethodNetwork network{a.rates, a.step, a.implicit};
  for (;;) {
    if (threadIdx.x == 0) zone_slot = atomicAdd(a.next_zone, 1ull);
    __syncthreads();
    const long long zone = static_cast<long long>(zone_slot);
    __syncthreads();  // before thread 0 takes the next zone
    if (zone >= a.zones) break;
    double* Y_zone = a.abundances + zone * n;
    team.for_each(n, [&](int i) { w.Y[i] = Y_zone[i]; });
    const ZoneResult result = implicit_team::integrate_zone<PHYSICS>(team, network, a.implicit_schedule, a.settings,
                                                            a.temperature[zone], a.density[zone], w);
    team.for_each(n, [&](int i) { Y_zone[i] = w.Y[i]; });
    if (threadIdx.x == 0) a.results[zone] = result;
  }
}

template <int SIZE, bool PHYSICS>
int resident_blocks(std::size_t shared_bytes, const LaunchContext& c) {
  int per_multiprocessor = 0;
  (void)gpuOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, implicit_team_kernel<SIZE, PHYSICS>, SIZE,
                                                     shared_bytes);
  return per_multiprocessor * c.multiprocessors;
}

template <int SIZE, bool PHYSICS>
LaunchPlan plan_team(const LaunchContext& c, int kernel) {
  const ImplicitTeamSplit split = implicit_team_split(c.implicit_layout, c.species_count);
  const std::size_t hot = 8 * static_cast<std::size_t>(split.hot), all = 8 * static_cast<std::size_t>(split.hot + split.cold);
  const std::size_t static_bytes = 16 * DeviceTeam<SIZE>::waves + 64;  // scratch and the zone slot
  const std::size_t room = c.max_shared_bytes > static_bytes ? c.max_shared_bytes - static_bytes : 0;
  (void)gpuFuncSetAttribute(reinterpret_cast<const void*>(implicit_team_kernel<SIZE, PHYSICS>),
                            gpuFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(room));
  LaunchPlan plan;
  plan.block = SIZE;
  plan.kernel = kernel;
  plan.physics = PHYSICS;
  const char* placement = "everything in global memory";
  int resident = resident_blocks<SIZE, PHYSICS>(0, c);
  plan.workspace_doubles = split.hot + split.cold;
  if (hot <= room) {  // the cold arrays too where that keeps as many blocks resident
    const int with_hot = resident_blocks<SIZE, PHYSICS>(hot, c);
    const int with_all = all <= room ? resident_blocks<SIZE, PHYSICS>(all, c) : 0;
    const bool everything = with_all >= with_hot && with_all > 0;
    plan.shared_bytes = everything ? all : hot;
    plan.workspace_doubles = everything ? 0 : split.cold;
    plan.stage_zone = true;
    resident = everything ? with_all : with_hot;
    placement = everything ? "every zone array in LDS" : "LU values and vectors in LDS, rates, fluxes and J in global memory";
  }
  if (resident < 1) resident = 1;
  std::int64_t blocks = c.zones < resident ? (c.zones > 0 ? c.zones : 1) : resident;
  const std::uint64_t block_bytes = 8 * static_cast<std::uint64_t>(plan.workspace_doubles);
  if (block_bytes > 0) {
    const std::int64_t fit = static_cast<std::int64_t>(c.workspace_budget_bytes / block_bytes);
    if (fit < 1)
      throw InputError("integrator.method: implicit on the GPU: one zone in flight needs " + std::to_string(block_bytes) +
                       " bytes of device workspace (" + std::to_string(c.species_count) + " species), and of the " +
                       std::to_string(c.free_bytes) + " bytes free on the device " +
                       std::to_string(c.workspace_budget_bytes) + " may hold workspaces: no zone in flight fits");
    if (fit < blocks) blocks = fit;
  }
  plan.grid = static_cast<int>(blocks);
  plan.summary = std::to_string(plan.grid) + " blocks x " + std::to_string(SIZE) + " threads (" + std::to_string(resident) +
                 " resident), one zone per block, " + std::to_string(plan.shared_bytes) + " B dynamic LDS, " +
                 std::to_string(block_bytes) + " B of global workspace per block, placement: " + placement;
  return plan;
}

}  // namespace

constexpr int implicit_team_block = 256;

LaunchPlan plan_implicit_team(const LaunchContext& c) {
  return c.physics ? plan_team<implicit_team_block, true>(c, implicit_team_kernel_id)
                   : plan_team<implicit_team_block, false>(c, implicit_team_kernel_id);
}
LaunchPlan plan_implicit_wave(const LaunchContext& c) {
  return c.physics ? plan_team<wave_size, true>(c, implicit_wave_kernel_id)
                   : plan_team<wave_size, false>(c, implicit_wave_kernel_id);
}
bool implicit_team_fits_on_chip(const LaunchContext& c) {
  const ImplicitTeamSplit split = implicit_team_split(c.implicit_layout, c.species_count);
  return 8 * static_cast<std::size_t>(split.hot) + 16 * (implicit_team_block / wave_size) + 64 <= c.max_shared_bytes;
}

void launch_implicit_team(const LaunchPlan& plan, const KernelArgs& args) {
  const bool wave = plan.kernel == implicit_wave_kernel_id;
  if (wave && plan.physics) {
    implicit_team_kernel<wave_size, true><<<plan.grid, plan.block, plan.shared_bytes>>>(args);
  } else if (wave) {
    implicit_team_kernel<wave_size, false><<<plan.grid, plan.block, plan.shared_bytes>>>(args);
  } else if (plan.physics) {
    implicit_team_kernel<implicit_team_block, true><<<plan.grid, plan.block, plan.shared_bytes>>>(args);
  } else {
    implicit_team_kernel<implicit_team_block, false><<<plan.grid, plan.block, plan.shared_bytes>>>(args);
  }
}

}  // namespace zoneode::gpu
