// The GPU backend (HIP or CUDA build): one device per rank, the network copied once, zones in
// batches sized from free device memory, one kernel variant (kernels/) per run.
#pragma once

#include <memory>

#include "backends/backend.hpp"

namespace zoneode {

// Throws std::invalid_argument when the variant is not built, std::runtime_error when no device
// can be used.
std::unique_ptr<Backend> make_gpu_backend(const BackendSelection& selection, const BackendOptions& options);

// Whether the variant was built into this binary (ZONEODE_KERNEL).
bool gpu_kernel_built(KernelVariant variant);

}  // namespace zoneode
