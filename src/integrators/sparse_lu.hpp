// Sparse LU factorisation and solve of one zone's matrix M = I / (h gamma) - J, over a pattern
// computed once per network on the host (implicit_structure.hpp): rows and columns in a
// fill-reducing (minimum degree) order, the filled pattern as CSR, and the position of every
// update of the elimination in the order the factorisation makes it. Per zone only the values
// (filled_count doubles) and one vector are stored; nothing is N x N.
//
// No pivoting: M's diagonal is 1/(h gamma) - J_ii, and h is cut after a failed step, so M tends to
// I/(h gamma); a zero or non-finite pivot shows as a non-finite solution and the step is rejected
// (as KPP and MICM do). Host/device: raw pointers, fixed order, no allocation.
#pragma once

#include <cstdint>

#include "common/portability.hpp"

namespace zoneode {

struct SparseLuView {
  int n = 0;
  const std::int32_t* order = nullptr;        // order[p]: the species in row/column p of the factor
  const std::int32_t* row_offsets = nullptr;  // filled pattern, rows and columns in factor order,
  const std::int32_t* columns = nullptr;      //   columns ascending within a row
  const std::int32_t* diagonal = nullptr;     // position of (p, p)
  int filled_count = 0;                       // values per zone
  const std::int32_t* update_target = nullptr;  // position of (i, j) for each update, in loop order
};

// In place: values become L (unit diagonal, below) and U (on and above the diagonal).
template <typename Values>
ZONEODE_HD inline void sparse_lu_factor(const SparseLuView& lu, Values a) {
  int update = 0;
  for (int i = 0; i < lu.n; ++i) {
    for (int q = lu.row_offsets[i]; q < lu.diagonal[i]; ++q) {
      const int k = lu.columns[q];
      const double l = a[q] / a[lu.diagonal[k]];
      a[q] = l;
      for (int kj = lu.diagonal[k] + 1; kj < lu.row_offsets[k + 1]; ++kj) a[lu.update_target[update++]] -= l * a[kj];
    }
  }
}

// Solves M x = b with the factors; b and x in species order (x may be b); work holds n values.
template <typename Values, typename In, typename Out, typename Work>
ZONEODE_HD inline void sparse_lu_solve(const SparseLuView& lu, const Values& a, const In& b, Out x, Work work) {
  for (int p = 0; p < lu.n; ++p) {
    double sum = b[lu.order[p]];
    for (int q = lu.row_offsets[p]; q < lu.diagonal[p]; ++q) sum -= a[q] * work[lu.columns[q]];
    work[p] = sum;
  }
  for (int p = lu.n - 1; p >= 0; --p) {
    double sum = work[p];
    for (int q = lu.diagonal[p] + 1; q < lu.row_offsets[p + 1]; ++q) sum -= a[q] * work[lu.columns[q]];
    work[p] = sum / a[lu.diagonal[p]];
  }
  for (int p = 0; p < lu.n; ++p) x[lu.order[p]] = work[p];
}

}  // namespace zoneode
