// The few GPU runtime calls and intrinsics zoneode uses, for HIP (AMD) and CUDA (NVIDIA) alike.
//
// The kernels are HIP sources; on NVIDIA they are compiled by nvcc through this header rather than
// HIP's own NVIDIA layer (Debian's hip/nvidia_detail does not compile with CUDA 13). Wave size is a
// compile-time constant per target (64 on CDNA, 32 on NVIDIA): never warpSize in array sizes or
// launch bounds (ROCm 7 made it a run-time value).
#pragma once

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#define ZONEODE_GPU_PLATFORM "CUDA"
using gpuError_t = cudaError_t;
using gpuEvent_t = cudaEvent_t;
using gpuDeviceProp = cudaDeviceProp;
inline constexpr gpuError_t gpuSuccess = cudaSuccess;
#define gpuGetErrorString cudaGetErrorString
#define gpuGetLastError cudaGetLastError
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuSetDevice cudaSetDevice
#define gpuGetDevice cudaGetDevice
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuDeviceGetPCIBusId cudaDeviceGetPCIBusId
#define gpuMemGetInfo cudaMemGetInfo
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuMemcpy cudaMemcpy
#define gpuMemset cudaMemset
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define gpuDeviceSynchronize cudaDeviceSynchronize
#define gpuEventCreate cudaEventCreate
#define gpuEventDestroy cudaEventDestroy
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventElapsedTime cudaEventElapsedTime
#define gpuFuncSetAttribute cudaFuncSetAttribute
#define gpuFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#define gpuDevAttrMaxSharedMemoryPerBlockOptin cudaDevAttrMaxSharedMemoryPerBlockOptin
#define gpuDeviceGetAttribute cudaDeviceGetAttribute
#elif defined(__HIPCC__)
#include <hip/hip_runtime.h>
#define ZONEODE_GPU_PLATFORM "HIP"
using gpuError_t = hipError_t;
using gpuEvent_t = hipEvent_t;
using gpuDeviceProp = hipDeviceProp_t;
inline constexpr gpuError_t gpuSuccess = hipSuccess;
#define gpuGetErrorString hipGetErrorString
#define gpuGetLastError hipGetLastError
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuSetDevice hipSetDevice
#define gpuGetDevice hipGetDevice
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuDeviceGetPCIBusId hipDeviceGetPCIBusId
#define gpuMemGetInfo hipMemGetInfo
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuMemcpy hipMemcpy
#define gpuMemset hipMemset
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define gpuDeviceSynchronize hipDeviceSynchronize
#define gpuEventCreate hipEventCreate
#define gpuEventDestroy hipEventDestroy
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventElapsedTime hipEventElapsedTime
#define gpuFuncSetAttribute hipFuncSetAttribute
#define gpuFuncAttributeMaxDynamicSharedMemorySize hipFuncAttributeMaxDynamicSharedMemorySize
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor
#define gpuDevAttrMaxSharedMemoryPerBlockOptin hipDeviceAttributeSharedMemPerBlockOptin
#define gpuDeviceGetAttribute hipDeviceGetAttribute
#else
// A host compiler: the team kernels' bodies compiled for their CPU emulation
// (tests/test_asymptotic_team.cpp), which supplies the lanes (a BlockTeam's Lanes). No runtime, no
// intrinsics, no kernel entries here: only what the bodies' declarations need.
#define ZONEODE_GPU_HOST_EMULATION 1
#define __device__
#define __shared__ static  // one block at a time: a function's static is the block's
#endif

// The block size a kernel is always launched with. hipcc needs it: without it gfx90a code is
// compiled for 1024-thread blocks (at most 128 VGPRs). nvcc 13 reads a bare __launch_bounds__(256)
// as a cue to cap registers at 64 (lds: 64 registers and 52 B of spills, against 88 and none
// without; kernels/EXPERIMENTS.md), so on CUDA the bound is left out.
// ZONEODE_BOUNDED(threads, min_blocks) asks for min_blocks resident blocks per multiprocessor
// (CUDA: caps the registers at 65536 / (threads * min_blocks)); on HIP it is the block size alone.
// ZONEODE_WAVES_PER_SIMD(n) (HIP) asks for n waves per SIMD: caps VGPRs so that the kernel keeps
// that occupancy (gfx90a: 4 waves at <= 128 VGPRs); nothing on CUDA.
#if defined(__CUDACC__)
#define ZONEODE_BLOCK_SIZE(threads)
#define ZONEODE_BOUNDED(threads, min_blocks) __launch_bounds__(threads, min_blocks)
#define ZONEODE_WAVES_PER_SIMD(waves)
#else
#define ZONEODE_BLOCK_SIZE(threads) __launch_bounds__(threads)
#define ZONEODE_BOUNDED(threads, min_blocks) __launch_bounds__(threads)
#define ZONEODE_WAVES_PER_SIMD(waves) __attribute__((amdgpu_waves_per_eu(waves)))
#endif

