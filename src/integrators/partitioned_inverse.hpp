// The implicit method's triangular solves as a partitioned inverse (issue 36; host reference, the
// design a team kernel would map: kernels/EXPERIMENTS.md, "The solves as a partitioned inverse").
//
// The team kernels solve L y = P b and U x = y by the levels of the elimination DAG, one dependent
// round per level (s150: 85 + 85). Here the levels of each factor are cut into `partitions`
// consecutive ranges; L is the product of its partitions' factors L_t (the elementary column
// factors of the columns whose level is in range t, in level order: columns of one level are
// independent, so any level order gives L), and L^-1 = L_T^-1 ... L_1^-1 with W_t = L_t^-1 - I
// stored: W_t's column j (j in t) holds -(the paths from j through t's columns, one edge out). A
// solve is then T rounds y <- y + W_t y, every row of a round independent of the others. U = D (I +
// V), V = D^-1 U's strict part, solved the same way from z = D^-1 y (the diagonal's reciprocals
// once per factorisation). Forming the W_t after each factorisation: per column j, the partition's
// columns in level order, W(i, j) -= c(i, k) W(k, j) with W(j, j) = 1.
//
// Rounding differs from sparse_lu_solve's (other sums, reciprocals): the implicit validation rule
// applies, not bitwise equality (tests/test_partitioned_inverse.cpp). Host only: the tables are
// std::vectors; a kernel would take their views.
#pragma once

#include <cstdint>
#include <vector>

#include "integrators/implicit.hpp"

namespace zoneode {

class ImplicitStructure;

// Faults planted on purpose, for the test that shows a wrong inverse is caught.
enum class PartitionedInverseFault { none, drop_entry };

class PartitionedInverse {
 public:
  // partitions: per factor, at most its level count (more are clamped).
  PartitionedInverse(const ImplicitStructure& structure, int partitions,
                     PartitionedInverseFault fault = PartitionedInverseFault::none);

  int species_count() const { return n_; }
  // Per factor (0: L, 1: U): its levels and partitions, the off-diagonal entries of the factor
  // itself, W's entries (a solve's multiply-adds), the entries of its largest round, forming's
  // multiply-adds (the first, W(i, j) = -c(i, j), counted) and the most levels one partition spans.
  int levels(int factor) const { return factors_[factor].levels; }
  int partitions(int factor) const { return factors_[factor].partitions; }
  std::int64_t factor_entries(int factor) const { return factors_[factor].factor_entries; }
  std::int64_t entries(int factor) const { return static_cast<std::int64_t>(factors_[factor].entry_row.size()); }
  std::int64_t largest_round(int factor) const;
  std::int64_t forming_multiply_adds(int factor) const { return static_cast<std::int64_t>(factors_[factor].ops.size()); }
  int longest_partition(int factor) const { return factors_[factor].longest_partition; }
  // Doubles of the W values (both factors) and of the reciprocal diagonal: w_doubles() in all.
  std::int64_t entries() const { return entries(0) + entries(1); }
  std::int64_t w_doubles() const { return entries() + n_; }
  // Multiply-adds of forming both factors' W and of one solve (both factors).
  std::int64_t forming_multiply_adds() const { return forming_multiply_adds(0) + forming_multiply_adds(1); }
  std::int64_t solve_multiply_adds() const { return entries(); }

  // w (w_doubles()) from the LU factors in a (sparse_lu_factor's values).
  void form(const double* a, double* w) const;
  // x = M^-1 b with the factors of a and their w; b, x in species order (x may be b); work: 2 n.
  void solve(const double* w, const double* b, double* x, double* work) const;

 private:
  // One unit triangular factor in its solve numbering (unknown u = factor-order row p for L, n-1-p
  // for U): forming operations and the rounds' rows.
  struct Factor {
    int levels = 0, partitions = 0, longest_partition = 0;
    std::int64_t factor_entries = 0;
    // W entries: entry e is (row, column) = (entry_row[e], entry_column[e]), solve numbering.
    std::vector<std::int32_t> entry_row, entry_column;
    // Forming, in order: w[target] -= coefficient * (source < 0 ? 1 : w[source]), where
    // coefficient = a[position] (L) or a[position] * reciprocal[row] (U, row in factor order).
    struct Op {
      std::int32_t target, source, position, row;
    };
    std::vector<Op> ops;
    // The rounds: partition t's rows round_rows[round_offsets[t] ..), each row r's entries
    // row_entries[row_entry_offsets[r] ..) (entry indices, columns ascending).
    std::vector<std::int32_t> round_offsets, round_rows, row_entry_offsets, row_entries;
  };
  int n_ = 0;
  Factor factors_[2];
  std::int64_t offset_[2] = {0, 0};  // where each factor's entries start in w
  SparseLuView lu_;
};

// The implicit method's linear-algebra policy (implicit::integrate_zone_with) with the serial LU
// and the partitioned inverse's solves.
struct PartitionedInverseAlgebra {
  implicit::SparseLinearAlgebra<double*> lu;  // M made and factored as the serial method does (its solve unused)
  const PartitionedInverse& inverse;
  std::vector<double> w, work;
  PartitionedInverseAlgebra(const ImplicitView& structure, const PartitionedInverse& inverse_, double* matrix)
      : lu{structure, matrix, nullptr}, inverse(inverse_), w(inverse_.w_doubles()), work(2 * inverse_.species_count()) {}
  void factor(double diagonal, double* jacobian) {
    lu.factor(diagonal, jacobian);
    inverse.form(lu.matrix, w.data());
  }
  void solve(const double* b, double* x) { inverse.solve(w.data(), b, x, work.data()); }
};

}  // namespace zoneode
