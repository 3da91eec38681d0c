// splitmix64 (Steele, Lea and Flood; Vigna's constants): a stateless 64-bit mixer. Integer
// operations only, so the same input gives the same output everywhere.
#pragma once

#include <cstdint>

namespace zoneode {

inline constexpr std::uint64_t splitmix64_increment = 0x9E3779B97F4A7C15ull;

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += splitmix64_increment;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace zoneode
