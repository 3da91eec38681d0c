// bdf on the GPU (`integrator.method: bdf`, `run.backend: gpu`; issue 37).
//   baseline  one zone per thread: each thread runs bdf::integrate_zone, the CPU's code itself, on
//             one zone at a time, its workspace (Jacobian, LU values, stages and the history of
//             backward differences) interleaved in global memory (bdf_thread.hpp), threads
//             resident, zones from a counter
//   lds       one zone per workgroup (NVIDIA 128 threads, gfx90a 256): bdf_team::integrate_zone
//             (bdf_team.hpp) on the implicit team's flux, Jacobian, LU-phase and wave-solve code,
//             placed as the implicit team places its arrays (LU values and vectors in LDS, the
//             history with the rate factors, fluxes and J entries where they fit)
//   final     lds where a zone's LU values and vectors fit in LDS, else baseline
// Why a team: the thread kernel ran s150 at 2,729 ns per zone-step against the implicit team's
// 1,251 (H100, 2026-12-06; 128 registers, spills, the LU values streamed from device memory at
// every solve), so bdf's fewer, cheaper steps did not pay; the team keeps the LU on chip.
// Self-heating: both kernels carry T9 (the thread kernel runs the serial code, which does; the team
// its HEATING instantiation, bdf_team.hpp), the history one column wider.
// Validation: a team's sums are rounded in another order than the CPU's, and bdf's discrete
// choices (Newton iterations, refactorisation, order) can turn that into another path, as the CPU
// bdf does for rtol one ulp away (tests/test_bdf_team.cpp; kernels/EXPERIMENTS.md).
#include <string>

#include "runtime/gpu_runtime.hpp"
#include "bdf_kernels.hpp"
#include "bdf_team.hpp"
#include "bdf_thread.hpp"
#include "implicit/device_team.hpp"
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
  return plan_thread_slots(c, bdf_thread_block, per_multiprocessor,
                           bdf_slot_doubles(c.implicit_layout, c.species_count, c.self_heating), "bdf, one zone per thread");
}

void launch_bdf_thread(const LaunchPlan& plan, const KernelArgs& args) { bdf_thread_kernel<<<plan.grid, plan.block>>>(args); }

const VariantOps thread_ops{plan_bdf_thread, launch_bdf_thread, prepare_implicit};

// The team: 128 threads on NVIDIA (the implicit team's choice: 128 registers under the bound of 4
// blocks, which LDS allows anyway for s150), 256 on gfx90a (4 waves per CU; unmeasured).
#if defined(__CUDACC__)
constexpr int bdf_team_block = 128;
#else
constexpr int bdf_team_block = 256;
#endif
constexpr int bdf_team_min_blocks = 4;

// The implicit team's cold arrays, then the history (bdf_team::history_doubles, with T9's column
// where self-heating is on).
struct BdfTeamSplit {
  std::int64_t hot = 0, cold = 0, history_at = 0;
};
ZONEODE_HD inline BdfTeamSplit bdf_team_split(const ImplicitWorkspaceLayout& layout, int species, bool self_heating) {
  const ImplicitTeamSplit split = implicit_team_split(layout, species);
  return {split.hot, split.cold + bdf_team::history_doubles(species, self_heating), split.cold};
}

// As implicit_team_kernel (implicit_team.hip): a zone per block from the counter, the zone's arrays
// where the plan put them (a.workspace_doubles: 0 all in LDS; the cold part's size: hot in LDS;
// both: all in global memory). HEATING (with PHYSICS): the self-heated instantiation, launched when
// self-heating is on (LaunchPlan::heating), so that the others keep their registers.
template <bool PHYSICS, bool HEATING, bool BYTE_COLUMNS>
__global__ void ZONEODE_BOUNDED(bdf_team_block, bdf_team_min_blocks) bdf_team_kernel(KernelArgs a) {
  extern __shared__ double shared[];
  __shared__ double scratch[DeviceTeam<bdf_team_block>::scratch_doubles];
  __shared__ unsigned long long zone_slot;
  const DeviceTeam<bdf_team_block> team{scratch};
  const int n = a.step.species_count;
  const ImplicitWorkspaceLayout& layout = a.implicit.layout;
  const BdfTeamSplit split = bdf_team_split(layout, n, HEATING && a.step.self_heating != 0);
  double* block = a.workspace + blockIdx.x * a.workspace_doubles;
  const bool all_global = a.workspace_doubles >= split.hot + split.cold;
  double* hot = all_global ? block : shared;
  double* cold = all_global ? block + split.hot : a.workspace_doubles == 0 ? shared + split.hot : block;
  const ImplicitTeamArrays w = implicit_team_arrays(layout, n, hot, cold);
  double* const history = cold + split.history_at;
  const MethodNetwork network{a.rates, a.step, a.implicit};
  const SparseLuView& lu = a.implicit.lu;
  std::uint8_t* byte_columns = nullptr;
  if constexpr (BYTE_COLUMNS) {
    byte_columns = reinterpret_cast<std::uint8_t*>(shared + split.hot + (a.workspace_doubles == 0 ? split.cold : 0));
    team.for_each(lu.filled_count, [&](int q) { byte_columns[q] = static_cast<std::uint8_t>(lu.columns[q]); });
  }
  for (;;) {
    if (threadIdx.x == 0) zone_slot = atomicAdd(a.next_zone, 1ull);
    __syncthreads();
    const long long zone = static_cast<long long>(zone_slot);
    __syncthreads();  // before thread 0 takes the next zone
    if (zone >= a.zones) break;
    double* Y_zone = a.abundances + zone * n;
    team.for_each(n, [&](int i) { w.Y[i] = Y_zone[i]; });
    ZoneResult result;
    if constexpr (BYTE_COLUMNS) {
      result = bdf_team::integrate_zone<PHYSICS, HEATING>(team, network, a.implicit_schedule, a.settings,
                                                          a.temperature[zone], a.density[zone], w, history,
                                                          implicit_team::ByteColumns{byte_columns});
    } else {
      result = bdf_team::integrate_zone<PHYSICS, HEATING>(team, network, a.implicit_schedule, a.settings,
                                                          a.temperature[zone], a.density[zone], w, history,
                                                          implicit_team::LuColumns{lu.columns});
    }
    team.for_each(n, [&](int i) { Y_zone[i] = w.Y[i]; });
    if (threadIdx.x == 0) a.results[zone] = result;  // with self-heating final_T9 too
  }
}

