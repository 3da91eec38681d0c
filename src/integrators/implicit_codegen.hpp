// Network-specialised linear algebra for the implicit method (issue 36): from a network's
// ImplicitStructure, C++ source in which M = I/(h gamma) - J is assembled, factorised and solved as
// straight-line code, every index a literal (no index array is read at run time).
//
// The emitted code does the serial method's arithmetic in the serial order (sparse_lu.hpp: the
// same divisions, the same updates of each value in the same order, the same solve sums), so with
// contraction off (the project's rule) its factors and solutions are the serial ones bit for bit.
// It is meant for one zone per thread: every lane of a wave runs the same instructions on its own
// zone, so literal indices cost nothing and there is nothing to synchronise. A literal-index code
// for a team of threads would give each lane different instructions (divergence); the team kernels
// (implicit_team.hpp) keep their schedule tables instead.
//
// The text compiles as host C++ (tests/test_implicit_codegen.cpp runs it on the CPU) and as device
// code (NVRTC/hipRTC at run time: kernels/implicit/implicit_generated.hip). It needs two macros,
// defined before it by the including code: ZONEODE_GEN_HD (host/device) and ZONEODE_GEN_NOINLINE.
// The factorisation is cut into functions of about `updates_per_part` updates each, so that the
// compiler's time grows with the network rather than with the square of one huge function
// (../shared/generated-code.md: one 45,000-statement function did not compile in 15 minutes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace zoneode {

class ImplicitStructure;

// The generator's version: part of every cache key (kernels/runtime/rtc_cache.*); bump it whenever
// the emitted text changes for the same structure.
inline constexpr int implicit_codegen_version = 1;

// Faults planted on purpose, for the tests that show a wrong generator is caught.
enum class CodegenFault { none, drop_update, wrong_literal };

struct CodegenOptions {
  std::string name_space = "zoneode_generated";  // the emitted code's namespace
  int updates_per_part = 2000;                    // LU updates per factorisation function (at least one row)
  CodegenFault fault = CodegenFault::none;
  // Where set, each factorisation part is written here as a translation unit of its own, a function
  // with C linkage NAMESPACE_factor_part_K that the main text declares: the parts then compile in
  // parallel (NVRTC programs on threads, joined by the device linker).
  std::vector<std::string>* separate_parts = nullptr;
};

// What the emitted code holds, for run headers and the tests.
struct CodegenSummary {
  int species = 0;
  std::int64_t filled = 0, updates = 0, solve_terms = 0, statements = 0;
  int factor_parts = 0;
};

// The source text: namespace options.name_space holds species_count, filled_count, the functions
// assemble_matrix(a, jacobian, diagonal), factor_values(a) and solve_values(a, b, x), and
// struct LinearAlgebra { double lu[filled_count]; factor(diagonal, jacobian); solve(b, x); } (the
// policy of implicit::integrate_zone_with).
std::string emit_implicit_linear_algebra(const ImplicitStructure& structure, const CodegenOptions& options = {},
                                         CodegenSummary* summary = nullptr);

}  // namespace zoneode
