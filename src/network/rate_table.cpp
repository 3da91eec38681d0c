#include "network/rate_table.hpp"

#include <algorithm>
#include <cmath>

#include "network/rates.hpp"

namespace zoneode {

namespace {

// ln lambda, d/du and d2/du2 (u = ln T9) of reaction r's fits at T9; false where lambda is 0 or
// not finite. Per set g = a0 + a1 e^-u + a2 e^(-u/3) + a3 e^(u/3) + a4 e^u + a5 e^(5u/3) + a6 u.
bool log_lambda_and_slopes(const RateView& rates, int r, double T9, double& G, double& G1, double& G2) {
  const double T13 = std::cbrt(T9), Tm13 = 1.0 / T13, T53 = T9 * T13 * T13, Tm1 = 1.0 / T9;
  double lambda = 0.0, first = 0.0;
  const int begin = rates.set_offsets[r], end = rates.set_offsets[r + 1];
  for (int s = begin; s < end; ++s) {
    const double* a = rates.set_coefficients + 7 * s;
    const double l = reaclib_set_lambda(a, T9);
    const double g1 = -a[1] * Tm1 - a[2] / 3.0 * Tm13 + a[3] / 3.0 * T13 + a[4] * T9 + 5.0 / 3.0 * a[5] * T53 + a[6];
    lambda += l;
    first += l * g1;
  }
  if (!(lambda > 0.0) || !std::isfinite(lambda)) return false;
  G = std::log(lambda);
  G1 = first / lambda;
  double second = 0.0;
  for (int s = begin; s < end; ++s) {
    const double* a = rates.set_coefficients + 7 * s;
    const double l = reaclib_set_lambda(a, T9);
    const double g1 = -a[1] * Tm1 - a[2] / 3.0 * Tm13 + a[3] / 3.0 * T13 + a[4] * T9 + 5.0 / 3.0 * a[5] * T53 + a[6];
    const double g2 = a[1] * Tm1 + a[2] / 9.0 * Tm13 + a[3] / 9.0 * T13 + a[4] * T9 + 25.0 / 9.0 * a[5] * T53;
    second += l * (g2 + (g1 - G1) * (g1 - G1));
  }
  G2 = second / lambda;
  return std::isfinite(G1) && std::isfinite(G2);
}

// The fits' sum of reaction r at T9, as reaction_rate_factor_fitted sums it.
double direct_lambda(const RateView& rates, int r, double T9) {
  double lambda = 0.0;
  for (int s = rates.set_offsets[r]; s < rates.set_offsets[r + 1]; ++s) {
    lambda += reaclib_set_lambda(rates.set_coefficients + 7 * s, T9);
  }
  return lambda;
}

// The same loop for each instruction set; flatten: rate_table_lambdas and table_exp inlined into
// each, so the AVX2 copy is vectorised with AVX2 and the AVX-512 copy with AVX-512 (8 lanes).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ZONEODE_RATE_TABLE_AVX2 1
#define ZONEODE_RATE_TABLE_AVX512_TARGET "avx512f,avx512dq,avx512vl"
__attribute__((target("avx2"), flatten)) void lambdas_avx2(const RateTableView& table, int j, double t, double* out) {
  rate_table_lambdas(table, j, t, out);
}
__attribute__((target(ZONEODE_RATE_TABLE_AVX512_TARGET), flatten)) void lambdas_avx512(const RateTableView& table,
                                                                                        int j, double t, double* out) {
  rate_table_lambdas(table, j, t, out);
}
__attribute__((target("avx2"), flatten)) void factors_avx2(const RateTableView& table, int j, double t,
                                                           const double (&rho_power)[5], const std::uint8_t* power,
                                                           const double* identical, double* scratch, double* out) {
  rate_table_factors(table, j, t, rho_power, power, identical, scratch, out);
}
__attribute__((target(ZONEODE_RATE_TABLE_AVX512_TARGET), flatten)) void factors_avx512(
    const RateTableView& table, int j, double t, const double (&rho_power)[5], const std::uint8_t* power,
    const double* identical, double* scratch, double* out) {
  rate_table_factors(table, j, t, rho_power, power, identical, scratch, out);
}
#endif
#if defined(__GNUC__) || defined(__clang__)
__attribute__((flatten))
#endif
void lambdas_baseline(const RateTableView& table, int j, double t, double* out) {
  rate_table_lambdas(table, j, t, out);
}
#if defined(__GNUC__) || defined(__clang__)
__attribute__((flatten))
#endif
void factors_baseline(const RateTableView& table, int j, double t, const double (&rho_power)[5],
                      const std::uint8_t* power, const double* identical, double* scratch, double* out) {
  // SSE2 has no 64-bit compare for rate_table_factors' masks: the factors by a lookup (the same
  // products in the same order).
  rate_table_padded_lambdas(table, j, t, scratch);
  for (int r = 0; r < table.reaction_count; ++r) out[r] = rho_power[power[r]] * scratch[r] * identical[r];
}

// The padded lambdas' scratch, one per thread (the CPU backend's threads each integrate zones).
double* padded_scratch(const RateTableView& table) {
  thread_local std::vector<double> scratch;
  if (scratch.size() < static_cast<std::size_t>(table.node_stride)) scratch.resize(table.node_stride);
  return scratch.data();
}

}  // namespace

bool rate_table_avx2_available() {
#ifdef ZONEODE_RATE_TABLE_AVX2
  static const bool available = __builtin_cpu_supports("avx2");
  return available;
#else
  return false;
#endif
}

bool rate_table_avx512_available() {
#ifdef ZONEODE_RATE_TABLE_AVX2
  static const bool available = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                                __builtin_cpu_supports("avx512vl");
  return available;
#else
  return false;
#endif
}

namespace {
// The instruction set a call runs: automatic, the widest the CPU has; another, itself where the CPU
// has it (tests ask for each), else the baseline.
[[maybe_unused]] RateTableIsa chosen_isa(RateTableIsa isa) {
  if (isa == RateTableIsa::avx512 && rate_table_avx512_available()) return isa;
  if (isa == RateTableIsa::avx2 && rate_table_avx2_available()) return isa;
  if (isa == RateTableIsa::automatic) {
    if (rate_table_avx512_available()) return RateTableIsa::avx512;
    if (rate_table_avx2_available()) return RateTableIsa::avx2;
  }
  return RateTableIsa::baseline;
}
}  // namespace

void rate_table_lambdas_wide(const RateTableView& table, int j, double t, double* out, [[maybe_unused]] RateTableIsa isa) {
#ifdef ZONEODE_RATE_TABLE_AVX2
  switch (chosen_isa(isa)) {
    case RateTableIsa::avx512: return lambdas_avx512(table, j, t, out);
    case RateTableIsa::avx2: return lambdas_avx2(table, j, t, out);
    default: break;
  }
#endif
  lambdas_baseline(table, j, t, out);
}

void rate_table_factors_wide(const RateTableView& table, int j, double t, const double (&rho_power)[5],
                             const std::uint8_t* density_power, const double* identical, double* out,
                             [[maybe_unused]] RateTableIsa isa) {
  double* scratch = padded_scratch(table);
#ifdef ZONEODE_RATE_TABLE_AVX2
  switch (chosen_isa(isa)) {
    case RateTableIsa::avx512: return factors_avx512(table, j, t, rho_power, density_power, identical, scratch, out);
    case RateTableIsa::avx2: return factors_avx2(table, j, t, rho_power, density_power, identical, scratch, out);
    default: break;
  }
#endif
  factors_baseline(table, j, t, rho_power, density_power, identical, scratch, out);
}

RateTable::RateTable(const RateView& rates, double T9_min, double step, double tolerance) {
  const int R = rates.reaction_count;
  const double u_last = std::log(reaclib_fit_max_T9);
  const int intervals = std::max(1, static_cast<int>(std::ceil((u_last - std::log(T9_min)) / step)));
  const int S = (R + 7) / 8 * 8;  // node_stride (rate_table_lookup.hpp)
  view_.reaction_count = R;
  view_.node_stride = S;
  view_.intervals = intervals;
  view_.u_step = step;
  view_.inv_step = 1.0 / step;
  view_.u_first = u_last - intervals * step;
  view_.T9_min = std::exp(view_.u_first);
  nodes_.assign(static_cast<std::size_t>(3) * (intervals + 1) * S, 0.0);
  // good[j R + r]: interval j of reaction r passes (both nodes valid, the check within tolerance).
  std::vector<char> valid(static_cast<std::size_t>(intervals + 1) * R, 0), good(static_cast<std::size_t>(intervals) * R, 0);
  constexpr double max_log = 690.0;  // |ln lambda| beyond this: not tabulated (table_exp's range, underflow)
  for (int j = 0; j <= intervals; ++j) {
    const double T9 = (j == intervals) ? reaclib_fit_max_T9 : std::exp(view_.u_first + j * step);
    double* node = nodes_.data() + static_cast<std::size_t>(3 * j) * S;
    for (int r = 0; r < R; ++r) {
      double G = 0.0, G1 = 0.0, G2 = 0.0;
      if (!log_lambda_and_slopes(rates, r, T9, G, G1, G2) || std::fabs(G) > max_log) {
        node[r] = -max_log;  // read (vector loop) but never used: keeps table_exp in range
        continue;
      }
      valid[static_cast<std::size_t>(j) * R + r] = 1;
      node[r] = G;
      node[S + r] = G1 * step;
      node[2 * S + r] = G2 * step * step;
    }
  }
  view_.nodes = nodes_.data();
  // Check: 7 points inside every interval against the direct sum.
  std::vector<double> tabulated(R), worst(R, 0.0), interval_worst(R);
  for (int j = 0; j < intervals; ++j) {
    for (int r = 0; r < R; ++r) {
      const std::size_t k = static_cast<std::size_t>(j) * R + r;
      good[k] = valid[k] && valid[k + R];
      interval_worst[r] = 0.0;
    }
    for (int k = 1; k <= 7; ++k) {
      const double t = k / 8.0;
      const double T9 = std::min(std::exp(view_.u_first + (j + t) * step), reaclib_fit_max_T9);
      int jj = 0;
      double tt = 0.0;
      rate_table_position(view_, T9, jj, tt);
      rate_table_lambdas(view_, jj, tt, tabulated.data());
      for (int r = 0; r < R; ++r) {
        char& ok = good[static_cast<std::size_t>(j) * R + r];
        if (!ok) continue;
        const double exact = direct_lambda(rates, r, T9);
        const double error = std::fabs(tabulated[r] / exact - 1.0);
        if (!(error <= tolerance) || !(std::fabs(std::log(exact)) <= max_log)) ok = 0;
        else interval_worst[r] = std::max(interval_worst[r], error);
      }
    }
    for (int r = 0; r < R; ++r) {
      if (good[static_cast<std::size_t>(j) * R + r]) worst[r] = std::max(worst[r], interval_worst[r]);
    }
  }
  // Each interval: the reactions that failed there, read directly (a reaction may pass on both sides
  // of a failed interval, e.g. where two of its sets cross).
  direct_offsets_.assign(1, 0);
  direct_flags_.assign(static_cast<std::size_t>(intervals) * R, 0);
  for (int j = 0; j < intervals; ++j) {
    for (int r = 0; r < R; ++r) {
      if (good[static_cast<std::size_t>(j) * R + r]) continue;
      direct_.push_back(r);
      direct_flags_[static_cast<std::size_t>(j) * R + r] = 1;
    }
    direct_offsets_.push_back(static_cast<std::int32_t>(direct_.size()));
  }
  for (int r = 0; r < R; ++r) build_error_ = std::max(build_error_, worst[r]);  // over every good interval
  view_.direct_offsets = direct_offsets_.data();
  view_.direct = direct_.data();
  view_.direct_flags = direct_flags_.data();
}

}  // namespace zoneode
