// The generated implicit kernel's fixed part (`run.kernel: generated` with integrator.method:
// implicit; implicit_generated.hip launches it). Compiled when building, as relocatable device code
// (nvcc -rdc=true -fatbin, kernels/CMakeLists.txt), embedded in the program and linked at run time
// (nvJitLink) with the network's generated linear algebra, which NVRTC compiles: the run-time
// compilation is the generated straight-line code alone, not the whole integrator (NVRTC took over
// 5 minutes on the plain integrator by itself on a 2-core machine).
//
// One zone per thread, as the baseline kernel (implicit_thread.hip): each thread runs the serial
// implicit method on its zone (implicit::integrate_zone_with), the workspace interleaved over the
// thread slots in global memory. The linear algebra is the network's code with literal indices
// (src/integrators/implicit_codegen.*); the LU values live in the calling kernel's local array
// (each thread's own, interleaved across the lanes by the hardware), whose size the generated code
// knows. The arithmetic is the serial method's in the serial order: results differ from the CPU's
// only through the device's exp/log/cbrt, as baseline's.
#include "common/strided.hpp"
#include "implicit/implicit_generated_args.hpp"
#include "integrators/implicit.hpp"

// Defined by the generated code (implicit_generated.hip writes it), linked at run time.
extern "C" __device__ void zoneode_generated_factor(double* lu, const double* jacobian, long long jacobian_stride,
                                                    double diagonal);
extern "C" __device__ void zoneode_generated_solve(const double* lu, const double* b, long long b_stride, double* x,
                                                   long long x_stride);

namespace zoneode::gpu {
namespace {

// The policy of implicit::integrate_zone_with over the generated functions.
struct LinkedLinearAlgebra {
  double* lu;
  __device__ void factor(double diagonal, const StridedArray<double>& jacobian) const {
    zoneode_generated_factor(lu, jacobian.data, jacobian.stride, diagonal);
  }
  __device__ void solve(const StridedArray<double>& b, StridedArray<double> x) const {
    zoneode_generated_solve(lu, b.data, b.stride, x.data, x.stride);
  }
};

}  // namespace
}  // namespace zoneode::gpu

// The zones of one thread slot, taken from the counter until none is left; `lu` is the thread's
// array of the network's filled_count LU values. Called by the generated kernel entry.
extern "C" __device__ void zoneode_generated_zones(const void* arguments, double* lu) {
  using namespace zoneode;
  const gpu::GeneratedKernelArgs& a = *static_cast<const gpu::GeneratedKernelArgs*>(arguments);
  const std::int64_t slots = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t slot = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const MethodNetwork network{a.rates, a.step, a.implicit};
  const int S = a.step.species_count;
  const StridedArray<double> workspace{a.workspace + slot, slots};
  const StridedArray<double> Y = workspace + a.implicit.layout.total;  // after the workspace
  const gpu::LinkedLinearAlgebra linear_algebra{lu};
  for (;;) {
    const long long zone = static_cast<long long>(atomicAdd(a.next_zone, 1ull));
    if (zone >= a.zones) break;
    double* Y_zone = a.abundances + zone * S;
    for (int i = 0; i < S; ++i) Y[i] = Y_zone[i];
    ZoneResult result;
    implicit::integrate_zone_with(network, a.settings, a.temperature[zone], a.density[zone], Y, workspace, result,
                                  linear_algebra);
    for (int i = 0; i < S; ++i) Y_zone[i] = Y[i];
    a.results[zone] = result;
  }
}
