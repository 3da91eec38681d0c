// The implicit method's kernels (`integrator.method: implicit`, `run.backend: gpu`), behind the
// backend's per-method hook (gpu_backend.hip): which `run.kernel` names the method has, and the
// host preparation they share (the Jacobian pattern and symbolic LU copied to the device once).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/kernel_launch.hpp"

namespace zoneode::gpu {

// The kernel `run.kernel` selects for the implicit method, or null where the method has none.
const VariantOps* implicit_variant(KernelVariant variant);
// final's static choice (lds where the team's LU values and vectors fit in LDS, else baseline),
// without the generated kernel's preparation: self-heated runs.
const VariantOps* implicit_static_final();
// The names the implicit method has, with what each is, for the refusal of the others.
std::string implicit_variant_names();

// Once per run: builds the network's ImplicitStructure on the host, copies its arrays to the device
// (args.implicit views them) and measures the device memory the workspace may take.
void prepare_implicit(const CompactNetwork& network, DeviceUploads& uploads, KernelArgs& args,
                      LaunchContext& context);

// The kernels, by LaunchPlan::kernel.
inline constexpr int implicit_thread_kernel_id = 0, implicit_team_kernel_id = 1, implicit_wave_kernel_id = 2,
                     implicit_generated_kernel_id = 3;

// One zone per thread (implicit_thread.hip).
LaunchPlan plan_implicit_thread(const LaunchContext& context);
// The launch of a one-zone-per-thread kernel over interleaved slots of slot_doubles each (the
// implicit and bdf thread kernels): per_multiprocessor its occupancy, `what` for the run header.
LaunchPlan plan_thread_slots(const LaunchContext& context, int block, int per_multiprocessor, std::int64_t slot_doubles,
                             const std::string& what);
void launch_implicit_thread(const LaunchPlan& plan, const KernelArgs& args);

// One zone per workgroup of 256 threads, or per wave (implicit_team.hip); one launch for both.
LaunchPlan plan_implicit_team(const LaunchContext& context);
LaunchPlan plan_implicit_wave(const LaunchContext& context);
void launch_implicit_team(const LaunchPlan& plan, const KernelArgs& args);
// One zone per thread with the network's generated linear algebra (implicit_generated.hip); its
// prepare compiles (or loads from the cache) the network's code, falling back to final's choice.
void prepare_implicit_generated(const CompactNetwork& network, DeviceUploads& uploads, KernelArgs& args,
                                LaunchContext& context);
// The same without the fallback line (final's preparation: the generated kernel is one of its candidates).
void prepare_implicit_generated_quietly(const CompactNetwork& network, DeviceUploads& uploads, KernelArgs& args,
                                        LaunchContext& context);
bool implicit_generated_ready();
std::string implicit_generated_why_not();  // "" where it is ready
LaunchPlan plan_implicit_generated(const LaunchContext& context);
void launch_implicit_generated(const LaunchPlan& plan, const KernelArgs& args);
// final's candidates (implicit_gpu.hip): every implicit kernel that can run this network here, by
// name, timed by the backend's calibration (gpu_backend.hip) on the run's first batch.
struct ImplicitCandidate {
  const char* name;
  const VariantOps* ops;
};
std::vector<ImplicitCandidate> implicit_final_candidates(const LaunchContext& context);
// The placement of a team kernel's zone arrays (implicit_team.hip; the implicit and bdf teams): hot
// doubles in LDS where they fit, cold ones too where that keeps as many blocks resident, else in a
// per-block global workspace; the LU's column indices as bytes in LDS where they fit. kernels: the
// team kernel without and with the byte columns; static_bytes its static shared memory; `what`
// names the method in the refusal where no zone's workspace fits.
struct TeamKernels {
  const void* plain;
  const void* byte_columns;
};
LaunchPlan plan_team_placement(const LaunchContext& context, int kernel, int size, bool physics, std::size_t static_bytes,
                               std::int64_t hot_doubles, std::int64_t cold_doubles, const TeamKernels& kernels,
                               const std::string& what);
// Whether a 256-thread team's LU values and vectors fit in LDS.
bool implicit_team_fits_on_chip(const LaunchContext& context);

}  // namespace zoneode::gpu
