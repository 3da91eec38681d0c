// The implicit method (`integrator.method: implicit`): Rodas3, a 4-stage Rosenbrock method of
// order 3 with an embedded order-2 solution (Sandu et al. 1997, as in KPP), stiffly accurate and
// L-stable.
//
// Why Rosenbrock and not BDF: a Rosenbrock step is one Jacobian, one sparse LU and a fixed number
// of triangular solves, with no Newton iteration to converge or fail and no history of past steps,
// so every zone does the same sequence of operations with a per-zone step size only. That is the
// shape a GPU kernel needs (no data-dependent iteration counts, state of one step only), and it is
// what MICM and KPP use for atmospheric chemistry. At the tolerances of nuclear networks (rtol
// 1e-4..1e-8) order 3 costs somewhat more steps than a variable-order BDF at its best, but each
// step is cheap and restarts (new T, rho per outer step) cost nothing. Rodas3 rather than ROS3P
// or Rodas4: L-stable and stiffly accurate (Y_new is the last stage's argument plus a solve), with
// small integer coefficients; validation/README.md has the measured cost against CVODE's BDF.
//
// One step of size h, with M = I/(h gamma) - J (J at Y, gamma = 1/2):
//   M k_i = f(Y + sum_j a_ij k_j) + sum_j c_ij k_j / h,   i = 1..4
//   Y_new = Y + sum_i m_i k_i,   error estimate k_4 (Y_new minus the embedded solution).
// The energy released is integrated as one more (quadrature) component E' = sum_r Q_r flux_r with
// the same stages: its row of the augmented Jacobian is the energy row, its column is zero, so
// k_E,i = h gamma (S(stage i) + energy_row . k_i + sum_j c_ij k_E,j / h), exact to the same order.
//
// Self-heating (physics.self_heating): T9 is one more variable of the state, dT9/dt = g(Y, T9) =
// (eps - sum_i dU/dY_i f_i) / c_v(T9, Y) (physics/self_heating.hpp: eps = S N_A MeV, the internal
// energy's composition term with f = dY/dt, so that U rises by the energy released), integrated by
// the same stages and in the error norm (scaled by atol + rtol max(|T9|, |T9_new|)). The augmented
// Jacobian borders J with T's column b = d(dY/dt)/dT9 (the REACLIB fits' derivative analytic,
// partition functions' and screening's by central differences) and T's row c = dg/dY (with
// sum_i dU/dY_i J_ij from the composition term), corner d = dg/dT9 (c_v's and dU/dY's T-derivatives
// by central differences of the EOS, sum_i dU/dY_i b_i); with M as below,
//   [ M    -b ] [k  ]   [r  ]      w = M^-1 b (one more solve per step),
//   [ -c^T  D ] [k_T] = [r_T],     k_T = (r_T + c . M^-1 r) / (D - c . w),  k = M^-1 r + k_T w,
// D = 1/(h gamma) - d: exact block elimination, so the LU pattern stays that of the species. Each new
// stage evaluates the rate factors at its own T9. Without self-heating none of this runs and the
// arithmetic is that of the fixed-T method, operation for operation.
//
// Electron captures make J = J_sparse + u Z^T (jacobian.hpp); with M_s = I/(h gamma) - J_sparse
// factorised sparsely, M^-1 b = x + w (Z . x) / (1 - Z . w) with x = M_s^-1 b, w = M_s^-1 u
// (Sherman-Morrison: one more solve per step, exact), so captures never fill the LU pattern.
// Screening's dependence on the composition adds to u (and, weak screening, a second term
// v (Z^2)^T: Woodbury, a 2 x 2 system and one more solve; jacobian.hpp).
//
// The step size comes from the shared StepControl (adaptive schedule: error norm
// max_i |k_4,i| / (atol + rtol max(|Y_i|, |Y_new,i|)), next dt = dt * clamp(0.9 err^(-1/3), ...);
// geometric schedule: fixed dt = dt_fraction * t, no error control). Accepted states are floored at
// abundance_floor (tiny negative values appear in exhausted species). Host/device: no allocation,
// exceptions or containers; the caller supplies the workspace (ImplicitStructure::layout()).
#pragma once

