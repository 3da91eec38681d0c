#include "network/generator_arithmetic.hpp"

#include <stdexcept>

#include "common/splitmix64.hpp"

namespace zoneode::generator_detail {

namespace {

// The splitmix64 sequence: the mixer of state + k * increment for k = 1, 2, ...
std::uint64_t next_splitmix64(std::uint64_t& state) {
  const std::uint64_t value = splitmix64(state);
  state += splitmix64_increment;
  return value;
}

}  // namespace

// Natural log from + - * / only: x = m 2^e with m in [sqrt(1/2), sqrt(2)), then
// ln m = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...), s = (m-1)/(m+1), |s| < 0.172, so 22 terms
// reach 1e-33. frexp is exact. Accurate to an ulp or two, identical everywhere.
double det_log(double x) {
  if (!(x > 0.0) || !std::isfinite(x)) throw std::invalid_argument("generator: log of a non-positive or non-finite value");
  int exponent = 0;
  double m = std::frexp(x, &exponent);  // m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    exponent -= 1;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double power = s;
  double sum = 0.0;
  for (int k = 1; k <= 43; k += 2) {
    sum += power / k;
    power *= s2;
  }
  return exponent * ln_2 + 2.0 * sum;
}

// Cube root by Newton's method from + - * /: x = m 2^(3k) with m in [0.5, 4), a fixed number of
// iterations from y = 1 (quadratic convergence; 8 steps are far more than needed).
double det_cbrt(double x) {
  if (!(x > 0.0) || !std::isfinite(x)) throw std::invalid_argument("generator: cube root of a non-positive or non-finite value");
  int exponent = 0;
  double m = std::frexp(x, &exponent);
  int remainder = exponent % 3;
  if (remainder < 0) remainder += 3;
  m = std::ldexp(m, remainder);
  exponent -= remainder;
  double y = 1.0;
  for (int k = 0; k < 8; ++k) y = (2.0 * y + m / (y * y)) / 3.0;
  return std::ldexp(y, exponent / 3);
}

Rng::Rng(std::uint64_t seed) {
  std::uint64_t state = seed;
  for (auto& word : s_) word = next_splitmix64(state);
}

std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t key) {
  std::uint64_t state = seed ^ 0x5a0de0de5a0de0deull;
  const std::uint64_t a = splitmix64(state);
  state = a ^ key;
  return splitmix64(state);
}
}  // namespace zoneode::generator_detail