template <bool PHYSICS, bool HEATING>
LaunchPlan plan_team(const LaunchContext& c) {
  const BdfTeamSplit split = bdf_team_split(c.implicit_layout, c.species_count, HEATING);
  const TeamKernels kernels{reinterpret_cast<const void*>(bdf_team_kernel<PHYSICS, HEATING, false>),
                            reinterpret_cast<const void*>(bdf_team_kernel<PHYSICS, HEATING, true>)};
  LaunchPlan plan = plan_team_placement(c, 1, bdf_team_block, PHYSICS, 8 * DeviceTeam<bdf_team_block>::scratch_doubles + 64,
                                        split.hot, split.cold, kernels, "integrator.method: bdf");
  plan.heating = HEATING;
  return plan;
}

// The instantiation the context asks for: plain, physics, or physics with self-heating.
LaunchPlan plan_bdf_team(const LaunchContext& c) {
  if (c.self_heating) return plan_team<true, true>(c);
  return c.physics ? plan_team<true, false>(c) : plan_team<false, false>(c);
}

void launch_bdf_team(const LaunchPlan& plan, const KernelArgs& args) {
  if (plan.heating && plan.stage_columns) {
    bdf_team_kernel<true, true, true><<<plan.grid, plan.block, plan.shared_bytes>>>(args);
  } else if (plan.heating) {
    bdf_team_kernel<true, true, false><<<plan.grid, plan.block, plan.shared_bytes>>>(args);
  } else if (plan.physics && plan.stage_columns) {
    bdf_team_kernel<true, false, true><<<plan.grid, plan.block, plan.shared_bytes>>>(args);
  } else if (plan.physics) {
    bdf_team_kernel<true, false, false><<<plan.grid, plan.block, plan.shared_bytes>>>(args);
  } else if (plan.stage_columns) {
    bdf_team_kernel<false, false, true><<<plan.grid, plan.block, plan.shared_bytes>>>(args);
  } else {
    bdf_team_kernel<false, false, false><<<plan.grid, plan.block, plan.shared_bytes>>>(args);
  }
}

const VariantOps team_ops{plan_bdf_team, launch_bdf_team, prepare_implicit};

// final: the team where a zone's LU values and vectors fit in LDS (the implicit team's test), else
// the thread kernel.
LaunchPlan plan_bdf_final(const LaunchContext& c) {
  return implicit_team_fits_on_chip(c) ? plan_bdf_team(c) : plan_bdf_thread(c);
}
void launch_bdf_final(const LaunchPlan& plan, const KernelArgs& args) {
  if (plan.kernel == 1) {
    launch_bdf_team(plan, args);
  } else {
    launch_bdf_thread(plan, args);
  }
}
const VariantOps final_ops{plan_bdf_final, launch_bdf_final, prepare_implicit};

}  // namespace

const VariantOps* bdf_variant(KernelVariant variant) {
  switch (variant) {
    case KernelVariant::baseline: return &thread_ops;
    case KernelVariant::lds: return &team_ops;
    case KernelVariant::final: return &final_ops;
    default: return nullptr;
  }
}

std::string bdf_variant_names() {
  return "baseline (one zone per thread), lds (one zone per workgroup), final (lds where a zone's LU fits in LDS, "
         "else baseline)";
}

}  // namespace zoneode::gpu
