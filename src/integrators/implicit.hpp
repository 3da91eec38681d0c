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
// Electron captures make J = J_sparse + u Z^T (jacobian.hpp); with M_s = I/(h gamma) - J_sparse
// factorised sparsely, M^-1 b = x + w (Z . x) / (1 - Z . w) with x = M_s^-1 b, w = M_s^-1 u
// (Sherman-Morrison: one more solve per step, exact), so captures never fill the LU pattern.
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
};

// One zone's workspace inside `base` (layout.total values; Array: a pointer or a StridedArray).
template <typename Array>
ZONEODE_HD inline ImplicitWorkspace<Array> implicit_workspace_at(const ImplicitWorkspaceLayout& l, Array base) {
  return {base + l.rate_factor, base + l.flux,      base + l.slot,        base + l.jacobian,
          base + l.matrix,      base + l.energy_row, base + l.ye_column, base + l.ye_solution,
          base + l.rhs,         base + l.state,     base + l.stages,      base + l.solve};
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
}  // namespace rodas3

namespace implicit {

// Doubles of scratch one zone needs (integrators/methods.hpp): the layout's total.
inline std::int64_t workspace_doubles(const MethodNetwork& network) { return network.implicit.layout.total; }

// Integrates one zone at fixed T9 [GK] and rho [g/cm^3] from settings.start_time to end_time with
// Rodas3; the contract of every method's integrate_zone (integrators/methods.hpp): failed zones
// keep their last good state; self-heating as in asymptotic.hpp: T9 is updated after each accepted
// step, not a variable of the method, and ends in result.final_T9. `workspace` holds
// workspace_doubles() values.
template <typename Abundances, typename Array>
ZONEODE_HD inline void integrate_zone(const MethodNetwork& network, const IntegratorSettings& settings, double T9,
                                      double rho, Abundances Y, Array workspace, ZoneResult& result) {
  const RateView& rates = network.rates;
  const StepView& net = network.step;
  const ImplicitView& imp = network.implicit;
  const ImplicitWorkspace<Array> work = implicit_workspace_at(imp.layout, workspace);
  const int n = net.species_count;
  const double initial_mass = mass_fraction_sum(net, Y);
  StepControl control(settings, initial_mass, zone_input_valid(T9, rho, all_finite(n, Y), initial_mass));
  if (control.running()) zone_rate_factors(rates, T9, rho, work.rate_factor);
  std::int64_t rhs_evaluations = 0, jacobian_evaluations = 0, factorizations = 0;
  bool jacobian_current = false;  // J, f(Y) and S(Y) belong to the current Y
  double release_start = 0.0;     // S(Y) = sum_r Q_r flux_r at Y [MeV mol/(g s)]
  Array f0 = work.state;          // f(Y), kept over rejected attempts (stage arguments go to rhs)
  double stage_energy[rodas3::stages];
  while (control.begin_attempt()) {
    const double h = control.step();
    if (!jacobian_current) {
      zone_fluxes(net, work.rate_factor, Y, work.flux, T9, rho);
      species_rates(net, work.flux, f0);
      release_start = energy_release_rate(net, work.flux);
      flux_derivative_slots(net, imp.jacobian, work.rate_factor, Y, work.slot, T9, rho);
      jacobian_from_slots(n, imp.jacobian, work.slot, work.jacobian, work.ye_column, work.energy_row);
      ++rhs_evaluations;
      ++jacobian_evaluations;
      jacobian_current = true;
    }
    const double diagonal = 1.0 / (h * rodas3::gamma);
    for (int q = 0; q < imp.lu.filled_count; ++q) work.matrix[q] = 0.0;
    for (int p = 0; p < n; ++p) work.matrix[imp.lu.diagonal[p]] = diagonal;
    for (int e = 0; e < imp.jacobian.entry_count; ++e) work.matrix[imp.entry_position[e]] -= work.jacobian[e];
    sparse_lu_factor(imp.lu, work.matrix);
    ++factorizations;
    const bool captures = imp.jacobian.ye_term_count > 0;
    double ye_denominator = 1.0;  // 1 - Z . w
    if (captures) {
      sparse_lu_solve(imp.lu, work.matrix, work.ye_column, work.ye_solution, work.solve);
      for (int i = 0; i < n; ++i) ye_denominator -= net.species_Z[i] * work.ye_solution[i];
    }

    double release = release_start;  // S at the current stage's argument
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
        zone_fluxes(net, work.rate_factor, work.solve, work.flux, T9, rho);
        species_rates(net, work.flux, work.rhs);
        release = energy_release_rate(net, work.flux);
        ++rhs_evaluations;
      } else {
        // Stage 1, and stage 2 whose argument is Y (a_21 = 0): f(Y).
        for (int i = 0; i < n; ++i) work.rhs[i] = f0[i];
        release = release_start;
      }
      double energy_rhs = release;
      for (int j = 0; j < s; ++j) {
        const double coupling = rodas3::c(row + j) / h;
        for (int i = 0; i < n; ++i) work.rhs[i] += coupling * work.stages[j * n + i];
        energy_rhs += coupling * stage_energy[j];
      }
      sparse_lu_solve(imp.lu, work.matrix, work.rhs, k, work.solve);
      if (captures) {
        double z_dot_k = 0.0;
        for (int i = 0; i < n; ++i) z_dot_k += net.species_Z[i] * k[i];
        const double correction = z_dot_k / ye_denominator;
        for (int i = 0; i < n; ++i) k[i] += correction * work.ye_solution[i];
      }
      double coupling_energy = 0.0;
      for (int i = 0; i < n; ++i) coupling_energy += work.energy_row[i] * k[i];
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
    double released = 0.0;
    for (int s = 0; s < rodas3::stages; ++s) released += rodas3::m(s) * stage_energy[s];
    reductions.finite = all_finite(n, work.rhs) && is_finite(released);
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
      if (net.self_heating) {
        T9 = heated_temperature(net, T9, rho, Y, released);
        zone_rate_factors(rates, T9, rho, work.rate_factor);
      }
    }
  }
  result = control.finish(mass_fraction_sum(net, Y));
  result.final_T9 = T9;
  result.rhs_evaluations = rhs_evaluations;
  result.jacobian_evaluations = jacobian_evaluations;
  result.factorizations = factorizations;
}

}  // namespace implicit

}  // namespace zoneode
