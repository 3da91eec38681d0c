// implicit, one zone per workgroup (`run.kernel: lds`; NVIDIA 128 threads, gfx90a 256) or per wave
// (`run.kernel: wave`) with `integrator.method: implicit`.
//
// The team runs implicit_team::integrate_zone (implicit_team.hpp): the phases of the network's
// ImplicitSchedule with a barrier after each, reductions by wave shuffles and one barrier. Why: the
// one-zone-per-thread kernel streams each zone's LU values from device memory at every update
// (~1 MB per zone-step for s150), where a team keeps them on chip. Placement: the LU values and the
// zone's vectors (the "hot" arrays: 51.6 KB for s150, 46 KB for rp-z24) in LDS where they fit,
// then the LU's column indices as bytes, the rate factors, fluxes, flux derivatives and J entries
// (the "cold" ones) too where that keeps as many blocks resident; what is not in LDS is in a
// per-block workspace in global memory. The run header says which. The cost is latency: a
// triangular solve is a chain of row levels (85 for s150), four or five solves per step; each
// runs on one wave with a wave barrier per level (EXPERIMENTS.md, the implicit team kernel: the
// block barrier per level and one lane per row were half of the step's time).
#include <stdexcept>
#include <string>

#include "runtime/gpu_runtime.hpp"
#include "device_team.hpp"
#include "implicit_kernels.hpp"
#include "implicit_team.hpp"
#include "implicit_thread.hpp"

namespace zoneode::gpu {

namespace {

// LDS holds 4 zones of s150 per multiprocessor, so a team is bound to 4 resident blocks (128
// threads: 128 registers; 256: 64 registers and spills; EXPERIMENTS.md, the implicit kernel).
template <int SIZE>
constexpr int implicit_team_min_blocks = SIZE >= 128 ? 4 : 1;

// Placement from the per-block workspace (LaunchPlan::workspace_doubles): none, everything in
// LDS; the cold arrays' size, the hot ones in LDS; both sizes, everything in global memory.
// PHYSICS: the instantiation with screening (implicit_team.hpp), launched when an option is on
// (LaunchPlan::physics), so that the plain kernel keeps its registers; HEATING (with PHYSICS): the
// one with self-heating (T9 in the state), launched when it is on (LaunchPlan::heating), so that
// the physics kernel without it keeps its registers too. BYTE_COLUMNS: the LU's
// column indices copied into LDS as bytes after the zone's arrays (networks of at most 256
// species, where that keeps as many blocks resident: LaunchPlan::stage_columns).
template <int SIZE, bool PHYSICS, bool HEATING, bool BYTE_COLUMNS>
__global__ void ZONEODE_BOUNDED(SIZE, implicit_team_min_blocks<SIZE>) implicit_team_kernel(KernelArgs a) {
  extern __shared__ double shared[];
  __shared__ double scratch[DeviceTeam<SIZE>::scratch_doubles];
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
      result = implicit_team::integrate_zone<PHYSICS, HEATING>(team, network, a.implicit_schedule, a.settings,
                                                               a.temperature[zone], a.density[zone], w,
                                                               implicit_team::ByteColumns{byte_columns});
    } else {
      result = implicit_team::integrate_zone<PHYSICS, HEATING>(team, network, a.implicit_schedule, a.settings,
                                                               a.temperature[zone], a.density[zone], w,
                                                               implicit_team::LuColumns{lu.columns});
    }
    team.for_each(n, [&](int i) { Y_zone[i] = w.Y[i]; });
    if (threadIdx.x == 0) a.results[zone] = result;  // with self-heating final_T9 too (gpu_backend.hip reads it)
  }
}

template <int SIZE, bool PHYSICS, bool HEATING>
LaunchPlan plan_team(const LaunchContext& c, int kernel) {
  const ImplicitTeamSplit split = implicit_team_split(c.implicit_layout, c.species_count);
  const TeamKernels kernels{reinterpret_cast<const void*>(implicit_team_kernel<SIZE, PHYSICS, HEATING, false>),
                            reinterpret_cast<const void*>(implicit_team_kernel<SIZE, PHYSICS, HEATING, true>)};
  LaunchPlan plan = plan_team_placement(c, kernel, SIZE, PHYSICS, 8 * DeviceTeam<SIZE>::scratch_doubles + 64, split.hot,
                                        split.cold, kernels, "integrator.method: implicit");
  plan.heating = HEATING;
  return plan;
}

