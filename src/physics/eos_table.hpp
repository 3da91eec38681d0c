// The electrons' and positrons' specific heat from a table (issue 39, item 4: the exact gas of
// physics/eos.hpp costs 3-36 us a call, several calls per step).
//
// Why this scheme. At fixed net electron density n = rho Ye N_A and T the e-/e+ gas is fixed, so
// its c_v per gram is Ye N_A k_B c(n, T), c the specific heat per net electron in k_B: one
// function of two variables. ln c is smooth (a sum of exponentially switching regimes: ideal 3/2,
// relativistic 3, degenerate ~T/T_F, pairs ~T^3/n); it is tabulated on a uniform grid and read
// with tensor-product Lagrange interpolation of degree 5 (6 x 6 nodes about the cell). Beside it,
// at the same nodes and read with the same weights, q = (du_ele/dYe at fixed T, rho) / (N_A k T):
// the energy per added net electron, also a function of (n, T) only, which self-heating's
// composition term needs (physics/self_heating.hpp); q changes sign (pairs: towards
// -m_e c^2 / k T), so q itself is interpolated, not its log. Self-heating uses c_v and q (and, in
// the implicit Jacobian, their differences in T and Ye), each to its own accuracy; no
// thermodynamic consistency between them beyond that is at stake, and a Helmholtz free-energy
// table with biquintic Hermite (Timmes & Swesty 2000), whose derivatives at the nodes the exact
// gas does not provide, is not needed.
// The coordinates follow where ln c changes fastest:
//   - density: x = ln(rho Ye / T9^3) (n over T^3, the relativistic degeneracy variable: along it
//     the positrons' exp(-mu / k T) changes; in plain ln(rho Ye) the T direction also had to
//     resolve it, and 6e-6 errors remained at T9 15-50, rho 1e9-1e10 on a twice finer T grid);
//   - temperature: y = ln beta + (2 / b) atan(beta / b) + 1/2 ln(1 + beta^2), beta = k T / m_e c^2,
//     b = 0.1: dy / d ln beta = 1 + 2 beta / (beta^2 + b^2) + beta^2 / (1 + beta^2) follows the pair
//     onset's exp(-2 / beta) around beta ~ b and doubles the resolution where beta > 1.
// Steps 0.1 in x and in y; range T9 0.005-200, rho Ye 0.1-2e10 (mol/cm^3) with the stencil's margin;
// outside it (and for Ye <= 0) the exact gas is evaluated. Rows are stored ragged (each row only
// the x its lookups can reach), ~130,000 nodes, ~1 MB, built once on the host at first use from
// the exact gas (~1-3 s on one core). Accuracy against the exact gas (tests/test_physics_eos_table.cpp):
// within 1e-6 relative (most points 1e-8) over T9 0.01-100 x rho 1-1e10 at Ye 0.5 and 1 on grids
// off the nodes and at every switch of the exact quadrature's layout; q within 1e-6 of
// (|du/dYe| + N_A k T) there (measured 4.0e-7, at the pairs' onset at low density). The nodes
// double (~2 MB); the build's cost does not (one exact-gas call gives both).
// Host/device: the lookup is ZONEODE_HD (no allocation); the table is built on the host, and the GPU
// backend uploads a copy that device code reads through StepView::eos_table (2026-12-07; before,
// device code evaluated the exact gas).
#pragma once

#include <cmath>

#include "common/portability.hpp"
#include "physics/cgs.hpp"

