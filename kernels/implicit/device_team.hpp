// The workgroup as the Team of kernels/implicit/implicit_team.hpp (the implicit and bdf team kernels:
// implicit_team.hip, kernels/bdf/bdf_gpu.hip). Device code only.
#pragma once

#include "runtime/gpu_runtime.hpp"
#include "implicit_team.hpp"

namespace zoneode::gpu {

// A workgroup of SIZE threads as the Team of implicit_team.hpp. scratch: scratch_doubles of shared
// memory, two halves of max_fused x waves (the reductions alternate halves, so one barrier per
// reduction suffices: a thread writes a half again only after the next reduction's barrier, which
// every thread passes only after reading this one).
template <int SIZE>
struct DeviceTeam {
  static_assert(SIZE % wave_size == 0, "whole waves");
  static constexpr int waves = SIZE / wave_size;
  static constexpr int max_fused = 3;  // reduce_fused: up to this many reductions on one barrier
  static constexpr int scratch_doubles = 2 * max_fused * waves;
  double* scratch;
  mutable int buffer = 0;

  template <typename Body>
  __device__ void for_each(int count, Body&& body) const {
    for (int i = static_cast<int>(threadIdx.x); i < count; i += SIZE) body(i);
    __syncthreads();
  }
  // for_each without its barrier: for a pass that reads nothing another thread writes before the
  // next reduction, and whose results are read only after that reduction's barrier completes it.
  template <typename Body>
  __device__ void for_each_unsynced(int count, Body&& body) const {
    for (int i = static_cast<int>(threadIdx.x); i < count; i += SIZE) body(i);
  }
  template <bool MAX, typename Term>
  __device__ double reduce(int count, Term&& term) const {
    double total[1];
    reduce_fused<MAX ? 1 : 0, MAX ? 0 : 1>(count, [&](int i, double (&part)[1]) { part[0] = term(i); }, total);
    return total[0];
  }
  // Several reductions over the same items on one barrier: terms(i, part) writes item i's terms,
  // part[0, MAXIMA) combined by combine_error, part[MAXIMA, MAXIMA + SUMS) added. Each is reduced as
  // max_error() and sum() reduce it (per thread in strided order, the wave's tree, the waves in
  // order): the same bits as separate calls, one barrier instead of MAXIMA + SUMS. terms(i, part)
  // is called once per i, so it may store values (visible after the call).
  template <int MAXIMA, int SUMS, typename Terms>
  __device__ void reduce_fused(int count, Terms&& terms, double (&total)[MAXIMA + SUMS]) const {
    constexpr int N = MAXIMA + SUMS;
    static_assert(N >= 1 && N <= max_fused, "at most max_fused reductions on one barrier");
    auto combine = [](int s, double a, double b) { return s < MAXIMA ? combine_error(a, b) : a + b; };
    double v[N];
#pragma unroll
    for (int s = 0; s < N; ++s) v[s] = 0.0;
    for (int i = static_cast<int>(threadIdx.x); i < count; i += SIZE) {
      double part[N];
      terms(i, part);
#pragma unroll
      for (int s = 0; s < N; ++s) v[s] = combine(s, v[s], part[s]);
    }
#pragma unroll
    for (int offset = wave_size / 2; offset > 0; offset /= 2) {
#pragma unroll
      for (int s = 0; s < N; ++s) v[s] = combine(s, v[s], shuffle_down(v[s], offset, wave_size));
    }
    double* partials = scratch + buffer * max_fused * waves;
    buffer ^= 1;
    if (threadIdx.x % wave_size == 0) {
#pragma unroll
      for (int s = 0; s < N; ++s) partials[s * waves + threadIdx.x / wave_size] = v[s];
    }
    __syncthreads();
#pragma unroll
    for (int s = 0; s < N; ++s) {
      total[s] = partials[s * waves];
      for (int w = 1; w < waves; ++w) total[s] = combine(s, total[s], partials[s * waves + w]);
    }
  }
  template <int N, typename Terms>
  __device__ void sums(int count, Terms&& terms, double (&total)[N]) const {
    reduce_fused<0, N>(count, terms, total);
  }
  template <typename Term>
  __device__ double sum(int count, Term&& term) const {
    return reduce<false>(count, term);
  }
  template <typename Term>
  __device__ double max_error(int count, Term&& term) const {
    return reduce<true>(count, term);
  }
  __device__ int wave_lanes() const { return wave_size; }
  // Groups of `lanes` lanes (a power of two, at most a wave) over the items; the xor butterfly
  // leaves lane 0 of a group with (v0 + v1) + (v2 + v3) ..., the tree the host emulation adds.
  template <int N, typename Part, typename Finish>
  __device__ void group_sums(int count, int lanes, Part&& part, Finish&& finish) const {
    const int groups = SIZE / lanes, lane = static_cast<int>(threadIdx.x) % lanes;
    for (int base = 0; base < count; base += groups) {  // the same rounds on every thread
      const int i = base + static_cast<int>(threadIdx.x) / lanes;
      double v[N];
#pragma unroll
      for (int s = 0; s < N; ++s) v[s] = 0.0;
      if (i < count) part(i, lane, lanes, v);
      for (int mask = 1; mask < lanes; mask *= 2) {
#pragma unroll
        for (int s = 0; s < N; ++s) v[s] += shuffle_xor(v[s], mask, wave_size);
      }
      if (i < count && lane == 0) finish(i, v);
    }
    __syncthreads();
  }
  template <typename Body>
  __device__ void for_each_wave(int count, Body&& body) const {
    for (int i = static_cast<int>(threadIdx.x) / wave_size; i < count; i += waves) body(i);
    __syncthreads();
  }
  // Each lane reads its next round's task (and the round's lanes) before it sums this one: their
  // addresses do not depend on the data, so the loads' latency hides behind the round's work.
  template <typename Part, typename Finish>
  __device__ void wave_rounds(int rounds, const SolveLaneTask* tasks, const std::int32_t* lanes_of, Part&& part,
                              Finish&& finish) const {
    const int lane = static_cast<int>(threadIdx.x) % wave_size;
    if (rounds <= 0) return;
    SolveLaneTask next = tasks[lane];
    int next_lanes = lanes_of[0];
    for (int v = 0; v < rounds; ++v) {
      const SolveLaneTask task = next;
      const int lanes = next_lanes;
      if (v + 1 < rounds) {
        next = tasks[(v + 1) * wave_size + lane];
        next_lanes = lanes_of[v + 1];
      }
      double sum = part(task, lanes);
      for (int mask = 1; mask < lanes; mask *= 2) sum += shuffle_xor(sum, mask, wave_size);
      if (task.row >= 0) finish(task, sum);
      sync_wave();
    }
  }
  // A phase's records are whole slots of the schedule's width (the team's size where the team
  // is the one the schedule was built for; a larger team's threads beyond a phase's records get an
  // empty one). A thread's first record x = threadIdx.x of every phase is loaded during the phase
  // before, its latency (L2: the records are read once per factorisation) hidden behind that
  // phase's work.
  template <typename Count, typename Load, typename Body>
  __device__ void for_each_phase(int phases, Count&& count, Load&& load, Body&& body) const {
    using Record = decltype(load(0, 0));
    const int t = static_cast<int>(threadIdx.x);
    if (phases <= 0) return;
    int next_count = count(0);
    Record next = t < next_count ? load(0, t) : Record{};
    for (int p = 0; p < phases; ++p) {
      const Record current = next;
      const int records = next_count;
      if (p + 1 < phases) {
        next_count = count(p + 1);
        next = t < next_count ? load(p + 1, t) : Record{};
      }
      body(current);
      for (int x = t + SIZE; x < records; x += SIZE) body(load(p, x));
      __syncthreads();
    }
  }
};

}  // namespace zoneode::gpu
