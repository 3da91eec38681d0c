// Deterministic arithmetic and random numbers for the network generator: the same bits on every
// platform and compiler, so that a (species, flux_terms, seed) triple names one network.
//
// Every generator file includes this header first; it also switches fused multiply-add contraction
// off for the rest of the including file, whatever the build flags: a*b+c rounded once instead of
// twice would change the coefficients' last bits, and with them the network.
#pragma once

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(_MSC_VER)
#pragma fp_contract(off)
#endif

#include <array>
#include <cmath>
#include <cstdint>

namespace zoneode::generator_detail {

constexpr double ln_2 = 0.69314718055994530942;
constexpr double ln_10 = 2.30258509299404568402;

// Natural log and cube root from + - * / only (libm's may differ by an ulp between platforms).
// Both throw std::invalid_argument for a non-positive or non-finite argument.
double det_log(double x);
double det_cbrt(double x);

inline double pow_three_halves(double x) { return x * std::sqrt(x); }  // sqrt is exactly rounded

// xoshiro256** (Blackman & Vigna) seeded by splitmix64: integer operations only, no std::
// distributions.
class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits: exact conversion of an integer times 2^-53.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n) without modulo bias (rejection of the incomplete last block).
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
    std::uint64_t x = next();
    while (x >= limit) x = next();
    return x % n;
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<std::uint64_t, 4> s_{};
};

// A stream of its own for each candidate reaction, so that its rate does not depend on which other
// reactions exist (a larger network keeps the rates of the smaller one's reactions).
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t key);

}  // namespace zoneode::generator_detail
