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
// Where it is read: the CPU backend sets RateView::fit_table when self-heating is on with
// physics.eos: table (MethodData); the GPU backend builds the same table for the same runs and
// uploads it (the team kernels and the serial kernels read it per reaction, rate_table_lookup.hpp).
// Every run without self-heating, and heated runs with physics.eos: exact (the setting whose CPU
// and GPU runs evaluate every fit directly), keep it null, so their results are unchanged.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "network/rate_table_lookup.hpp"
#include "network/views.hpp"

namespace zoneode {

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
  // The arrays behind view() (the GPU backend uploads them).
  const std::vector<double>& nodes() const { return nodes_; }
  const std::vector<std::int32_t>& direct_offsets() const { return direct_offsets_; }
  const std::vector<std::int32_t>& direct() const { return direct_; }
  const std::vector<std::uint8_t>& direct_flags() const { return direct_flags_; }

 private:
  std::vector<double> nodes_;
  std::vector<std::int32_t> direct_offsets_, direct_;
  std::vector<std::uint8_t> direct_flags_;
  double build_error_ = 0.0;
  RateTableView view_;
};

// f(r, ln lambda_r) for r = 0 .. count - 1 in order (count: the reactions, or the padded
// node_stride), ln lambda_r the quintic Hermite interpolant of interval j at t: the one loop the
// lambdas and the rate factors below are written with.
template <typename F>
inline void for_each_log_lambda(const RateTableView& table, int j, double t, int count, F f) {
  const int S = table.node_stride;
  const HermiteWeights w = hermite_weights(t);
  const double* __restrict g0 = table.nodes + static_cast<std::int64_t>(3 * j) * S;
  const double* __restrict m0 = g0 + S;
  const double* __restrict c0 = m0 + S;
  const double* __restrict g1 = c0 + S;
  const double* __restrict m1 = g1 + S;
  const double* __restrict c1 = m1 + S;
  for (int r = 0; r < count; ++r) f(r, hermite_combine(w, g0[r], m0[r], c0[r], g1[r], m1[r], c1[r]));
}

// lambda_r (the fits' sum) of every tabulated reaction at interval j, t into out[r]; reactions on
// the direct list get a value the caller overwrites.
template <typename Out>
inline void rate_table_lambdas(const RateTableView& table, int j, double t, Out out) {
  for_each_log_lambda(table, j, t, table.reaction_count, [&](int r, double G) { out[r] = table_exp(G); });
}
// The same over every padded slot (out holds node_stride values): whole blocks of 8, no remainder.
inline void rate_table_padded_lambdas(const RateTableView& table, int j, double t, double* __restrict out) {
  for_each_log_lambda(table, j, t, table.node_stride, [&](int r, double G) { out[r] = table_exp(G); });
}

// Every tabulated reaction's rate factor without partition functions, rho^power_r lambda_r
// identical_r, multiplied in reaction_rate_factor_fitted's order; rho_power[p] = rho^p by repeated
// multiplication (reaction_density_factor's), powers 0-4 (max_reactants_per_reaction reactants
// with an electron capture's rho); the power chosen by bit masks, which GCC vectorises with AVX2
// and AVX-512 (a table lookup or a chain of selects it does not). Two passes: the lambdas of every
// padded slot into scratch (node_stride values, whole vectors: s16's 47 reactions spent 60% of a
// one-pass loop's time in its scalar remainder, perf, 2026-12-08), then the factors, whose
// remainder is two products.
inline void rate_table_factors(const RateTableView& table, int j, double t, const double (&rho_power)[5],
                               const std::uint8_t* density_power, const double* identical,
                               double* __restrict scratch, double* __restrict out) {
  rate_table_padded_lambdas(table, j, t, scratch);
  std::uint64_t power_bits[5];
  std::memcpy(power_bits, rho_power, sizeof power_bits);
  for (int r = 0; r < table.reaction_count; ++r) {
    const std::uint64_t p = density_power[r];
    std::uint64_t bits = power_bits[0];
    for (std::uint64_t k = 1; k < 5; ++k) {
      const std::uint64_t mask = 0 - static_cast<std::uint64_t>(p >= k);
      bits = (bits & ~mask) | (power_bits[k] & mask);
    }
    double density;
    std::memcpy(&density, &bits, sizeof density);
    out[r] = density * scratch[r] * identical[r];
  }
}

// rate_table_lambdas into a double array, the loop compiled three times on x86-64 with GCC or
// Clang: for the baseline (SSE2, two reactions an instruction), AVX2 (four) and AVX-512 (eight;
// AMD Zen 4 and later, Intel Skylake-SP and later; LUMI's and Frontier's Zen 3 take AVX2), the
// widest the CPU has chosen once. They do the same IEEE additions and multiplications in the same
// order on every lane (no contraction, no FMA), so they give the same bits
// (`RateTable.Avx2AndBaselineGiveTheSameBits`): results do not depend on the CPU. A self-heated CPU
// step spends most of its extra time here (validation/README.md). `isa`: tests (one the CPU lacks
// runs the baseline).
enum class RateTableIsa { automatic, baseline, avx2, avx512 };
bool rate_table_avx2_available();
bool rate_table_avx512_available();
void rate_table_lambdas_wide(const RateTableView& table, int j, double t, double* out,
                             RateTableIsa isa = RateTableIsa::automatic);
// rate_table_factors, compiled and chosen the same way.
void rate_table_factors_wide(const RateTableView& table, int j, double t, const double (&rho_power)[5],
                             const std::uint8_t* density_power, const double* identical, double* out,
                             RateTableIsa isa = RateTableIsa::automatic);

}  // namespace zoneode
