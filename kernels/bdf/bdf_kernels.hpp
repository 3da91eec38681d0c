// bdf's kernels (`integrator.method: bdf`, `run.backend: gpu`), behind the backend's per-method hook
// (gpu_backend.hip); they share the implicit method's preparation (prepare_implicit: the Jacobian
// pattern and symbolic LU on the device).
#pragma once

#include <string>

#include "runtime/kernel_launch.hpp"

namespace zoneode::gpu {

// The kernel `run.kernel` selects for bdf, or null where there is none.
const VariantOps* bdf_variant(KernelVariant variant);
// The names bdf has, for the refusal of the others.
std::string bdf_variant_names();

}  // namespace zoneode::gpu
