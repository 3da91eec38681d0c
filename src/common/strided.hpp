// A per-zone array with a stride: element i of a zone lives at data[i * stride]. Stride 1 is the
// zone-major layout (a workgroup per zone reads one zone's species contiguously); stride = zones
// is the species-major layout (a thread per zone: neighbouring threads read neighbouring zones).
// The per-zone maths takes any array type with operator[], so raw pointers (stride 1) cost nothing.
#pragma once

#include <cstdint>

#include "common/portability.hpp"

namespace zoneode {

template <typename T>
struct StridedArray {
  T* data = nullptr;
  std::int64_t stride = 1;
  ZONEODE_HD T& operator[](std::int64_t i) const { return data[i * stride]; }
  // The array that starts at element i (a workspace cut into arrays, as with a pointer).
  ZONEODE_HD StridedArray operator+(std::int64_t i) const { return {data + i * stride, stride}; }
};

}  // namespace zoneode