namespace zoneode {

// A built table (physics/eos.hpp builds it); a view, no ownership.
struct ElectronGasTableView {
  const double* log_c = nullptr;    // ln c at node (row, column): log_c[row_offset[row] + column - row_first[row]]
  const double* ye_energy = nullptr;  // q (below) at the same nodes, in the same layout
  const int* row_first = nullptr;   // the first column stored in each row
  const int* row_end = nullptr;     // one past the last
  const int* row_offset = nullptr;  // where each row starts in log_c
  int rows = 0;
  double y_first = 0.0, y_step = 0.1;  // y of row 0, step
  double x_first = 0.0, x_step = 0.1;  // x of column 0, step
  double T9_min = 0.0, T9_max = 0.0;              // [GK] the range read from the table
  double rho_ye_min = 0.0, rho_ye_max = 0.0;      // [mol/cm^3]
};

namespace eos_table_detail {
inline constexpr double pair_scale = 0.1;  // b above
inline constexpr double stencil_below = 2;  // nodes below the cell in the stencil (and 3 above)

// y(beta) above.
ZONEODE_HD inline double temperature_coordinate(double beta) {
  return log(beta) + (2.0 / pair_scale) * atan(beta / pair_scale) + 0.5 * log1p(beta * beta);
}
// x(T9, rho Ye) above.
ZONEODE_HD inline double density_coordinate(double T9, double rho_ye) { return log(rho_ye) - 3.0 * log(T9); }
// beta = k T / m_e c^2 at T9.
ZONEODE_HD inline double beta_of_T9(double T9) {
  return cgs::boltzmann * cgs::kelvin_per_gk * T9 / (cgs::electron_mass * cgs::speed_of_light * cgs::speed_of_light);
}

// The degree-5 Lagrange weights of the nodes -2..3 at t in [0, 1) (uniform spacing 1).
ZONEODE_HD inline void lagrange6(double t, double* w) {
  const double a = t + 2.0, b = t + 1.0, c = t, d = t - 1.0, e = t - 2.0, f = t - 3.0;
  w[0] = -(b * c * d * e * f) / 120.0;
  w[1] = (a * c * d * e * f) / 24.0;
  w[2] = -(a * b * d * e * f) / 12.0;
  w[3] = (a * b * c * e * f) / 12.0;
  w[4] = -(a * b * c * d * f) / 24.0;
  w[5] = (a * b * c * d * e) / 120.0;
}
}  // namespace eos_table_detail

namespace eos_table_detail {
// The stencil's interpolation of one tabulated quantity (nodes in the table's layout) at T9 [GK],
// rho Ye [mol/cm^3]; with second_nodes (may be null) the same weights also interpolate a second one
// into second. False (out untouched) outside the table's range.
ZONEODE_HD inline bool interpolate_nodes(const ElectronGasTableView& table, const double* nodes,
                                         const double* second_nodes, double T9, double rho_ye, double& out,
                                         double& second) {
  if (!(T9 >= table.T9_min && T9 <= table.T9_max && rho_ye >= table.rho_ye_min && rho_ye <= table.rho_ye_max))
    return false;
  const double sy = (temperature_coordinate(beta_of_T9(T9)) - table.y_first) / table.y_step;
  const double sx = (density_coordinate(T9, rho_ye) - table.x_first) / table.x_step;
  const int row = static_cast<int>(floor(sy)), column = static_cast<int>(floor(sx));
  if (row < 2 || row + 3 >= table.rows) return false;
  double wy[6], wx[6];
  lagrange6(sy - row, wy);
  lagrange6(sx - column, wx);
  double sum = 0.0, second_sum = 0.0;
  for (int k = 0; k < 6; ++k) {
    const int r = row - 2 + k;
    if (column - 2 < table.row_first[r] || column + 3 >= table.row_end[r]) return false;
    const int first = table.row_offset[r] + (column - 2 - table.row_first[r]);
    const double* node = nodes + first;
    double along = 0.0;
    for (int m = 0; m < 6; ++m) along += wx[m] * node[m];
    sum += wy[k] * along;
    if (second_nodes != nullptr) {
      const double* other = second_nodes + first;
      double other_along = 0.0;
      for (int m = 0; m < 6; ++m) other_along += wx[m] * other[m];
      second_sum += wy[k] * other_along;
    }
  }
  if (!is_finite(sum) || !is_finite(second_sum)) return false;  // a damaged table: the exact gas instead
  out = sum;
  second = second_sum;
  return true;
}
}  // namespace eos_table_detail

// c (the e-/e+ specific heat per net electron, in k_B) at T9 [GK] and rho Ye [mol/cm^3] from the
// table; false (c untouched) outside its range, where the caller evaluates the exact gas.
ZONEODE_HD inline bool electron_gas_table_lookup(const ElectronGasTableView& table, double T9, double rho_ye,
                                                 double& c) {
  double log_c = 0.0, unused = 0.0;
  if (!eos_table_detail::interpolate_nodes(table, table.log_c, nullptr, T9, rho_ye, log_c, unused)) return false;
  c = exp(log_c);
  return true;
}

// c as above and q = (du_ele/dYe at fixed T, rho) / (N_A k_B T), the e-/e+ gas's energy per added
// net electron in k_B T (physics/eos.hpp; negative where pairs dominate, so q itself, not its log,
// is tabulated), with one set of weights; false (both untouched) outside the range.
ZONEODE_HD inline bool electron_gas_table_lookup(const ElectronGasTableView& table, double T9, double rho_ye,
                                                 double& c, double& q) {
  double log_c = 0.0, q_read = 0.0;
  if (!eos_table_detail::interpolate_nodes(table, table.log_c, table.ye_energy, T9, rho_ye, log_c, q_read))
    return false;
  c = exp(log_c);
  q = q_read;
  return true;
}

}  // namespace zoneode
