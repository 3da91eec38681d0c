// The work of one accepted Rodas3 zone-step of the implicit method (implicit.hpp), counted from the
// network's structure, for the implicit ladder's floors (scripts/gpu-implicit-ladder.sh,
// kernels/EXPERIMENTS.md): floating-point operations, the bytes a kernel that keeps the zone's
// workspace on chip moves there, and the bytes a kernel that keeps it in device memory moves there
// (implicit_thread: one zone per thread, every value of the workspace read and written through the
// memory system). Without electron captures or screening (no rank-one solves); a rejected attempt
// costs the same less the Jacobian.
#pragma once

#include <cstdint>

#include "integrators/implicit_structure.hpp"
#include "network/compact.hpp"

namespace zoneode {

struct ImplicitStepWork {
  std::int64_t flops = 0;             // multiplies, adds, divides (compares and conversions not counted)
  std::int64_t jacobian_flops = 0;    // slots, J's terms, the energy row
  std::int64_t factor_flops = 0;      // the matrix (diagonal, -J) and the LU with its fill
  std::int64_t solve_flops = 0;       // four triangular solve pairs
  std::int64_t rhs_flops = 0;         // three flux evaluations, F+/F- sums, energy, stage vectors
  std::int64_t value_bytes = 0;       // 8-byte values read or written (the data, without indices)
  std::int64_t index_bytes = 0;       // structure indices read (what generated code would not load)
};

ImplicitStepWork count_implicit_step_work(const CompactNetwork& network, const ImplicitStructure& structure);

}  // namespace zoneode
