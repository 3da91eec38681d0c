// The implicit method on the GPU: which kernels `run.kernel` selects, and their shared preparation.
//   baseline  one zone per thread, workspace interleaved in global memory (implicit_thread.hip)
//   final     the automatic choice (today: baseline)
// Every other name is refused with this list (gpu_backend.hip).
#include <stdexcept>
#include <string>

#include "gpu_runtime.hpp"
#include "implicit_kernels.hpp"
#include "implicit_thread.hpp"
#include "integrators/implicit_structure.hpp"

namespace zoneode::gpu {

namespace {

const VariantOps thread_ops{"baseline", plan_implicit_thread, launch_implicit_thread, prepare_implicit};
const VariantOps final_ops{"final", plan_implicit_thread, launch_implicit_thread, prepare_implicit};

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

}  // namespace

const VariantOps* implicit_variant(KernelVariant variant) {
  switch (variant) {
    case KernelVariant::baseline: return &thread_ops;
    case KernelVariant::final: return &final_ops;
    default: return nullptr;
  }
}

std::string implicit_variant_names() { return "baseline (one zone per thread), final (the automatic choice)"; }

void prepare_implicit(const CompactNetwork& network, DeviceUploads& uploads, KernelArgs& args, LaunchContext& context) {
  const ImplicitStructure structure(network);
  args.implicit = upload_structure(structure, uploads);
  const MethodNetwork view{args.rates, args.step, args.implicit};
  context.slot_doubles = implicit_slot_doubles(view);
  // The zones' arrays may take 3/8 of the free memory (GpuBackend::max_batch_zones), the
  // workspaces as much again: a quarter stays free for the runtime and ranks sharing the device.
  std::size_t free = 0, total = 0;
  const gpuError_t status = gpuMemGetInfo(&free, &total);
  if (status != gpuSuccess) throw std::runtime_error(std::string("gpuMemGetInfo: ") + gpuGetErrorString(status));
  context.free_bytes = free;
  context.workspace_budget_bytes = free / 8 * 3;
}

}  // namespace zoneode::gpu
