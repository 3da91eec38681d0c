// Reading the REACLIB fits' table (rate_table.hpp builds it on the host): the view, the interval
// and Hermite weights of a T9, and one reaction's value, slope and whether it is read at all. Host
// and device: the CPU's vector loops (rate_table.hpp) and the GPU's per-reaction lookups (a thread
// per reaction in the team kernels, rates.hpp's tabulated_rate_factor) are written with these, in
// the same operations and order, so one table gives both backends the same rate factors up to the
// rounding of one log per T9 (the device's log is not the host's).
#pragma once

#include <cmath>
#include <cstdint>

#include "common/portability.hpp"

#if !defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__)
#include <cstring>
#endif

namespace zoneode {

// The view RateView::fit_table points at (host memory on the CPU backend, device memory on the GPU).
struct RateTableView {
  int reaction_count = 0;
  int intervals = 0;       // nodes 0..intervals
  double u_first = 0.0;    // ln T9 of node 0 [ln GK]
  double u_step = 0.0;     // h
  double inv_step = 0.0;   // 1 / h
  double T9_min = 0.0;     // [GK] node 0
  // Node j, reaction r: nodes[(3 j + c) node_stride + r], c = 0: G, 1: h G', 2: h^2 G'' (scaled to
  // t = (u - u_j) / h). node_stride: R rounded up to a multiple of 8, the padding 0, so that the
  // host's vector loops (4 or 8 lanes) read whole blocks and have no scalar remainder (rate_table.hpp).
  const double* nodes = nullptr;
  int node_stride = 0;
  // The reactions evaluated directly in interval j (lambda underflows there, or the check failed
  // there): direct[direct_offsets[j] .. direct_offsets[j + 1]) (the CPU's loops overwrite them after
  // the vector pass), and the same as flags, direct_flags[j R + r] = 1 (a device thread per reaction
  // asks for its own, no second pass and no write after another thread's).
  const std::int32_t* direct_offsets = nullptr;  // intervals + 1
  const std::int32_t* direct = nullptr;
  const std::uint8_t* direct_flags = nullptr;  // intervals * R
};

namespace rate_table_detail {
// HIP's device pass may see this before hip_runtime.h declares its intrinsics (a kernel file that
// includes this header first): clang's builtin there; CUDA declares its intrinsics implicitly.
ZONEODE_HD inline std::uint64_t bits_of(double x) {
#if defined(__HIP_DEVICE_COMPILE__) || defined(__HIPCC_RTC__)
  return __builtin_bit_cast(std::uint64_t, x);
#elif defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(x));
#else
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
#endif
}
ZONEODE_HD inline double double_of(std::uint64_t bits) {
#if defined(__HIP_DEVICE_COMPILE__) || defined(__HIPCC_RTC__)
  return __builtin_bit_cast(double, bits);
#elif defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(bits));
#else
  double x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
#endif
}
}  // namespace rate_table_detail

// exp(x) for |x| <= 700: x = k ln 2 + r, |r| <= ln 2 / 2, exp(r) by its Taylor polynomial of
// degree 12 (truncation 2e-16 relative), 2^k from the bits of the rounded k. Branch-free, plain
// IEEE additions and multiplications: the same bits on every backend (contraction is off).
// (Estrin's scheme for the tail, tried 2026-12-08: the same accuracy, 3% off the s16 heated step, but
// GCC then compiled the CPU's implicit integrate_zone, where this is inlined, 15% slower on rp-z24
// unheated; kernels/EXPERIMENTS.md.)
ZONEODE_HD inline double table_exp(double x) {
  constexpr double inv_ln2 = 1.4426950408889634;
  constexpr double shifter = 6755399441055744.0;        // 1.5 * 2^52: x / ln 2 + shifter rounds to an integer
  constexpr double ln2_hi = 6.93147180369123816490e-01;  // fdlibm's split of ln 2: k ln2_hi exact
  constexpr double ln2_lo = 1.90821492927058770002e-10;
  const double kd = x * inv_ln2 + shifter;
  const double k = kd - shifter;
  const double r = (x - k * ln2_hi) - k * ln2_lo;
  double p = 1.0 / 479001600.0;  // 1/12!
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  // shifter + k holds k in the low mantissa bits: (bits + 1023) << 52 is 2^k's biased exponent
  const std::uint64_t bits = (rate_table_detail::bits_of(kd) + 1023u) << 52;
  return p * rate_table_detail::double_of(bits);
}

// The quintic Hermite weights at t in [0, 1] (value, h G', h^2 G'' at both ends): G(t) =
// G_0 + w5 (G_1 - G_0) + w1 m_0 + w4 m_1 + w2 c_0 + w3 c_1; hermite_weight_slopes: their d/dt.
struct HermiteWeights {
  double w1, w2, w3, w4, w5;
};
ZONEODE_HD inline HermiteWeights hermite_weights(double t) {
  const double t2 = t * t, t3 = t2 * t, t4 = t3 * t, t5 = t4 * t;
  HermiteWeights w;
  w.w1 = t - 6.0 * t3 + 8.0 * t4 - 3.0 * t5;
  w.w2 = 0.5 * (t2 - 3.0 * t3 + 3.0 * t4 - t5);
  w.w3 = 0.5 * (t3 - 2.0 * t4 + t5);
  w.w4 = -4.0 * t3 + 7.0 * t4 - 3.0 * t5;
  w.w5 = 10.0 * t3 - 15.0 * t4 + 6.0 * t5;
  return w;
}
ZONEODE_HD inline HermiteWeights hermite_weight_slopes(double t) {
  const double t2 = t * t, t3 = t2 * t, t4 = t3 * t;
  HermiteWeights w;
  w.w1 = 1.0 - 18.0 * t2 + 32.0 * t3 - 15.0 * t4;
  w.w2 = 0.5 * (2.0 * t - 9.0 * t2 + 12.0 * t3 - 5.0 * t4);
  w.w3 = 0.5 * (3.0 * t2 - 8.0 * t3 + 5.0 * t4);
  w.w4 = -12.0 * t2 + 28.0 * t3 - 15.0 * t4;
  w.w5 = 30.0 * t2 - 60.0 * t3 + 30.0 * t4;
  return w;
}

// Where T9_fit [GK] (<= 10) falls: interval j and t; false below the table (or NaN).
ZONEODE_HD inline bool rate_table_position(const RateTableView& table, double T9_fit, int& j, double& t) {
  if (!(T9_fit >= table.T9_min)) return false;
  const double s = (log(T9_fit) - table.u_first) * table.inv_step;
  j = static_cast<int>(s);
  if (j >= table.intervals) j = table.intervals - 1;
  if (j < 0) j = 0;
  t = s - j;
  return true;
}

// The interpolant's weighted sum of an interval's six nodes without G_0 (with slope weights: h
// times its slope), and with it, its value (for_each_log_lambda's loop and the per-reaction reads
// below: one expression, one rounding).
ZONEODE_HD inline double hermite_increment(const HermiteWeights& w, double g0, double m0, double c0, double g1,
                                           double m1, double c1) {
  return (w.w5 * (g1 - g0) + w.w1 * m0 + w.w4 * m1) + (w.w2 * c0 + w.w3 * c1);
}
ZONEODE_HD inline double hermite_combine(const HermiteWeights& w, double g0, double m0, double c0, double g1, double m1,
                                         double c1) {
  return g0 + hermite_increment(w, g0, m0, c0, g1, m1, c1);
}

// ln lambda_r at interval j, weights w (hermite_weights(t)); reaction r's slope d ln lambda_r /
// d ln T9 with slope weights (hermite_weight_slopes(t)).
ZONEODE_HD inline double rate_table_log_lambda(const RateTableView& table, int j, const HermiteWeights& w, int r) {
  const int R = table.node_stride;
  const double* node = table.nodes + static_cast<std::int64_t>(3 * j) * R + r;
  return hermite_combine(w, node[0], node[R], node[2 * R], node[3 * R], node[4 * R], node[5 * R]);
}
ZONEODE_HD inline double rate_table_log_slope(const RateTableView& table, int j, const HermiteWeights& w, int r) {
  const int R = table.node_stride;
  const double* node = table.nodes + static_cast<std::int64_t>(3 * j) * R + r;
  return hermite_increment(w, node[0], node[R], node[2 * R], node[3 * R], node[4 * R], node[5 * R]) * table.inv_step;
}

// Whether reaction r is evaluated from its fits in interval j (not read from the table).
ZONEODE_HD inline bool rate_table_direct(const RateTableView& table, int j, int r) {
  return table.direct_flags[static_cast<std::int64_t>(j) * table.reaction_count + r] != 0;
}

}  // namespace zoneode
