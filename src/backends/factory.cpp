// The one place that maps a selection to a backend.
#include <stdexcept>

#include "backends/backend.hpp"
#include "backends/cpu/cpu_backend.hpp"
#if ZONEODE_HAVE_GPU
#include "runtime/gpu_backend.hpp"  // kernels/
#endif

namespace zoneode {

std::unique_ptr<Backend> make_backend(const BackendSelection& selection, const BackendOptions& options) {
  switch (selection.backend) {
    case BackendKind::cpu:
      return std::make_unique<CpuBackend>(options);
    case BackendKind::gpu:
      // Every method runs on the GPU; which kernels a method has, the GPU backend says.
#if ZONEODE_HAVE_GPU
      return make_gpu_backend(selection, options);
#else
      throw std::invalid_argument(
          "run.backend: 'gpu' is not built in this binary; configure with -DZONEODE_GPU=HIP or -DZONEODE_GPU=CUDA");
#endif
  }
  throw std::invalid_argument("run.backend: unknown backend");
}

std::vector<KernelVariant> built_kernel_variants() {
  std::vector<KernelVariant> built;
#if ZONEODE_HAVE_GPU
  for (KernelVariant variant : kernel_variants)
    if (gpu_kernel_built(variant)) built.push_back(variant);
#endif
  return built;
}

}  // namespace zoneode
