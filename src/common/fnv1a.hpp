// FNV-1a, 64 bit: a stable hash of bytes, the same on every platform of one endianness.
#pragma once

#include <cstddef>
#include <cstdint>

namespace zoneode {

struct Fnv1a {
  std::uint64_t value = 1469598103934665603ull;
  void bytes(const void* data, std::size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t k = 0; k < size; ++k) {
      value ^= p[k];
      value *= 1099511628211ull;
    }
  }
  template <typename T>
  void add(const T& scalar) {
    bytes(&scalar, sizeof scalar);
  }
};

}  // namespace zoneode
