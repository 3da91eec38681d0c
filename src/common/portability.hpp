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
// The next double after x toward `toward` (std::nextafter on the host, the device library's in
// kernels, where std::nextafter is a host function).
ZONEODE_HD inline double next_after(double x, double toward) {
#if defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)
  return ::nextafter(x, toward);
#else
  return std::nextafter(x, toward);
#endif
}
}  // namespace zoneode
