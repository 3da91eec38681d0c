// The emitter of implicit_codegen.hpp: walks the symbolic LU in the loops of sparse_lu_factor and
// sparse_lu_solve and writes each operation they would do as one statement with literal indices.
#include "integrators/implicit_codegen.hpp"

#include <sstream>
#include <vector>

#include "integrators/implicit_structure.hpp"

namespace zoneode {

namespace {

// One row of the factorisation (up-looking, as sparse_lu_factor): row i's values that it changes
// or reads are held in locals v<j> (j: the position within the row), loaded once and stored once;
// the earlier rows' U values are read from the array. Returns the row's statements.
std::int64_t emit_factor_row(std::ostringstream& out, const ImplicitStructure& s, int i, std::int64_t& update,
                             std::int64_t fault_update, CodegenFault fault) {
  const int first = s.row_offsets[i], last = s.row_offsets[i + 1];
  if (first == s.diagonal[i]) return 0;  // no L entries: the row is not changed
  // Which of the row's values the elimination touches (its L entries and every update target).
  std::vector<bool> used(last - first, false);
  std::int64_t u = update;
  for (int q = first; q < s.diagonal[i]; ++q) {
    used[q - first] = true;
    const int k = s.columns[q];
    for (int kj = s.diagonal[k] + 1; kj < s.row_offsets[k + 1]; ++kj) used[s.update_target[u++] - first] = true;
  }
  std::int64_t statements = 0;
  out << "  {  // row " << i << "\n";
  for (int j = 0; j < last - first; ++j)
    if (used[j]) out << "    double v" << j << " = a[" << first + j << "];\n", ++statements;
  for (int q = first; q < s.diagonal[i]; ++q) {
    const int k = s.columns[q];
    out << "    { const double l = v" << q - first << " / a[" << s.diagonal[k] << "]; v" << q - first << " = l;\n";
    ++statements;
    for (int kj = s.diagonal[k] + 1; kj < s.row_offsets[k + 1]; ++kj) {
      const std::int64_t this_update = update++;
      const int target = s.update_target[this_update] - first;
      if (this_update == fault_update && fault == CodegenFault::drop_update) continue;
      // wrong_literal: the update reads its row-k neighbour instead (kj - 1 is always a U value of row k or its diagonal)
      const int source = this_update == fault_update && fault == CodegenFault::wrong_literal ? kj - 1 : kj;
      out << "      v" << target << " -= l * a[" << source << "];\n";
      ++statements;
    }
    out << "    }\n";
  }
  for (int j = 0; j < last - first; ++j)
    if (used[j]) out << "    a[" << first + j << "] = v" << j << ";\n", ++statements;
  out << "  }\n";
  return statements;
}

}  // namespace

std::string emit_implicit_linear_algebra(const ImplicitStructure& s, const CodegenOptions& options,
                                         CodegenSummary* summary) {
  const int n = s.species_count();
  const std::int64_t filled = s.filled_entries();
  const std::int64_t updates = s.factor_updates();
  // A planted fault hits the first update of an off-diagonal value: an update of a diagonal value
  // can vanish in the rounding of 1/(h gamma), which small steps make large.
  std::int64_t fault_update = -1;
  if (options.fault != CodegenFault::none) {
    std::vector<bool> diagonal_position(filled, false);
    for (int p = 0; p < n; ++p) diagonal_position[s.diagonal[p]] = true;
    for (std::int64_t u = 0; u < updates && fault_update < 0; ++u)
      if (!diagonal_position[s.update_target[u]]) fault_update = u;
  }
  CodegenSummary sum;
  sum.species = n;
  sum.filled = filled;
  sum.updates = updates;
  const std::string& ns = options.name_space;

  std::ostringstream out;
  out << "// zoneode implicit linear algebra, generated (src/integrators/implicit_codegen.*, version "
      << implicit_codegen_version << "): " << n << " species, " << filled << " LU values, " << updates
      << " updates. Do not edit.\n";
  out << "namespace " << ns << " {\n";
  out << "inline constexpr int species_count = " << n << ";\n";
  out << "inline constexpr int filled_count = " << filled << ";\n\n";

  // Assembly: M = I/(h gamma) - J at every filled position, as the serial code (zero, diagonal,
  // minus each J entry) rounds it.
  std::vector<int> entry_at(filled, -1);
  for (std::size_t e = 0; e < s.entry_position.size(); ++e) entry_at[s.entry_position[e]] = static_cast<int>(e);
  std::vector<bool> is_diagonal(filled, false);
  for (int p = 0; p < n; ++p) is_diagonal[s.diagonal[p]] = true;
  out << "template <typename Jacobian>\nZONEODE_GEN_NOINLINE ZONEODE_GEN_HD void assemble_matrix(double* a, const "
         "Jacobian& jacobian, double diagonal) {\n";
  for (std::int64_t q = 0; q < filled; ++q) {
    out << "  a[" << q << "] = ";
    if (entry_at[q] >= 0)
      out << (is_diagonal[q] ? "diagonal" : "0.0") << " - jacobian[" << entry_at[q] << "];\n";
    else
      out << (is_diagonal[q] ? "diagonal" : "0.0") << ";\n";
  }
  out << "}\n\n";
  sum.statements += filled;

  // Factorisation, in parts of whole rows.
  std::int64_t update = 0;
  int part = 0;
  int row = 0;
  // Separate parts (options.separate_parts): each its own translation unit with a C name, declared here.
  auto part_name = [&](int p) {
    return options.separate_parts ? ns + "_factor_part_" + std::to_string(p) : "factor_part_" + std::to_string(p);
  };
  if (options.separate_parts) options.separate_parts->clear();
  while (row < n) {
    std::ostringstream body;
    body << (options.separate_parts ? "extern \"C\" " : "") << "ZONEODE_GEN_NOINLINE ZONEODE_GEN_HD void "
         << part_name(part) << "(double* a) {\n";
    const std::int64_t part_start = update;
    while (row < n && (update == part_start || update - part_start < options.updates_per_part)) {
      sum.statements += emit_factor_row(body, s, row, update, fault_update, options.fault);
      ++row;
    }
    body << "}\n\n";
    if (options.separate_parts) {
      options.separate_parts->push_back(body.str());
      out << "extern \"C\" ZONEODE_GEN_HD void " << part_name(part) << "(double* a);\n";
    } else {
      out << body.str();
    }
    ++part;
  }
  sum.factor_parts = part;
  out << "ZONEODE_GEN_HD inline void factor_values(double* a) {\n";
  for (int p = 0; p < part; ++p) out << "  " << part_name(p) << "(a);\n";
  out << "}\n\n";

  // Solve: forward substitution into f<p>, backward into u<p>, then x in species order.
  out << "template <typename In, typename Out>\nZONEODE_GEN_NOINLINE ZONEODE_GEN_HD void solve_values(const double* a, "
         "const In& b, Out x) {\n  double sum;\n";
  for (int p = 0; p < n; ++p) {
    out << "  sum = b[" << s.order[p] << "];";
    for (int q = s.row_offsets[p]; q < s.diagonal[p]; ++q) {
      out << " sum -= a[" << q << "] * f" << s.columns[q] << ";";
      ++sum.solve_terms;
    }
    out << " const double f" << p << " = sum;\n";
  }
  for (int p = n - 1; p >= 0; --p) {
    out << "  sum = f" << p << ";";
    for (int q = s.diagonal[p] + 1; q < s.row_offsets[p + 1]; ++q) {
      out << " sum -= a[" << q << "] * u" << s.columns[q] << ";";
      ++sum.solve_terms;
    }
    out << " const double u" << p << " = sum / a[" << s.diagonal[p] << "];\n";
  }
  for (int p = 0; p < n; ++p) out << "  x[" << s.order[p] << "] = u" << p << ";\n";
  out << "}\n\n";
  sum.statements += 3 * n + sum.solve_terms;

  // The policy implicit::integrate_zone_with takes.
  out << "struct LinearAlgebra {\n  double lu[filled_count];\n"
         "  template <typename Jacobian>\n  ZONEODE_GEN_HD void factor(double diagonal, const Jacobian& jacobian) {\n"
         "    assemble_matrix(lu, jacobian, diagonal);\n    factor_values(lu);\n";
  out << "  }\n  template <typename In, typename Out>\n  ZONEODE_GEN_HD void solve(const In& b, Out x) const { "
         "solve_values(lu, b, x); }\n};\n\n}  // namespace "
      << ns << "\n";
  if (summary) *summary = sum;
  return out.str();
}

}  // namespace zoneode
