// The REACLIB fits tabulated in T9 for self-heating (issue 39, item 4): with T9 in the integrated
// state every step re-evaluates each reaction's lambda(T9) = sum_s exp(fit_s(T9)) at a new T9,
// ~80 ns a set (exp, log, cbrt and two divisions each), 4-8x an unheated step's whole cost.
//
// Scheme. Per reaction, G(u) = ln lambda at u = ln T9 on a uniform grid of step h = 1/64 over
// T9 0.01-10 (443 nodes), with G' and G'' (d/du, analytic: G' = sum lambda_s g_s' / lambda,
// G'' = sum lambda_s (g_s'' + (g_s' - G')^2) / lambda). Between nodes G is the quintic Hermite
// interpolant (error <= h^6 / 46080 max|G^(6)|; the fits' terms in T9^(+-1/3), T9^(+-1), T9^(5/3)
// are smooth in u) and lambda = exp(G) by table_exp (range reduction by ln 2 and a degree-12
// polynomial, within 4e-16, plain arithmetic that the compiler vectorises across reactions).
// The Hermite weights depend on T9 only, so a zone's whole set of factors costs one log and
// ~45 flops a reaction, no libm call per reaction (~8-10 ns a reaction against ~45-80 ns direct,
// one core of the 2-core test machine; 0.5 MiB for s16, 9 MiB for rp-z24 (887 reactions)).
// Checked at build: each reaction's tabulated lambda against the direct sum at 7 points of every
// interval; an interval where it is off by more than build_tolerance (relative), or where ln lambda
// leaves [-690, 690] (underflow at low T9), is not read: the reaction is evaluated directly in that
// interval (RateTableView::direct, a list per interval; until 2026-12-07 a reaction was read only on
// its longest run of good intervals, so a failure in the middle sent it to the fits on one whole
// side); so is every reaction at a T9 below the table. Measured: within 1e-11 over T9 0.01-30; rp-z24
// reads <= 3.2% of its reactions directly at T9 0.5-10 (the longest runs) and <= 1.8% (per interval),
// s16 none. Above T9 10 the fits are held at T9 10
// (rates.hpp), the table's last node.
// Partition functions are not tabulated (their log10 G is piecewise linear in T9: kinks a smooth
// interpolant would miss); the factor is applied as in the direct path.
//
// Host only: the CPU backend sets RateView::fit_table when self-heating is on with physics.eos:
// table (MethodData); device code, every run without self-heating and CPU runs with physics.eos:
// exact (the setting a CPU run compared bit for bit with a GPU one takes) keep it null and evaluate
// the fits directly, so unheated results and every GPU kernel are unchanged.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "network/views.hpp"

namespace zoneode {

// The view RateView::fit_table points at.
struct RateTableView {
  int reaction_count = 0;
  int intervals = 0;       // nodes 0..intervals
  double u_first = 0.0;    // ln T9 of node 0 [ln GK]
  double u_step = 0.0;     // h
  double inv_step = 0.0;   // 1 / h
  double T9_min = 0.0;     // [GK] node 0
  // Node j, reaction r: nodes[(3 j + c) R + r], c = 0: G, 1: h G', 2: h^2 G'' (scaled to t = (u - u_j) / h).
  const double* nodes = nullptr;
  // The reactions evaluated directly in interval j (lambda underflows there, or the check failed
  // there): direct[direct_offsets[j] .. direct_offsets[j + 1]).
  const std::int32_t* direct_offsets = nullptr;  // intervals + 1
  const std::int32_t* direct = nullptr;
};

class RateTable {
 public:
  static constexpr double default_T9_min = 0.01;      // [GK]
  static constexpr double default_step = 1.0 / 64.0;  // in ln T9
  static constexpr double build_tolerance = 1e-11;    // relative, lambda tabulated vs direct
  // The fits of `rates` (partition functions aside); step and tolerance: tests only.
  explicit RateTable(const RateView& rates, double T9_min = default_T9_min, double step = default_step,
                     double tolerance = build_tolerance);
  const RateTableView& view() const { return view_; }
  // The largest relative error of the tabulated lambdas found at build.
  double build_error() const { return build_error_; }
  std::int64_t bytes() const { return static_cast<std::int64_t>(nodes_.size() * sizeof(double)); }