// The instantiation the context asks for: plain, physics, or physics with self-heating.
template <int SIZE>
LaunchPlan plan_team_for(const LaunchContext& c, int kernel) {
  if (c.self_heating) return plan_team<SIZE, true, true>(c, kernel);
  return c.physics ? plan_team<SIZE, true, false>(c, kernel) : plan_team<SIZE, false, false>(c, kernel);
}

template <int SIZE>
void launch_team(const LaunchPlan& plan, const KernelArgs& args) {
  if (plan.heating && plan.stage_columns) {
    implicit_team_kernel<SIZE, true, true, true><<<plan.grid, plan.block, plan.shared_bytes>>>(args);
  } else if (plan.heating) {
    implicit_team_kernel<SIZE, true, true, false><<<plan.grid, plan.block, plan.shared_bytes>>>(args);
  } else if (plan.physics && plan.stage_columns) {
    implicit_team_kernel<SIZE, true, false, true><<<plan.grid, plan.block, plan.shared_bytes>>>(args);
  } else if (plan.physics) {
    implicit_team_kernel<SIZE, true, false, false><<<plan.grid, plan.block, plan.shared_bytes>>>(args);
  } else if (plan.stage_columns) {
    implicit_team_kernel<SIZE, false, false, true><<<plan.grid, plan.block, plan.shared_bytes>>>(args);
  } else {
    implicit_team_kernel<SIZE, false, false, false><<<plan.grid, plan.block, plan.shared_bytes>>>(args);
  }
}

// Threads of the `lds` team unless run.kernel_config asks for 128x0 or 256x0. NVIDIA: 128 (4 warps,
// 128 registers under the bound of the 4 blocks that LDS allows anyway; 256 threads get 64 and
// spill); the solves run on waves and need no more (EXPERIMENTS.md, the implicit kernel). gfx90a:
// 256 (LDS holds one zone per CU, so 4 waves per CU rather than 2; unmeasured).
#if defined(__CUDACC__)
constexpr int implicit_team_block = 128;
#else
constexpr int implicit_team_block = 256;
#endif

int team_block(const LaunchContext& c) {
  const KernelConfig config = kernel_config(c, {implicit_team_block, 0, 0});
  if ((config.block == 128 || config.block == 256) && config.group == 0 && config.min_blocks == 0) return config.block;
  throw std::invalid_argument("run.kernel_config: the implicit team kernel runs 128x0 or 256x0, not " + config_name(config));
}

}  // namespace

