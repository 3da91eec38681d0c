// The generated implicit kernel's device code (kernels/implicit/implicit_generated.hip compiles it
// at run time with NVRTC or hipRTC, after the network's generated linear algebra, namespace
// zoneode_generated, and the macros ZONEODE_GENERATED_BLOCK and ZONEODE_GENERATED_MIN_BLOCKS).
//
// One zone per thread, as the baseline kernel (implicit_thread.hip): each thread runs the serial
// implicit method on its zone, the workspace interleaved over the thread slots in global memory,
// except the linear algebra, which is the network's straight-line code with the LU values in the
// thread's own local memory (hardware-interleaved across the lanes, addressed by literal offsets):
// no index array is read, and the compiler keeps each LU row in registers while it is eliminated.
#pragma once

#include "common/strided.hpp"
#include "implicit/implicit_generated_args.hpp"
#include "integrators/implicit.hpp"

extern "C" __global__ void __launch_bounds__(ZONEODE_GENERATED_BLOCK, ZONEODE_GENERATED_MIN_BLOCKS)
    zoneode_implicit_generated(zoneode::gpu::GeneratedKernelArgs a) {
  using namespace zoneode;
  const std::int64_t slots = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t slot = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const MethodNetwork network{a.rates, a.step, a.implicit};
  const int S = a.step.species_count;
  const StridedArray<double> workspace{a.workspace + slot, slots};
  const StridedArray<double> Y = workspace + a.implicit.layout.total;  // after the workspace
  for (;;) {
    const long long zone = static_cast<long long>(atomicAdd(a.next_zone, 1ull));
    if (zone >= a.zones) break;
    double* Y_zone = a.abundances + zone * S;
    for (int i = 0; i < S; ++i) Y[i] = Y_zone[i];
    ZoneResult result;
    zoneode_generated::LinearAlgebra linear_algebra;
    implicit::integrate_zone_with(network, a.settings, a.temperature[zone], a.density[zone], Y, workspace, result,
                                  linear_algebra);
    for (int i = 0; i < S; ++i) Y_zone[i] = Y[i];
    a.results[zone] = result;
  }
}
