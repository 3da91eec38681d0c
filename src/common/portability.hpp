// Host/device portability for the per-zone maths.
//
// The per-zone functions (rates, fluxes, F+/F- sums, the asymptotic update) are written once and
// compiled by the host compiler for the CPU backend and by hipcc/nvcc for the GPU kernels. They use
// no std containers, exceptions or virtual calls, only this macro and <cmath>.
#pragma once

#if defined(__HIPCC__) || defined(__CUDACC__)
#define ZONEODE_HD __host__ __device__
#else
#define ZONEODE_HD
#endif

#include <cmath>

namespace zoneode {
// isfinite is a std:: template on the host and a global function in device code.
ZONEODE_HD inline bool is_finite(double x) {
#if defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)
  return isfinite(x);
#else
  return std::isfinite(x);
#endif
}
}  // namespace zoneode
