// The implicit method on the GPU: which kernels `run.kernel` selects, and their shared preparation.
//   baseline  one zone per thread, workspace interleaved in global memory (implicit_thread.hip)
//   lds       one zone per workgroup of 256 threads, LU values and vectors in LDS (implicit_team.hip)
//   wave      one zone per wave, the same code (implicit_team.hip)
//   final     the automatic choice: lds where its LU values and vectors fit in LDS, else baseline;
//             with run.kernel_choice calibrated, the fastest of the others on the run's first batch,
//             timed over a few steps (gpu_backend.hip's calibration, cached)
//   generated one zone per thread, the network's linear algebra generated and compiled at run time
//             (implicit_generated.hip)
// Every other name is refused with this list (gpu_backend.hip).
#include <stdexcept>
#include <string>

#include "runtime/gpu_runtime.hpp"
#include "implicit_kernels.hpp"
#include "implicit_thread.hpp"  // ImplicitSlots, InputError
#include "integrators/implicit_schedule.hpp"
#include "integrators/implicit_structure.hpp"

namespace zoneode::gpu {

namespace {

constexpr int implicit_schedule_tasks = 128;  // LU tasks per phase: the workgroup team's threads

LaunchPlan plan_final(const LaunchContext& c) {
  return implicit_team_fits_on_chip(c) ? plan_implicit_team(c) : plan_implicit_thread(c);
}
void launch_final(const LaunchPlan& plan, const KernelArgs& args) {
  if (plan.kernel == implicit_thread_kernel_id) {
    launch_implicit_thread(plan, args);
  } else {
    launch_implicit_team(plan, args);
  }
}

const VariantOps thread_ops{plan_implicit_thread, launch_implicit_thread, prepare_implicit};
const VariantOps team_ops{plan_implicit_team, launch_implicit_team, prepare_implicit};
const VariantOps wave_ops{plan_implicit_wave, launch_implicit_team, prepare_implicit};
// final: before its calibration (the backend's, on the first batch) the static choice; its
// preparation also builds the generated kernel (or notes why not), which is one of the candidates.
const VariantOps final_ops{plan_final, launch_final, prepare_implicit_generated_quietly};
const VariantOps generated_ops{plan_implicit_generated, launch_implicit_generated, prepare_implicit_generated};
// final with self-heating: the static choice only (generated, a calibration candidate, has not run
// T's extra solve), so nothing is compiled at run time for it.
const VariantOps static_final_ops{plan_final, launch_final, prepare_implicit};

// The structure's arrays on the device, viewed as on the host (counts and layout by value).
ImplicitView upload_structure(const ImplicitStructure& s, DeviceUploads& up) {
  ImplicitView view = s.view();
  JacobianView& j = view.jacobian;
  j.slot_offsets = up.upload(s.slot_offsets);
  j.term_slot = up.upload(s.term_slot);
  j.term_entry = up.upload(s.term_entry);
  j.term_coefficient = up.upload(s.term_coefficient);
  j.entry_row = up.upload(s.entry_row);
  j.entry_column = up.upload(s.entry_column);
  j.ye_term_slot = up.upload(s.ye_term_slot);
  j.ye_term_species = up.upload(s.ye_term_species);
  j.ye_term_coefficient = up.upload(s.ye_term_coefficient);
  j.energy_term_slot = up.upload(s.energy_term_slot);
  j.energy_term_species = up.upload(s.energy_term_species);
  j.energy_term_coefficient = up.upload(s.energy_term_coefficient);
  SparseLuView& lu = view.lu;
  lu.order = up.upload(s.order);
  lu.row_offsets = up.upload(s.row_offsets);
  lu.columns = up.upload(s.columns);
  lu.diagonal = up.upload(s.diagonal);
  lu.update_target = up.upload(s.update_target);
  view.entry_position = up.upload(s.entry_position);
  return view;
}

ImplicitScheduleView upload_schedule(const ImplicitSchedule& s, DeviceUploads& up) {
  ImplicitScheduleView view = s.view();
  view.gather_coefficient = up.upload(s.gather_coefficient);
  view.gather_slot = up.upload(s.gather_slot);
  view.pieces = up.upload(s.pieces);
  view.multi_items = up.upload(s.multi_items);
  view.matrix_entry = up.upload(s.matrix_entry);
  view.matrix_diagonal = up.upload(s.matrix_diagonal);
  view.column_entry_offsets = up.upload(s.column_entry_offsets);
  view.column_entries = up.upload(s.column_entries);
  view.phase_slots = up.upload(s.phase_slots);
  view.lu_records = up.upload(s.lu_records);
  view.forward_tasks = up.upload(s.forward_tasks);
  view.forward_lanes = up.upload(s.forward_lanes);
  view.backward_tasks = up.upload(s.backward_tasks);
  view.backward_lanes = up.upload(s.backward_lanes);
  return view;
}

}  // namespace

const VariantOps* implicit_variant(KernelVariant variant) {
  switch (variant) {
    case KernelVariant::baseline: return &thread_ops;
    case KernelVariant::lds: return &team_ops;
    case KernelVariant::wave: return &wave_ops;
    case KernelVariant::final: return &final_ops;
    case KernelVariant::generated: return &generated_ops;
    default: return nullptr;
  }
}

std::vector<ImplicitCandidate> implicit_final_candidates(const LaunchContext& context) {
  std::vector<ImplicitCandidate> candidates;
  if (implicit_team_fits_on_chip(context)) {
    candidates.push_back({"lds", &team_ops});
    candidates.push_back({"wave", &wave_ops});
  }
  candidates.push_back({"baseline", &thread_ops});
  if (implicit_generated_ready()) candidates.push_back({"generated", &generated_ops});
  return candidates;
}

const VariantOps* implicit_static_final() { return &static_final_ops; }

std::string implicit_variant_names() {
  return "baseline (one zone per thread), lds (one zone per workgroup), wave (one zone per wave), final (the automatic "
         "choice), generated (one zone per thread, the network's linear algebra compiled at run time)";
}

void prepare_implicit(const CompactNetwork& network, DeviceUploads& uploads, KernelArgs& args, LaunchContext& context) {
  const ImplicitStructure structure(network);
  args.implicit = upload_structure(structure, uploads);
  args.implicit_schedule = upload_schedule(ImplicitSchedule(structure, implicit_schedule_tasks, wave_size), uploads);
  context.implicit_layout = structure.layout();
  // The zones' arrays may take 3/8 of the free memory (GpuBackend::max_batch_zones), the
  // workspaces as much again: a quarter stays free for the runtime and ranks sharing the device.
  std::size_t free = 0, total = 0;
  const gpuError_t status = gpuMemGetInfo(&free, &total);
  if (status != gpuSuccess) throw std::runtime_error(std::string("gpuMemGetInfo: ") + gpuGetErrorString(status));
  context.free_bytes = free;
  context.workspace_budget_bytes = free / 8 * 3;
}

}  // namespace zoneode::gpu
