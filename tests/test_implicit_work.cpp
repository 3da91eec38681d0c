// The implicit ladder's work count (integrators/implicit_work.hpp) against an independent count: a
// dense boolean Gaussian elimination of M's pattern in the structure's order, which counts the fill,
// the divisions and the multiply-adds of the factorisation and of the solves without the symbolic
// factorisation's lists.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "integrators/implicit_structure.hpp"
#include "integrators/implicit_work.hpp"
#include "network/compact.hpp"
#include "network/generator.hpp"

namespace zoneode {
namespace {

struct DenseCount {
  std::int64_t filled = 0, lower = 0, updates = 0;
};

// M's pattern (J's entries and the diagonal) permuted by `order`, eliminated densely (IKJ, as the
// serial factorisation runs): an update a_ij -= l_ik u_kj for every nonzero l_ik and u_kj, j > k.
DenseCount dense_elimination(const ImplicitStructure& s, int n) {
  std::vector<int> position(n);
  for (int p = 0; p < n; ++p) position[s.order[p]] = p;
  std::vector<std::vector<bool>> nonzero(n, std::vector<bool>(n, false));
  for (int p = 0; p < n; ++p) nonzero[p][p] = true;
  for (std::size_t e = 0; e < s.entry_row.size(); ++e) nonzero[position[s.entry_row[e]]][position[s.entry_column[e]]] = true;
  DenseCount count;
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < i; ++k) {
      if (!nonzero[i][k]) continue;
      ++count.lower;
      for (int j = k + 1; j < n; ++j) {
        if (!nonzero[k][j]) continue;
        nonzero[i][j] = true;  // fill
        ++count.updates;
      }
    }
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) count.filled += nonzero[i][j] ? 1 : 0;
  return count;
}

TEST(ImplicitWork, FactorAndSolveCountsMatchADenseElimination) {
  for (const char* preset : {"s16", "default", "s150"}) {
    const CompactNetwork compact(generate_network(generator_preset(preset)));
    const ImplicitStructure structure(compact);
    const int n = compact.species_count();
    const DenseCount dense = dense_elimination(structure, n);
    ASSERT_EQ(structure.filled_entries(), dense.filled) << preset;
    ASSERT_EQ(structure.factor_updates(), dense.updates) << preset;
    const ImplicitStepWork work = count_implicit_step_work(compact, structure);
    const std::int64_t entries = static_cast<std::int64_t>(structure.entry_row.size());
    // M = I/(h gamma) - J: a subtraction per entry and one division; a division per L entry and a
    // multiply-add per update.
    EXPECT_EQ(work.factor_flops, entries + 1 + dense.lower + 2 * dense.updates) << preset;
    // Four right-hand sides: a multiply-add per off-diagonal factor entry, a division per row.
    EXPECT_EQ(work.solve_flops, 4 * (2 * (dense.filled - n) + n)) << preset;
    EXPECT_EQ(work.flops, work.jacobian_flops + work.factor_flops + work.solve_flops + work.rhs_flops) << preset;
  }
}

}  // namespace
}  // namespace zoneode