namespace zoneode::gpu {

#if !defined(ZONEODE_GPU_HOST_EMULATION)
#if defined(__CUDACC__)
inline constexpr int wave_size = 32;
#else
inline constexpr int wave_size = 64;  // CDNA (gfx90a); RDNA's wave32 is not a target here
#endif

// The value of the lane `offset` above this one within groups of `width` lanes; every lane of the
// wave must call it (HIP's shuffles take no mask, CUDA's take the whole warp).
__device__ inline double shuffle_down(double value, int offset, int width) {
#if defined(__CUDACC__)
  return __shfl_down_sync(0xffffffffu, value, offset, width);
#else
  return __shfl_down(value, offset, width);
#endif
}

// The value of the lane whose index differs from this one's in the bits of `mask`, within groups
// of `width` lanes; every lane of the wave must call it.
__device__ inline double shuffle_xor(double value, int mask, int width) {
#if defined(__CUDACC__)
  return __shfl_xor_sync(0xffffffffu, value, mask, width);
#else
  return __shfl_xor(value, mask, width);
#endif
}

// The value of lane `source` of this lane's group of `width` lanes; every lane of the wave must call it.
__device__ inline double shuffle_from(double value, int source, int width) {
#if defined(__CUDACC__)
  return __shfl_sync(0xffffffffu, value, source, width);
#else
  return __shfl(value, source, width);
#endif
}

// A barrier for the lanes of one wave: every lane's earlier shared-memory writes are visible to
// the wave's lanes after it (CUDA: __syncwarp; CDNA: the wave's lanes run in step, so a
// wave-scope fence that the compiler cannot move loads or stores across).
__device__ inline void sync_wave() {
#if defined(__CUDACC__)
  __syncwarp();
#else
  __builtin_amdgcn_fence(__ATOMIC_ACQ_REL, "wavefront");
  __builtin_amdgcn_wave_barrier();
#endif
}

// A block barrier that also returns whether `predicate` was true on any thread of the block
// (CUDA and HIP: __syncthreads_or, a barrier with the reduction in hardware).
__device__ inline bool sync_any(bool predicate) { return __syncthreads_or(predicate ? 1 : 0) != 0; }

// The lanes of a device team, as a team's code reaches them (BlockTeam's Lanes, run_zones' LANES):
// the thread's rank and block, the zone counter, the block barriers and the wave's shuffles above. A team's code calls only these,
// so that its body also compiles for the CPU emulation, whose lanes are fibers with waves of any
// width (tests/test_asymptotic_team.cpp).
struct DeviceLanes {
  static constexpr int wave_size = gpu::wave_size;
  // reduce_sums_and_flag's transposed wave sums (EXPERIMENTS.md 24): on NVIDIA; Debian's hipcc
  // spills 40 B per lane of final's gfx90a kernel with them under its 128-VGPR cap, none without.
#if defined(__CUDACC__)
  static constexpr bool transposed_wave_sums = true;
#else
  static constexpr bool transposed_wave_sums = false;
#endif
  __device__ static int rank() { return static_cast<int>(threadIdx.x); }
  __device__ static unsigned block_index() { return blockIdx.x; }
  // The counter's value before this call adds 1 to it (the zone counter, in global memory).
  __device__ static unsigned long long take_next(unsigned long long* counter) { return atomicAdd(counter, 1ull); }
  __device__ static void sync() { __syncthreads(); }
  __device__ static bool sync_any(bool predicate) { return gpu::sync_any(predicate); }
  __device__ static double shuffle_down(double value, int offset, int width) {
    return gpu::shuffle_down(value, offset, width);
  }
  __device__ static double shuffle_xor(double value, int mask, int width) { return gpu::shuffle_xor(value, mask, width); }
  __device__ static double shuffle_from(double value, int source, int width) {
    return gpu::shuffle_from(value, source, width);
  }
};
#else
struct DeviceLanes;  // none on the host: the emulation's team names its own lanes
#endif

// Sum of `value` over `width` consecutive lanes (a power of two <= the wave), in a fixed order:
// lane 0 of each group holds the result. Deterministic: the same bits on every run.
template <int width, typename Lanes = DeviceLanes>
__device__ inline double lane_group_sum(double value) {
#pragma unroll
  for (int offset = width / 2; offset > 0; offset /= 2) value += Lanes::shuffle_down(value, offset, width);
  return value;
}

}  // namespace zoneode::gpu
