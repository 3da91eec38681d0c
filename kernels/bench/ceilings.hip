// zoneode-ceilings: the device's ceilings that bound a zone-step, measured in the same run as the
// kernels (scripts/gpu-ladder.sh): fp64 FMA rate, shared-memory (LDS) read bandwidth, HBM copy
// bandwidth (bytes read + written), and the rate of the burner's inner term, factor x flux[index]
// accumulated with uint8 factors and uint16 indices all in shared memory, over a synthetic list
// shaped like s150's (5,177 terms over 1,555 fluxes). Each is the median of 5 timed launches after
// a warm-up, timed with events. Prints "name value unit" lines.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "runtime/gpu_runtime.hpp"

namespace {

void check(gpuError_t status, const char* what) {
  if (status != gpuSuccess) {
    std::fprintf(stderr, "zoneode-ceilings: %s: %s\n", what, gpuGetErrorString(status));
    std::exit(1);
  }
}

constexpr int block = 256;
constexpr int fma_chains = 8;
constexpr int fma_iterations = 4096;

__global__ void fma_kernel(double* out, double seed) {
  double a[fma_chains];
#pragma unroll
  for (int c = 0; c < fma_chains; ++c) a[c] = seed + threadIdx.x + c;
  for (int k = 0; k < fma_iterations; ++k) {
#pragma unroll
    for (int c = 0; c < fma_chains; ++c) a[c] = fma(a[c], 0.999999, 1e-7);
  }
  double sum = 0;
#pragma unroll
  for (int c = 0; c < fma_chains; ++c) sum += a[c];
  if (sum == 42.0) out[0] = sum;  // keeps the work; never true
}

constexpr int lds_doubles = 4096;
constexpr int lds_sweeps = 256;

__global__ void lds_kernel(double* out) {
  __shared__ double data[lds_doubles];
  for (int k = threadIdx.x; k < lds_doubles; k += block) data[k] = k;
  __syncthreads();
  double sum = 0;
  for (int s = 0; s < lds_sweeps; ++s)
    for (int k = threadIdx.x; k < lds_doubles; k += block) sum += data[(k + s) & (lds_doubles - 1)];
  if (sum == -1.0) out[0] = sum;
}

__global__ void copy_kernel(const double* __restrict__ from, double* __restrict__ to, std::size_t count) {
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < count;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    to[k] = from[k];
}

constexpr int terms = 5177, fluxes = 1555, term_sweeps = 64;

__global__ void term_kernel(const std::uint16_t* index, const std::uint8_t* factor, double* out) {
  extern __shared__ double shared[];
  double* flux = shared;
  auto* idx = reinterpret_cast<std::uint16_t*>(flux + fluxes);
  auto* fac = reinterpret_cast<std::uint8_t*>(idx + terms);
  for (int k = threadIdx.x; k < fluxes; k += block) flux[k] = 1.0 + k * 1e-3;
  for (int k = threadIdx.x; k < terms; k += block) {
    idx[k] = index[k];
    fac[k] = factor[k];
  }
  __syncthreads();
  double sum = 0;
  for (int s = 0; s < term_sweeps; ++s)
    for (int k = threadIdx.x; k < terms; k += block) sum += fac[k] * flux[idx[k]];
  if (sum == -1.0) out[0] = sum;
}

template <typename Launch>
double median_ms(Launch&& launch) {
  gpuEvent_t start, stop;
  check(gpuEventCreate(&start), "event");
  check(gpuEventCreate(&stop), "event");
  launch();  // warm-up
  check(gpuDeviceSynchronize(), "warm-up");
  std::vector<float> times;
  for (int r = 0; r < 5; ++r) {
    check(gpuEventRecord(start, 0), "record");
    launch();
    check(gpuEventRecord(stop, 0), "record");
    check(gpuEventSynchronize(stop), "synchronize");
    float ms = 0;
    check(gpuEventElapsedTime(&ms, start, stop), "elapsed");
    times.push_back(ms);
  }
  check(gpuGetLastError(), "launch");
  std::sort(times.begin(), times.end());
  return times[2];
}

}  // namespace

int main() {
  gpuDeviceProp properties;
  check(gpuGetDeviceProperties(&properties, 0), "properties");
  const int sms = properties.multiProcessorCount;
  std::printf("device %s %d multiprocessors\n", properties.name, sms);
  double* out = nullptr;
  check(gpuMalloc(reinterpret_cast<void**>(&out), sizeof(double)), "malloc");

  const int grid = sms * 16;
  double ms = median_ms([&] { fma_kernel<<<grid, block>>>(out, 1.0); });
  std::printf("fp64_fma %.4g flop/s\n", 2.0 * fma_chains * fma_iterations * grid * block / (ms * 1e-3));

  ms = median_ms([&] { lds_kernel<<<grid, block>>>(out); });
  std::printf("lds_read %.4g B/s\n", 8.0 * lds_doubles * lds_sweeps * grid / (ms * 1e-3));

  const std::size_t count = std::size_t(1) << 28;  // 2 GiB each way
  double *from = nullptr, *to = nullptr;
  check(gpuMalloc(reinterpret_cast<void**>(&from), count * sizeof(double)), "malloc");
  check(gpuMalloc(reinterpret_cast<void**>(&to), count * sizeof(double)), "malloc");
  check(gpuMemset(from, 0, count * sizeof(double)), "memset");
  ms = median_ms([&] { copy_kernel<<<sms * 8, 512>>>(from, to, count); });
  std::printf("hbm_copy %.4g B/s\n", 2.0 * count * sizeof(double) / (ms * 1e-3));
  check(gpuFree(from), "free");
  check(gpuFree(to), "free");

  std::vector<std::uint16_t> index(terms);
  std::vector<std::uint8_t> factor(terms);
  std::uint64_t state = 12345;
  for (int k = 0; k < terms; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    index[k] = static_cast<std::uint16_t>((state >> 33) % fluxes);
    factor[k] = static_cast<std::uint8_t>(1 + (state >> 61) % 2);
  }
  std::uint16_t* index_device = nullptr;
  std::uint8_t* factor_device = nullptr;
  check(gpuMalloc(reinterpret_cast<void**>(&index_device), terms * sizeof(std::uint16_t)), "malloc");
  check(gpuMalloc(reinterpret_cast<void**>(&factor_device), terms), "malloc");
  check(gpuMemcpy(index_device, index.data(), terms * sizeof(std::uint16_t), gpuMemcpyHostToDevice), "copy");
  check(gpuMemcpy(factor_device, factor.data(), terms, gpuMemcpyHostToDevice), "copy");
  const std::size_t shared = fluxes * 8 + terms * 3 + 8;
  ms = median_ms([&] { term_kernel<<<grid, block, shared>>>(index_device, factor_device, out); });
  std::printf("inner_term %.4g term/s\n", static_cast<double>(terms) * term_sweeps * grid / (ms * 1e-3));
  return 0;
}