// The placement of a team kernel's zone arrays (the implicit and bdf teams): `hot` doubles (Y, the
// LU values and vectors) in LDS where they fit, the `cold` ones (rate factors, fluxes, flux
// derivatives, J entries; bdf's history) too where that keeps as many blocks resident, else in a
// per-block workspace in global memory; the LU's column indices as bytes in LDS where they fit
// without a block fewer resident (networks of at most 256 species).
LaunchPlan plan_team_placement(const LaunchContext& c, int kernel, int size, bool physics, std::size_t static_bytes,
                               std::int64_t hot_doubles, std::int64_t cold_doubles, const TeamKernels& kernels,
                               const std::string& what) {
  const std::size_t hot = 8 * static_cast<std::size_t>(hot_doubles),
                    all = 8 * static_cast<std::size_t>(hot_doubles + cold_doubles);
  const std::int64_t filled = c.implicit_layout.energy_row - c.implicit_layout.matrix;  // the LU's positions
  if (filled - 1 > lu_record_max_position)
    throw std::invalid_argument(what + ": the team kernels' LU schedule holds at most " +
                                std::to_string(lu_record_max_position + 1) + " filled positions, this network has " +
                                std::to_string(filled) + " (" + std::to_string(8 * filled / 1024) +
                                " KB of LU a zone); use run.kernel: baseline");
  const std::size_t column_bytes = (static_cast<std::size_t>(filled) + 7) / 8 * 8;
  const std::size_t room = c.max_shared_bytes > static_bytes ? c.max_shared_bytes - static_bytes : 0;
  for (const void* k : {kernels.plain, kernels.byte_columns})
    (void)gpuFuncSetAttribute(k, gpuFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(room));
  auto resident_blocks = [&](const void* k, std::size_t shared_bytes) {
    int per_multiprocessor = 0;
    (void)gpuOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, k, size, shared_bytes);
    return per_multiprocessor * c.multiprocessors;
  };
  LaunchPlan plan;
  plan.block = size;
  plan.kernel = kernel;
  plan.physics = physics;
  std::string placement = "everything in global memory";
  int resident = resident_blocks(kernels.plain, 0);
  plan.workspace_doubles = hot_doubles + cold_doubles;
  if (hot <= room) {  // the cold arrays too where that keeps as many blocks resident
    const int with_hot = resident_blocks(kernels.plain, hot);
    const int with_all = all <= room ? resident_blocks(kernels.plain, all) : 0;
    const bool everything = with_all >= with_hot && with_all > 0;
    plan.shared_bytes = everything ? all : hot;
    plan.workspace_doubles = everything ? 0 : cold_doubles;
    plan.stage_zone = true;
    resident = everything ? with_all : with_hot;
    placement = everything ? "every zone array in LDS" : "LU values and vectors in LDS, rates, fluxes and J in global memory";
    if (c.species_count <= 256 && plan.shared_bytes + column_bytes <= room &&
        resident_blocks(kernels.byte_columns, plan.shared_bytes + column_bytes) >= resident) {
      plan.shared_bytes += column_bytes;
      plan.stage_columns = true;
      placement += ", LU column indices in LDS (bytes)";
    }
  }
  if (resident < 1) resident = 1;
  std::int64_t blocks = c.zones < resident ? (c.zones > 0 ? c.zones : 1) : resident;
  const std::uint64_t block_bytes = 8 * static_cast<std::uint64_t>(plan.workspace_doubles);
  if (block_bytes > 0) {
    const std::int64_t fit = static_cast<std::int64_t>(c.workspace_budget_bytes / block_bytes);
    if (fit < 1)
      throw InputError(what + " on the GPU: one zone in flight needs " + std::to_string(block_bytes) +
                       " bytes of device workspace (" + std::to_string(c.species_count) + " species), and of the " +
                       std::to_string(c.free_bytes) + " bytes free on the device " +
                       std::to_string(c.workspace_budget_bytes) + " may hold workspaces: no zone in flight fits");
    if (fit < blocks) blocks = fit;
  }
  plan.grid = static_cast<int>(blocks);
  plan.summary = std::to_string(plan.grid) + " blocks x " + std::to_string(size) + " threads (" + std::to_string(resident) +
                 " resident), one zone per block, " + std::to_string(plan.shared_bytes) + " B dynamic LDS, " +
                 std::to_string(block_bytes) + " B of global workspace per block, placement: " + placement;
  return plan;
}

LaunchPlan plan_implicit_team(const LaunchContext& c) {
  if (team_block(c) == 256) return plan_team_for<256>(c, implicit_team_kernel_id);
  return plan_team_for<128>(c, implicit_team_kernel_id);
}
LaunchPlan plan_implicit_wave(const LaunchContext& c) { return plan_team_for<wave_size>(c, implicit_wave_kernel_id); }
bool implicit_team_fits_on_chip(const LaunchContext& c) {
  const ImplicitTeamSplit split = implicit_team_split(c.implicit_layout, c.species_count);
  // the largest team's scratch and the zone slot, as plan_team counts them
  return 8 * static_cast<std::size_t>(split.hot) + 8 * DeviceTeam<256>::scratch_doubles + 64 <= c.max_shared_bytes;
}

void launch_implicit_team(const LaunchPlan& plan, const KernelArgs& args) {
  if (plan.kernel == implicit_wave_kernel_id) {
    launch_team<wave_size>(plan, args);
  } else if (plan.block == 256) {
    launch_team<256>(plan, args);
  } else {
    launch_team<128>(plan, args);
  }
}

}  // namespace zoneode::gpu