#include <cmath>
#include <cstdint>

#include "common/portability.hpp"
#include "integrators/asymptotic.hpp"
#include "integrators/jacobian.hpp"
#include "integrators/method_network.hpp"
#include "integrators/settings.hpp"
#include "integrators/sparse_lu.hpp"
#include "integrators/step_control.hpp"
#include "network/rates.hpp"

namespace zoneode {

// One zone's scratch: rate_factor and flux hold reaction_count values, slot jacobian.slot_count,
// jacobian jacobian.entry_count, matrix lu.filled_count, stages 4 x species, the rest species.
template <typename Array = double*>
struct ImplicitWorkspace {
  Array rate_factor, flux, slot, jacobian, matrix, energy_row, ye_column, ye_solution, rhs, state, stages, solve;
  Array screening_column, screening_solution;  // screening on only (layout offsets 0 otherwise: unused)
  Array stage_rate_factor, temperature_column, temperature_solution, temperature_row;  // self-heating on only
};

// One zone's workspace inside `base` (layout.total values; Array: a pointer or a StridedArray).
template <typename Array>
ZONEODE_HD inline ImplicitWorkspace<Array> implicit_workspace_at(const ImplicitWorkspaceLayout& l, Array base) {
  return {base + l.rate_factor, base + l.flux,      base + l.slot,        base + l.jacobian,
          base + l.matrix,      base + l.energy_row, base + l.ye_column, base + l.ye_solution,
          base + l.rhs,         base + l.state,     base + l.stages,      base + l.solve,
          base + l.screening_column, base + l.screening_solution,
          base + l.stage_rate_factor, base + l.temperature_column, base + l.temperature_solution,
          base + l.temperature_row};
}

// Self-heating's border of the implicit methods' Jacobian (implicit below, bdf.hpp) at (Y, T9):
// T's column b = d(dY/dt)/dT9 into work.temperature_column, T's row c = dg/dY into
// work.temperature_row, and g, dS/dT9 and the corner dg/dT9, with g = dT9/dt (physics/
// self_heating.hpp). f0 = dY/dt and release_start = S at (Y, T9); rate_factor at T9; work.jacobian,
// ye_column, screening_column and energy_row hold J's parts at (Y, T9); work.flux is scratch.
struct TemperatureBorder {
  double heating = 0.0;      // g [GK/s]
  double release_dT9 = 0.0;  // dS/dT9 [MeV mol/(g s) per GK]
  double heating_dT9 = 0.0;  // dg/dT9 [1/s]
};
// Its pieces, which the team kernel (kernels/implicit/implicit_team.hpp) calls with its own sums.
// dU/dY_i [erg/mol] = per_ion + Z_i per_ye: the weight of row i in T's row.
ZONEODE_HD inline double temperature_row_weight(const StepView& net, const ThermalResponse& at, int i) {
  return at.per_ion + net.species_Z[i] * at.per_ye;
}
// The zone's scalars that T's row and corner need: the thermal slopes at (Y, T9), d(sum Y)/dt and
// d(sum Z Y)/dt, g, and w . u, w . v (w the weights above, u the Ye column, v the screening column).
struct TemperatureRowTerms {
  ThermalSlopes thermal;
  CompositionRates change;
  double heating = 0.0;                      // g [GK/s]
  double energy_dot_ye_column = 0.0;         // [erg/mol per s]
  double energy_dot_screening_column = 0.0;  // [erg/mol per s]
};
// dg/dY_j from column_sum = sum_i w_i J_ij (J's sparse entries) and energy_row_j = dS/dY_j.
ZONEODE_HD inline double temperature_row_value(const StepView& net, const TemperatureRowTerms& t, int j,
                                               double column_sum, double energy_row_j) {
  const ThermalSlopes& thermal = t.thermal;
  const double Z = net.species_Z[j];
  const double power_dY = column_sum + t.energy_dot_ye_column * Z + t.energy_dot_screening_column * Z * Z +
                          t.change.ye * thermal.per_ye_dye * Z;
  const double d_cv = thermal.cv_dion_sum + Z * thermal.cv_dye;
  return (heating_per_release * energy_row_j - power_dY / cgs::kelvin_per_gk - t.heating * d_cv) / thermal.at.cv;
}
// The corner dg/dT9 from dS/dT9 and change_dT9 = the composition rates of T's column b:
// dP/dT9 = d per_ion/dT9 d(sum Y)/dt + d per_ye/dT9 d(sum Z Y)/dt + per_ion sum_i b_i + per_ye sum_i Z_i b_i.
ZONEODE_HD inline double temperature_corner(const TemperatureRowTerms& t, double release_dT9,
                                            const CompositionRates& change_dT9) {
  const ThermalSlopes& thermal = t.thermal;
  const ThermalResponse& at = thermal.at;
  const double power_dT9 = thermal.per_ion_dT9 * t.change.ions + thermal.per_ye_dT9 * t.change.ye +
                           at.per_ion * change_dT9.ions + at.per_ye * change_dT9.ye;
  return (heating_per_release * release_dT9 - power_dT9 / cgs::kelvin_per_gk - t.heating * thermal.cv_dT9) / at.cv;
}

template <typename Array, typename Rates, typename Abundances, typename Rhs>
ZONEODE_HD inline TemperatureBorder temperature_border(const RateView& rates, const StepView& net,
                                                       const ImplicitView& imp, const ImplicitWorkspace<Array>& work,
                                                       const Rates& rate_factor, double T9, double rho,
                                                       const Abundances& Y, const Rhs& f0, double release_start) {
  const int n = net.species_count;
  TemperatureBorder b;
  flux_temperature_derivatives(rates, net, rate_factor, T9, rho, Y, work.flux);
  species_rates(net, work.flux, work.temperature_column);
  b.release_dT9 = energy_release_rate(net, work.flux);
  const ThermalSlopes thermal = thermal_slopes(T9, rho, ion_sum(net, Y), electron_fraction(net, Y), net.eos_table);
  const ThermalResponse& at = thermal.at;
  const CompositionRates change = composition_rates_of(net, f0);
  b.heating = heating_rate(release_start, change, at);
  // g = (H S - P / K) / c_v with P = per_ion d(sum Y)/dt + per_ye d(sum Z Y)/dt (the composition
  // power, self_heating.hpp), H = heating_per_release, K = kelvin_per_gk. Its row:
  // dg/dY_j = (H dS/dY_j - dP/dY_j / K - g dc_v/dY_j) / c_v, dP/dY_j = sum_i (per_ion + Z_i per_ye)
  // J_ij + d(sum Z Y)/dt d per_ye/d ye Z_j, with J = sparse entries + u Z^T [+ v (Z^2)^T] (the Ye
  // and, weak screening, screening columns): the sparse part's column sums here, the rank-one
  // parts' through (w . u), (w . v).
  TemperatureRowTerms terms{thermal, change, b.heating};
  for (int j = 0; j < n; ++j) work.temperature_row[j] = 0.0;
  for (int e = 0; e < imp.jacobian.entry_count; ++e) {
    work.temperature_row[imp.jacobian.entry_column[e]] +=
        temperature_row_weight(net, at, imp.jacobian.entry_row[e]) * work.jacobian[e];
  }
  const bool ye_part = imp.jacobian.ye_term_count > 0 || net.screening != 0;
  const bool z2_part = net.screening == static_cast<int>(ScreeningKind::weak);
  for (int i = 0; i < n; ++i) {
    const double w = temperature_row_weight(net, at, i);
    if (ye_part) terms.energy_dot_ye_column += w * work.ye_column[i];
    if (z2_part) terms.energy_dot_screening_column += w * work.screening_column[i];
  }
  for (int j = 0; j < n; ++j)
    work.temperature_row[j] = temperature_row_value(net, terms, j, work.temperature_row[j], work.energy_row[j]);
  b.heating_dT9 = temperature_corner(terms, b.release_dT9, composition_rates_of(net, work.temperature_column));
  return b;
}

namespace rodas3 {
inline constexpr int stages = 4;
inline constexpr double gamma = 0.5;
// a_ij and c_ij below the diagonal (i = 2..4), row by row, and m_i; stage i evaluates f anew
// unless it reuses f(Y) (stage 2: a_21 = 0). Function-local tables: usable in device code.
ZONEODE_HD inline double a(int k) {
  constexpr double table[6] = {0.0, 2.0, 0.0, 2.0, 0.0, 1.0};
  return table[k];
}
ZONEODE_HD inline double c(int k) {
  constexpr double table[6] = {4.0, 1.0, -1.0, 1.0, -1.0, -8.0 / 3.0};
  return table[k];
}
ZONEODE_HD inline double m(int k) {
  constexpr double table[4] = {2.0, 0.0, 1.0, 1.0};
  return table[k];
}
ZONEODE_HD inline bool new_f(int k) { return k != 1; }

// A step's end for its scalars (the serial method and the team kernel, implicit_team.hpp): the
// released energy sum m_i e_i and, with self-heating, the new T9 = T9 + sum m_i k_T,i, T9's share of
// the error norm (the last stage's k_T, as the species' k_4) combined into error_norm.
struct ScalarEnd {
  double released = 0.0;  // [MeV mol/g]
  double next_T9 = 0.0;   // [GK]
};
ZONEODE_HD inline ScalarEnd scalar_end(const double* stage_energy, const double* stage_temperature, double T9, bool heating,
                                       const IntegratorSettings& settings, double& error_norm) {
  ScalarEnd end;
  for (int s = 0; s < stages; ++s) end.released += m(s) * stage_energy[s];
  end.next_T9 = T9;
  if (heating) {
    for (int s = 0; s < stages; ++s) end.next_T9 += m(s) * stage_temperature[s];
    const double scale = settings.atol + settings.rtol * fmax(fabs(T9), fabs(end.next_T9));
    error_norm = combine_error(error_norm, fabs(stage_temperature[stages - 1]) / scale);
  }
  return end;
}
}  // namespace rodas3

namespace implicit {

// Doubles of scratch one zone needs (integrators/methods.hpp): the layout's total.
inline std::int64_t workspace_doubles(const MethodNetwork& network) { return network.implicit.layout.total; }

// Integrates one zone at T9 [GK] and rho [g/cm^3] from settings.start_time to end_time with
// Rodas3; the contract of every method's integrate_zone (integrators/methods.hpp): failed zones
// keep their last good state; with self-heating T9 is a variable of the state (above) and ends in
// result.final_T9. `workspace` holds workspace_doubles() values.
//
// The linear algebra of M = I/(h gamma) - J is a policy (`linear_algebra`): factor(diagonal, J)
// builds M from the Jacobian's entries and factors it, solve(b, x) solves M x = b (x may be b).
// SparseLinearAlgebra below is the serial one, over the symbolic LU's index arrays; the network-
// specialised code of kernels/implicit/ (implicit_codegen.hpp) is another with the same
// arithmetic in the same order.
template <typename Abundances, typename Array, typename LinearAlgebra>
ZONEODE_HD inline void integrate_zone_with(const MethodNetwork& network, const IntegratorSettings& settings, double T9,
                                           double rho, Abundances Y, Array workspace, ZoneResult& result,
                                           LinearAlgebra& linear_algebra) {
  const RateView& rates = network.rates;
  const StepView& net = network.step;
  const ImplicitView& imp = network.implicit;
  const ImplicitWorkspace<Array> work = implicit_workspace_at(imp.layout, workspace);
  const int n = net.species_count;
  const bool heating = net.self_heating != 0;
  const double initial_mass = mass_fraction_sum(net, Y);
  StepControl control(settings, initial_mass, zone_input_valid(T9, rho, all_finite(n, Y), initial_mass));
  if (control.running()) zone_rate_factors<true>(rates, T9, rho, work.rate_factor);
  std::int64_t rhs_evaluations = 0, jacobian_evaluations = 0, factorizations = 0;
  bool jacobian_current = false;  // J, f(Y) and S(Y) belong to the current Y
  double release_start = 0.0;     // S(Y) = sum_r Q_r flux_r at Y [MeV mol/(g s)]
  Array f0 = work.state;          // f(Y), kept over rejected attempts (stage arguments go to rhs)
  double stage_energy[rodas3::stages];
  // Self-heating: g(Y, T9) [GK/s], dS/dT9, the corner dg/dT9 and the stages' k_T.
  double heating_start = 0.0, release_dT9 = 0.0, heating_dT9 = 0.0;
  double stage_temperature[rodas3::stages];
  while (control.begin_attempt()) {
    const double h = control.step();
    if (!jacobian_current) {
      zone_fluxes(net, work.rate_factor, Y, work.flux, T9, rho);
      species_rates(net, work.flux, f0);
      release_start = energy_release_rate(net, work.flux);
      flux_derivative_slots(net, imp.jacobian, work.rate_factor, Y, work.slot, T9, rho);
      jacobian_from_slots(n, imp.jacobian, work.slot, work.jacobian, work.ye_column, work.energy_row);
      if (net.screening != 0)  // flux (at Y, used above) becomes scratch
        screening_jacobian_columns(net, T9, rho, Y, work.flux, work.ye_column, work.screening_column, work.energy_row);
      if (heating) {  // T's column, row and corner (flux is scratch again: d flux / d T9)
        const TemperatureBorder border =
            temperature_border(rates, net, imp, work, work.rate_factor, T9, rho, Y, f0, release_start);
        heating_start = border.heating;
        release_dT9 = border.release_dT9;
        heating_dT9 = border.heating_dT9;
      }
      ++rhs_evaluations;
      ++jacobian_evaluations;
      jacobian_current = true;
    }
    const double diagonal = 1.0 / (h * rodas3::gamma);
    linear_algebra.factor(diagonal, work.jacobian);
    ++factorizations;
    // J = J_sparse + u Z^T [+ v (Z^2)^T]: u the Ye column (captures, screening), v the screening
    // column (weak screening). Sherman-Morrison for u alone; Woodbury for both, with
    // C = I - [Z Z^2]^T [w x], w = M_s^-1 u, x = M_s^-1 v (2 x 2).
    const bool ye_rank = imp.jacobian.ye_term_count > 0 || net.screening != 0;
    const bool z2_rank = net.screening == static_cast<int>(ScreeningKind::weak);
    double ye_denominator = 1.0;  // 1 - Z . w (C_11)
    double c12 = 0.0, c21 = 0.0, c22 = 1.0;
    if (ye_rank) {
      linear_algebra.solve(work.ye_column, work.ye_solution);
      for (int i = 0; i < n; ++i) ye_denominator -= net.species_Z[i] * work.ye_solution[i];
    }
    if (z2_rank) {
      linear_algebra.solve(work.screening_column, work.screening_solution);
      for (int i = 0; i < n; ++i) {
        const double Z = net.species_Z[i];
        c12 -= Z * work.screening_solution[i];
        c21 -= Z * Z * work.ye_solution[i];
        c22 -= Z * Z * work.screening_solution[i];
      }
    }

    // x <- M^-1 x for the x the sparse solve left there: the rank-one (two) corrections.
    auto correct = [&](Array x) {
      if (ye_rank && !z2_rank) {
        double z_dot_k = 0.0;
        for (int i = 0; i < n; ++i) z_dot_k += net.species_Z[i] * x[i];
        const double correction = z_dot_k / ye_denominator;
        for (int i = 0; i < n; ++i) x[i] += correction * work.ye_solution[i];
      } else if (z2_rank) {
        double z_dot_k = 0.0, z2_dot_k = 0.0;
        for (int i = 0; i < n; ++i) {
          z_dot_k += net.species_Z[i] * x[i];
          z2_dot_k += net.species_Z[i] * net.species_Z[i] * x[i];
        }
        const double determinant = ye_denominator * c22 - c12 * c21;
        const double along_w = (c22 * z_dot_k - c12 * z2_dot_k) / determinant;
        const double along_x = (ye_denominator * z2_dot_k - c21 * z_dot_k) / determinant;
        for (int i = 0; i < n; ++i) x[i] += along_w * work.ye_solution[i] + along_x * work.screening_solution[i];
      }
    };
    // Self-heating: w = M^-1 b and the Schur complement D - c . w of the bordered system.
    double temperature_denominator = 1.0;
    if (heating) {
      linear_algebra.solve(work.temperature_column, work.temperature_solution);
      correct(work.temperature_solution);
      temperature_denominator = diagonal - heating_dT9;
      for (int i = 0; i < n; ++i) temperature_denominator -= work.temperature_row[i] * work.temperature_solution[i];
    }

    double release = release_start;  // S at the current stage's argument
    double heating_stage = heating_start;  // g at the current stage's argument
    for (int s = 0; s < rodas3::stages; ++s) {
      Array k = work.stages + s * n;
      const int row = s * (s - 1) / 2;  // first a_sj / c_sj of stage s (0-based s >= 1)
      if (rodas3::new_f(s) && s > 0) {
        // Stage argument Y + sum_j a_sj k_j into solve (free until the solve below), then f there.
        for (int i = 0; i < n; ++i) {
          double y = Y[i];
          for (int j = 0; j < s; ++j) y += rodas3::a(row + j) * work.stages[j * n + i];
          work.solve[i] = y;
        }
        if (heating) {  // the stage's own T9 and rate factors
          double stage_T9 = T9;
          for (int j = 0; j < s; ++j) stage_T9 += rodas3::a(row + j) * stage_temperature[j];
          stage_T9 = fmax(stage_T9, self_heating_min_T9);
          zone_rate_factors<true>(rates, stage_T9, rho, work.stage_rate_factor);
          zone_fluxes(net, work.stage_rate_factor, work.solve, work.flux, stage_T9, rho);
          species_rates(net, work.flux, work.rhs);
          release = energy_release_rate(net, work.flux);
          heating_stage = heating_rate(release, composition_rates_of(net, work.rhs), stage_T9, rho,
                                       ion_sum(net, work.solve), electron_fraction(net, work.solve), net.eos_table);
        } else {
          zone_fluxes(net, work.rate_factor, work.solve, work.flux, T9, rho);
          species_rates(net, work.flux, work.rhs);
          release = energy_release_rate(net, work.flux);
        }
        ++rhs_evaluations;
      } else {
        // Stage 1, and stage 2 whose argument is Y (a_21 = 0): f(Y).
        for (int i = 0; i < n; ++i) work.rhs[i] = f0[i];
        release = release_start;
        heating_stage = heating_start;
      }
      double energy_rhs = release;
      double temperature_rhs = heating_stage;
      for (int j = 0; j < s; ++j) {
        const double coupling = rodas3::c(row + j) / h;
        for (int i = 0; i < n; ++i) work.rhs[i] += coupling * work.stages[j * n + i];
        energy_rhs += coupling * stage_energy[j];
        if (heating) temperature_rhs += coupling * stage_temperature[j];
      }
      linear_algebra.solve(work.rhs, k);
      correct(k);
      double k_T = 0.0;
      if (heating) {  // the bordered system's T row, then k += k_T w
        double row_dot_x = 0.0;
        for (int i = 0; i < n; ++i) row_dot_x += work.temperature_row[i] * k[i];
        k_T = (temperature_rhs + row_dot_x) / temperature_denominator;
        for (int i = 0; i < n; ++i) k[i] += k_T * work.temperature_solution[i];
        stage_temperature[s] = k_T;
      }
      double coupling_energy = 0.0;
      for (int i = 0; i < n; ++i) coupling_energy += work.energy_row[i] * k[i];
      if (heating) coupling_energy += release_dT9 * k_T;
      stage_energy[s] = h * rodas3::gamma * (energy_rhs + coupling_energy);
    }

    // Proposed state into rhs; error norm from k_4.
    AttemptReductions reductions;
    const Array k_last = work.stages + (rodas3::stages - 1) * n;
    for (int i = 0; i < n; ++i) {
      double y = Y[i];
      for (int s = 0; s < rodas3::stages; ++s) y += rodas3::m(s) * work.stages[s * n + i];
      work.rhs[i] = y;
      const double scale = settings.atol + settings.rtol * fmax(fabs(Y[i]), fabs(y));
      reductions.error_norm = combine_error(reductions.error_norm, fabs(k_last[i]) / scale);
    }
    const rodas3::ScalarEnd end =
        rodas3::scalar_end(stage_energy, stage_temperature, T9, heating, settings, reductions.error_norm);
    const double released = end.released, next_T9 = end.next_T9;
    if (heating && !is_finite(next_T9)) reductions.finite = false;
    reductions.finite = reductions.finite && all_finite(n, work.rhs) && is_finite(released);
    reductions.mass = mass_fraction_sum(net, work.rhs);
    // StepControl adds 0.5 h (start + mid): both the step's mean release rate.
    reductions.release_rate_start = released / h;
    reductions.release_rate_mid = released / h;
    if (control.end_attempt(reductions, 2) == StepVerdict::accepted) {
      const double scale = control.scale();
      // Exhausted species may come out slightly negative (of the order of atol); as in the
      // asymptotic method, no abundance goes below the floor (files stay valid zone input).
      for (int i = 0; i < n; ++i) Y[i] = fmax(work.rhs[i] * scale, settings.abundance_floor);
      jacobian_current = false;
      if (heating) {
        T9 = fmax(next_T9, self_heating_min_T9);
        zone_rate_factors<true>(rates, T9, rho, work.rate_factor);
      }
    }
  }
  result = control.finish(mass_fraction_sum(net, Y));
  result.final_T9 = T9;
  result.rhs_evaluations = rhs_evaluations;
  result.jacobian_evaluations = jacobian_evaluations;
  result.factorizations = factorizations;
}

// The serial linear algebra: M's values in the workspace's matrix, the symbolic LU's index arrays
// (sparse_lu.hpp); `solve` is its scratch vector.
template <typename Array>
struct SparseLinearAlgebra {
  const ImplicitView& structure;
  Array matrix, solve_work;
  ZONEODE_HD void factor(double diagonal, const Array& jacobian) const {
    for (int q = 0; q < structure.lu.filled_count; ++q) matrix[q] = 0.0;
    for (int p = 0; p < structure.lu.n; ++p) matrix[structure.lu.diagonal[p]] = diagonal;
    for (int e = 0; e < structure.jacobian.entry_count; ++e) matrix[structure.entry_position[e]] -= jacobian[e];
    sparse_lu_factor(structure.lu, matrix);
  }
  template <typename In, typename Out>
  ZONEODE_HD void solve(const In& b, Out x) const {
    sparse_lu_solve(structure.lu, matrix, b, x, solve_work);
  }
};

template <typename Abundances, typename Array>
ZONEODE_HD inline void integrate_zone(const MethodNetwork& network, const IntegratorSettings& settings, double T9,
                                      double rho, Abundances Y, Array workspace, ZoneResult& result) {
  const ImplicitWorkspace<Array> work = implicit_workspace_at(network.implicit.layout, workspace);
  SparseLinearAlgebra<Array> linear_algebra{network.implicit, work.matrix, work.solve};
  integrate_zone_with(network, settings, T9, rho, Y, workspace, result, linear_algebra);
}

}  // namespace implicit

}  // namespace zoneode
