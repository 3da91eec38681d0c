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

// A host/device function the device compiler keeps out of line: for large bodies called from
// several places (the exact EOS's quadrature: each inlined copy unrolls ~120 Fermi-integrand nodes,
// and five call sites made ptxas spend minutes on one kernel). The host compiler decides as usual.
// Out of line changes no result: contraction is off on both sides.
#if defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)
#define ZONEODE_DEVICE_NOINLINE __noinline__
#else
#define ZONEODE_DEVICE_NOINLINE
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