 private:
  std::vector<double> nodes_;
  std::vector<std::int32_t> direct_offsets_, direct_;
  double build_error_ = 0.0;
  RateTableView view_;
};

// exp(x) for |x| <= 700: x = k ln 2 + r, |r| <= ln 2 / 2, exp(r) by its Taylor polynomial of
// degree 12 (truncation 2e-16 relative), 2^k from the bits of the rounded k. Branch-free.
inline double table_exp(double x) {
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
  std::uint64_t bits;
  std::memcpy(&bits, &kd, sizeof bits);  // shifter + k: k in the low mantissa bits
  bits = (bits + 1023u) << 52;           // the biased exponent k + 1023, mantissa 0: 2^k
  double scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

// The quintic Hermite weights at t in [0, 1] (value, h G', h^2 G'' at both ends): G(t) =
// G_0 + w5 (G_1 - G_0) + w1 m_0 + w4 m_1 + w2 c_0 + w3 c_1; hermite_weight_slopes: their d/dt.
struct HermiteWeights {
  double w1, w2, w3, w4, w5;
};
inline HermiteWeights hermite_weights(double t) {
  const double t2 = t * t, t3 = t2 * t, t4 = t3 * t, t5 = t4 * t;
  HermiteWeights w;
  w.w1 = t - 6.0 * t3 + 8.0 * t4 - 3.0 * t5;
  w.w2 = 0.5 * (t2 - 3.0 * t3 + 3.0 * t4 - t5);
  w.w3 = 0.5 * (t3 - 2.0 * t4 + t5);
  w.w4 = -4.0 * t3 + 7.0 * t4 - 3.0 * t5;
  w.w5 = 10.0 * t3 - 15.0 * t4 + 6.0 * t5;
  return w;
}
inline HermiteWeights hermite_weight_slopes(double t) {
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
inline bool rate_table_position(const RateTableView& table, double T9_fit, int& j, double& t) {
  if (!(T9_fit >= table.T9_min)) return false;
  const double s = (log(T9_fit) - table.u_first) * table.inv_step;
  j = static_cast<int>(s);
  if (j >= table.intervals) j = table.intervals - 1;
  if (j < 0) j = 0;
  t = s - j;
  return true;
}

// f(r, ln lambda_r) for every reaction r in order, ln lambda_r the quintic Hermite interpolant of
// interval j at t: the one loop the lambdas and the rate factors below are written with.
template <typename F>
inline void for_each_log_lambda(const RateTableView& table, int j, double t, F f) {
  const int R = table.reaction_count;
  const HermiteWeights w = hermite_weights(t);
  const double* __restrict g0 = table.nodes + static_cast<std::int64_t>(3 * j) * R;
  const double* __restrict m0 = g0 + R;
  const double* __restrict c0 = m0 + R;
  const double* __restrict g1 = c0 + R;
  const double* __restrict m1 = g1 + R;
  const double* __restrict c1 = m1 + R;
  for (int r = 0; r < R; ++r)
    f(r, g0[r] + ((w.w5 * (g1[r] - g0[r]) + w.w1 * m0[r] + w.w4 * m1[r]) + (w.w2 * c0[r] + w.w3 * c1[r])));
}

// lambda_r (the fits' sum) of every tabulated reaction at interval j, t into out[r]; reactions on
// the direct list get a value the caller overwrites.
template <typename Out>
inline void rate_table_lambdas(const RateTableView& table, int j, double t, Out out) {
  for_each_log_lambda(table, j, t, [&](int r, double G) { out[r] = table_exp(G); });
}

// Every tabulated reaction's rate factor without partition functions, rho^power_r lambda_r
// identical_r, multiplied in reaction_rate_factor_fitted's order; rho_power[p] = rho^p by repeated
// multiplication (reaction_density_factor's), powers 0-4 (max_reactants_per_reaction reactants
// with an electron capture's rho). One pass for the table and the factors; the power chosen by bit
// masks, which GCC vectorises with AVX2 (a table lookup or a chain of selects it does not).
inline void rate_table_factors(const RateTableView& table, int j, double t, const double (&rho_power)[5],
                               const std::uint8_t* density_power, const double* identical, double* out) {
  std::uint64_t power_bits[5];
  std::memcpy(power_bits, rho_power, sizeof power_bits);
  for_each_log_lambda(table, j, t, [&](int r, double G) {
    const std::uint64_t p = density_power[r];
    std::uint64_t bits = power_bits[0];
    for (std::uint64_t k = 1; k < 5; ++k) {
      const std::uint64_t mask = 0 - static_cast<std::uint64_t>(p >= k);
      bits = (bits & ~mask) | (power_bits[k] & mask);
    }
    double density;
    std::memcpy(&density, &bits, sizeof density);
    out[r] = density * table_exp(G) * identical[r];
  });
}

// rate_table_lambdas into a double array, the loop compiled twice on x86-64 with GCC or Clang:
// for the baseline (SSE2, two reactions an instruction) and for AVX2 (four), chosen once by the
// CPU it runs on. The two do the same IEEE additions and multiplications in the same order on every
// lane (no contraction, no FMA), so they give the same bits (`RateTable.Avx2AndBaselineGiveTheSameBits`);
// a self-heated CPU step spends most of its extra time here (validation/README.md). `isa`: tests.
enum class RateTableIsa { automatic, baseline, avx2 };
bool rate_table_avx2_available();
void rate_table_lambdas_wide(const RateTableView& table, int j, double t, double* out,
                             RateTableIsa isa = RateTableIsa::automatic);
// rate_table_factors, compiled and chosen the same way.
void rate_table_factors_wide(const RateTableView& table, int j, double t, const double (&rho_power)[5],
                             const std::uint8_t* density_power, const double* identical, double* out,
                             RateTableIsa isa = RateTableIsa::automatic);

// d ln lambda_r / d ln T9 of reaction r at interval j, slope weights w (hermite_weight_slopes(t)).
inline double rate_table_log_slope(const RateTableView& table, int j, const HermiteWeights& w, int r) {
  const int R = table.reaction_count;
  const double* node = table.nodes + static_cast<std::int64_t>(3 * j) * R + r;
  const double g0 = node[0], m0 = node[R], c0 = node[2 * R], g1 = node[3 * R], m1 = node[4 * R], c1 = node[5 * R];
  return ((w.w5 * (g1 - g0) + w.w1 * m0 + w.w4 * m1) + (w.w2 * c0 + w.w3 * c1)) * table.inv_step;
}

}  // namespace zoneode
