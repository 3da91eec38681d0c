// The bdf method (`integrator.method: bdf`): variable-order (1-5) BDF with a modified Newton
// iteration whose Jacobian and sparse LU are reused over many steps, as in VODE and CVODE.
//
// Form: quasi-constant step size on backward differences (Shampine & Reichelt 1997, the form of
// SciPy's BDF; equivalent to the Nordsieck array up to a fixed linear map). The history is
// D_j = nabla^j y_n, j = 0..order+2. A step of size h at order k predicts y_pred = sum_{j<=k} D_j
// and solves y - y_pred = c f(y) - psi with c = h / gamma_k, gamma_k = sum_{i<=k} 1/i and
// psi = sum_{1<=j<=k} gamma_j D_j / gamma_k; the local error is |y - y_pred| / (k + 1). A step-size
// change by r maps D_0..D_k by a (k+1) x (k+1) matrix (interpolation of the same polynomial).
// Why this form and not a fixed-leading-coefficient variable-step one: the formula's coefficients
// are constants per order (a GPU thread keeps no per-step coefficient arrays and does no
// variable-step recursion), and the step changes rarely (only when the wanted factor is >= 1.5,
// or after a failure), which is also when the iteration matrix would change; an order change is
// a change of k only, since D_{k+1}, D_{k+2} are kept. Nordsieck would need the same work per step
// change and more care on order changes (VODE's adjustments).
//
// Modified Newton on (I - c J) with J = J_sparse + u Z^T [+ v (Z^2)^T] (jacobian.hpp), solved as
// the implicit method does (M_s = I/c_lu - J_sparse in the sparse LU, Sherman-Morrison/Woodbury for
// the Ye and screening columns). Reuse rules, CVODE's: the LU is refactored when |c/c_lu - 1| >
// 0.3 (and then Newton updates are scaled by 2 / (1 + c/c_lu) to correct for the stale c), the
// Jacobian is evaluated anew at the prediction when it is 20 accepted steps old or when the Newton
// iteration fails with an older one (same h again); a failure with a fresh Jacobian cuts h by 4.
// Newton: at most 3 iterations, converged when (1/(k+1)) |update| min(1, rate) <= 0.1 in the
// error test's norm with a hundredth of its atol (newton_weight: the iteration error at most a
// tenth of the allowed local error, and trace species converged down to atol / 100; the rate is
// kept across steps), failed when an update grows by 2x. Step and order (CVODE/LSODE): after a
// rejection h *= 0.9 err^(-1/(k+1)) within [0.2, 0.9] (the second in a row: at most 0.2, the third:
// order 1, at most 0.1); after k+1 accepted steps of equal size the errors at orders k-1, k, k+1
// (from D_k and D_{k+2}) give three step factors (bias err)^(-1/(order+1)) with biases 1.3, 1.2,
// 1.4, each at most 10; the largest picks the order (a tie keeps it: when the step may grow 10x
// at two orders, the noise of a tiny estimate does not choose) and, if >= 1.5, the new step;
// otherwise order and h stay (the LU stays valid). The settings' max_dt_growth is not used.
// Rounding: every step factor (after a rejection, before the clamps; a growth, after the cap) is
// rounded down to 8 values per octave, m 2^e with m in {8..15}/16 (quantize_step_factor, exact
// operations). The error estimate is a small difference (about rtol of the abundances), so
// rounding moves it by about 1e-16 / (rtol err) relative; a factor taken from it unrounded made
// h differ in the last bits, every later estimate differ more (1e-9 after one step, 1e-6 a few
// steps on), and a rounding change (another summation order, rtol one ulp larger) move the result
// by up to 1e-3 relative and change step counts (validation/README.md, "bdf and rounding"). With
// the grid the same steps are taken unless an estimate lies within its noise of a grid point.
//
// The error norm is the other methods': max_i |err_i| / (atol + rtol max(|Y_i|, |Y_new,i|)) on
// the abundances. The released energy is one more component of the history (E' = S(Y), its Newton
// row the energy row, exact), not in the error norm, as in Rodas3. Accepted abundances are floored
// at abundance_floor in the history too (the state is the history's D_0), and renormalising scales
// the whole history. Counts: rhs_evaluations (Newton iterations and Jacobians each one flux
// evaluation), jacobian_evaluations, factorizations.
//
// Self-heating (physics.self_heating, physics/self_heating.hpp): T9 is one more column of the
// history (after the energy), predicted, corrected by the Newton iteration and in the error test
// (scaled by atol + rtol max(|T9|, |T9_new|)) and the order selection as the abundances are; each
// flux evaluation takes the rate factors at the iterate's T9. The Newton matrix is bordered by T's
// column, row and corner as in the implicit method (temperature_border, implicit.hpp) and solved by
// the same block elimination (w = M^-1 b once per factorisation, then one scalar per update); the
// border is reused with the Jacobian. Energy balance (tests/test_self_heating_energy.cpp): within
// 1e-6 of the mass-excess release at rtol 1e-8, 1.6e-6 at most at rtol 1e-6. Not supported: the
// geometric schedule (the deck refuses it; a direct call runs the steps at order 1 with a failed
// Newton iteration stopping the zone as non_finite). On the GPU backend the deck refuses
// self-heating with bdf (its kernel does not carry T9); this code is host/device so that a kernel
// can reuse it.
// Host/device: no allocation, exceptions or containers. Workspace: the implicit method's layout
// (ImplicitStructure) followed by the history, (max_order + 3) x (species + 1) doubles.
#pragma once

#include <cmath>
#include <cstdint>

#include "common/portability.hpp"
#include "integrators/asymptotic.hpp"
#include "integrators/implicit.hpp"
#include "integrators/jacobian.hpp"
#include "integrators/method_network.hpp"
#include "integrators/settings.hpp"
#include "integrators/sparse_lu.hpp"
#include "integrators/step_control.hpp"
#include "network/rates.hpp"

namespace zoneode {

namespace bdf {

inline constexpr int max_order = 5;
inline constexpr int history_rows = max_order + 3;       // D_0 .. D_{max_order+2}
inline constexpr int newton_max_iterations = 3;
inline constexpr double newton_tolerance = 0.1;          // of the error test's bound
inline constexpr double newton_divergence = 2.0;         // an update this much larger than the last: failed
inline constexpr double newton_rate_decay = 0.3;         // the kept convergence rate decays at most this fast
// The Newton test's weight of species i at history value y: the error test's rtol, a hundredth of its
// atol. With atol itself a species below atol counts for nothing in the test, so the iteration could
// stop after one update with such a species' corrector still far from converged: its value kept the
// order-5 predictor's extrapolation, which multiplied rounding differences ~4x per step (s150 at rtol
// 1e-8: he4 one ulp larger moved o17 near atol by 1.16 x rtol; validation/README.md, "bdf and
// rounding"). Converged to atol / 100 they follow the corrector, which damps them: 4.5e-4 x rtol on
// 1,024 zones; over the validation cases right-hand sides -16% to +26%, errors within 3.6x of before.
inline constexpr double newton_atol_share = 1e-2;
ZONEODE_HD inline double newton_weight(const IntegratorSettings& settings, double y) {
  return newton_atol_share * settings.atol + settings.rtol * fabs(y);
}
inline constexpr double gamma_ratio_limit = 0.3;         // refactor when |c / c_lu - 1| exceeds this
inline constexpr int jacobian_max_age = 20;              // accepted steps before a new Jacobian
inline constexpr double step_safety = 0.9;
inline constexpr double step_change_threshold = 1.5;     // smaller wanted growth: keep h (and the LU)
inline constexpr double max_step_factor = 10.0;
inline constexpr double min_step_factor = 0.2;
inline constexpr double convergence_failure_factor = 0.25;
inline constexpr int error_failures_to_order_one = 3;
inline constexpr double step_factor_grid = 16.0;         // step factors rounded down to 8 values per octave

// A step factor rounded down to m 2^e with m in {8, 9, .., 15} / 16: exact operations only, so
// that every platform makes the same step from the same (or a rounding-perturbed) error estimate.
ZONEODE_HD inline double quantize_step_factor(double x) {
  int e = 0;
  const double m = frexp(x, &e);  // x = m 2^e, m in [0.5, 1)
  return ldexp(floor(m * step_factor_grid) / step_factor_grid, e);
}

// Statistics a test can ask for (integrate_zone's last argument; null in production).
struct Trace {
  int highest_order = 0;                       // highest order a step was accepted at
  std::int64_t steps_at_order[bdf::max_order + 1] = {};  // accepted steps per order (index 1..5)
  std::int64_t newton_failures = 0;            // attempts whose Newton iteration failed
  std::int64_t order_changes = 0;
};

// gamma_k = sum_{i=1..k} 1/i (k = 0..max_order + 1).
ZONEODE_HD inline double gamma_sum(int k) {
  constexpr double table[max_order + 2] = {0.0, 1.0, 1.5, 11.0 / 6.0, 25.0 / 12.0, 137.0 / 60.0, 49.0 / 20.0};
  return table[k];
}
// The local error of order k is error_constant(k) (y - y_pred).
ZONEODE_HD inline double error_constant(int k) { return 1.0 / (k + 1); }

// A Newton iteration's verdict after its update's weighted norm (the serial method and the team
// kernel, kernels/bdf/bdf_team.hpp, both ask it): failed (a non-finite norm, or diverging), converged
// ((1/(k+1)) norm min(1, rate) <= newton_tolerance), or go on. rate and previous_norm carry over:
// rate across steps, previous_norm across iterations (m: the iteration, from 0).
enum class NewtonVerdict { failed, converged, again };
ZONEODE_HD inline NewtonVerdict newton_verdict(int m, int order, double norm, double& rate, double& previous_norm) {
  if (!is_finite(norm)) return NewtonVerdict::failed;
  if (m > 0) rate = fmax(newton_rate_decay * rate, norm / previous_norm);
  if (error_constant(order) * norm * fmin(1.0, rate) <= newton_tolerance) return NewtonVerdict::converged;
  if (m > 0 && norm > newton_divergence * previous_norm) return NewtonVerdict::failed;
  previous_norm = norm;
  return NewtonVerdict::again;
}

// The released energy's Newton update: the energy row of I - c J is (-c energy_row, 1), so its
// update is exact given the species' (energy_dot: energy_row . the species' update).
ZONEODE_HD inline void update_newton_energy(double c, double release, double psi_energy, double energy_dot, double& energy,
                                            double& energy_correction) {
  const double energy_update = c * release - psi_energy - energy_correction + c * energy_dot;
  energy += energy_update;
  energy_correction += energy_update;
}

// Self-heating: T9's part of one Newton update x (already scaled by the ratio): the iterate and
// correction move, the energy coupling gains dS/dT9 x, and the norm T9's term (weighed as the
// species are, by atol + rtol |T9| of D_0). The serial method and the team kernel both.
ZONEODE_HD inline void update_newton_T9(double x, double release_dT9, const IntegratorSettings& settings,
                                        double history_T9, double& iterate_T9, double& correction_T9,
                                        double& energy_dot, double& norm) {
  iterate_T9 += x;
  correction_T9 += x;
  energy_dot += release_dT9 * x;
  norm = combine_error(norm, fabs(x) / (settings.atol + settings.rtol * fabs(history_T9)));
}

// Doubles of scratch one zone needs: the implicit method's workspace, then the history.
// History width: the species, the released energy and, with self-heating, T9.
inline std::int64_t workspace_doubles(const MethodNetwork& network) {
  return network.implicit.layout.total +
         static_cast<std::int64_t>(history_rows) * (network.step.species_count + 1 + (network.step.self_heating ? 1 : 0));
}

// R(k, r): the (k+1) x (k+1) matrix that maps backward differences of step h to those of step r h
// (R(k, r) R(k, 1) applied to D_0..D_k; Shampine & Reichelt's change of step).
ZONEODE_HD inline void step_change_matrix(int order, double factor, double R[max_order + 1][max_order + 1]) {
  for (int j = 0; j <= order; ++j) R[0][j] = 1.0;
  for (int i = 1; i <= order; ++i) {
    R[i][0] = 0.0;
    for (int j = 1; j <= order; ++j) R[i][j] = R[i - 1][j] * (i - 1 - factor * j) / i;
  }
}

// RU = R(order, factor) R(order, 1): the map of D_0..D_order to a step `factor` times the current one.
ZONEODE_HD inline void step_change_product(int order, double factor, double RU[max_order + 1][max_order + 1]) {
  double R[max_order + 1][max_order + 1], U[max_order + 1][max_order + 1];
  step_change_matrix(order, factor, R);
  step_change_matrix(order, 1.0, U);
  for (int i = 0; i <= order; ++i) {
    for (int j = 0; j <= order; ++j) {
      double sum = 0.0;
      for (int m = 0; m <= order; ++m) sum += R[i][m] * U[m][j];
      RU[i][j] = sum;
    }
  }
}

// Column i of D_0..D_order (width values a row) mapped by RU (step_change_product).
template <typename Array>
ZONEODE_HD inline void rescale_history_column(Array history, int width, int order,
                                              const double RU[max_order + 1][max_order + 1], int i) {
  double old[max_order + 1];
  for (int m = 0; m <= order; ++m) old[m] = history[m * width + i];
  for (int j = 0; j <= order; ++j) {
    double sum = 0.0;
    for (int m = 0; m <= order; ++m) sum += RU[m][j] * old[m];
    history[j * width + i] = sum;
  }
}

// D_0..D_order (width values each) for a step `factor` times the current one.
template <typename Array>
ZONEODE_HD inline void rescale_history(Array history, int width, int order, double factor) {
  double RU[max_order + 1][max_order + 1];
  step_change_product(order, factor, RU);
  for (int i = 0; i < width; ++i) rescale_history_column(history, width, order, RU, i);
}

// The step factor after the error_failures-th error-test failure in a row at `order` (CVODE's
// sequence): the estimate's factor (on the grid, at most 0.9), from the second failure in a row at
// most 0.2, from the third at most 0.1 (and the caller drops to order 1).
ZONEODE_HD inline double rejected_step_factor(double error, int order, int error_failures) {
  double factor = fmin(0.9, fmax(min_step_factor, quantize_step_factor(step_safety * pow(error, -1.0 / (order + 1)))));
  if (error_failures >= 2) factor = fmin(factor, min_step_factor);
  if (error_failures >= error_failures_to_order_one) factor = fmin(factor, 0.1);
  return factor;
}

// After order + 1 accepted steps of equal size: from the step's error and the errors it would have
// had at orders order - 1 and order + 1, the order with the largest step factor (LSODE's biases
// 1.3 lower, 1.2 same, 1.4 higher against changing the order on estimates that are noisier than
// the error test's; each factor at most 10, a tie keeps the order) and that factor on the grid.
struct StepChoice {
  double factor;
  int order;
};
ZONEODE_HD inline StepChoice choose_step(double error, double error_lower, double error_higher, int order) {
  auto step_factor = [](double err, int estimate_order, double bias) {
    return err > 0.0 ? fmin(max_step_factor, 1.0 / (pow(bias * err, 1.0 / (estimate_order + 1)) + 1e-6)) : max_step_factor;
  };
  const double factor_lower = order > 1 ? step_factor(error_lower, order - 1, 1.3) : 0.0;
  const double factor_same = step_factor(error, order, 1.2);
  const double factor_higher = order < max_order ? step_factor(error_higher, order + 1, 1.4) : 0.0;
  StepChoice choice{factor_same, order};
  if (factor_lower > choice.factor) choice = {factor_lower, order - 1};
  if (factor_higher > choice.factor) choice = {factor_higher, order + 1};
  choice.factor = quantize_step_factor(fmin(max_step_factor, choice.factor));
  return choice;
}

// x <- M^-1 x for the x a sparse solve with M_s left: the Ye column's rank-one correction
// (Sherman-Morrison) and, weak screening, the screening column's (Woodbury). The same arithmetic
// as the implicit method's (implicit.hpp, a lambda there, so copied here).
struct LowRank {
  bool ye_rank = false, z2_rank = false;
  double ye_denominator = 1.0, c12 = 0.0, c21 = 0.0, c22 = 1.0;
};

template <typename Array>
ZONEODE_HD inline void low_rank_correct(const StepView& net, const LowRank& low, const ImplicitWorkspace<Array>& work,
                                        Array x) {
  const int n = net.species_count;
  if (low.ye_rank && !low.z2_rank) {
    double z_dot_k = 0.0;
    for (int i = 0; i < n; ++i) z_dot_k += net.species_Z[i] * x[i];
    const double correction = z_dot_k / low.ye_denominator;
    for (int i = 0; i < n; ++i) x[i] += correction * work.ye_solution[i];
  } else if (low.z2_rank) {
    double z_dot_k = 0.0, z2_dot_k = 0.0;
    for (int i = 0; i < n; ++i) {
      z_dot_k += net.species_Z[i] * x[i];
      z2_dot_k += net.species_Z[i] * net.species_Z[i] * x[i];
    }
    const double determinant = low.ye_denominator * low.c22 - low.c12 * low.c21;
    const double along_w = (low.c22 * z_dot_k - low.c12 * z2_dot_k) / determinant;
    const double along_x = (low.ye_denominator * z2_dot_k - low.c21 * z_dot_k) / determinant;
    for (int i = 0; i < n; ++i) x[i] += along_w * work.ye_solution[i] + along_x * work.screening_solution[i];
  }
}

// Integrates one zone at T9 [GK] and rho [g/cm^3] from settings.start_time to end_time; the
// contract of every method's integrate_zone (integrators/methods.hpp). trace: null, or statistics.
template <typename Abundances, typename Array>
ZONEODE_HD inline void integrate_zone(const MethodNetwork& network, const IntegratorSettings& settings, double T9,
                                      double rho, Abundances Y, Array workspace, ZoneResult& result, Trace* trace) {
  const RateView& rates = network.rates;
  const StepView& net = network.step;
  const ImplicitView& imp = network.implicit;
  const ImplicitWorkspace<Array> work = implicit_workspace_at(imp.layout, workspace);
  const int n = net.species_count;
  const bool heating = net.self_heating != 0;
  // The species, then the released energy [MeV mol/g] since the last step, then (self-heating) T9.
  const int width = n + 1 + (heating ? 1 : 0);
  const int t_column = n + 1;  // T9's column (self-heating only)
  const Array history = workspace + imp.layout.total;
  const Array iterate = work.stages;          // the Newton iterate y
  const Array correction = work.stages + n;   // y - y_pred
  const Array psi = work.stages + 2 * n;
  const Array update = work.stages + 3 * n;   // one Newton update
  const Array f = work.state;                 // f at the iterate
  const double initial_mass = mass_fraction_sum(net, Y);
  StepControl control(settings, initial_mass, zone_input_valid(T9, rho, all_finite(n, Y), initial_mass));
  if (control.running()) zone_rate_factors<true>(rates, T9, rho, work.rate_factor);
  std::int64_t rhs_evaluations = 0, jacobian_evaluations = 0, factorizations = 0;
  const bool ye_rank = imp.jacobian.ye_term_count > 0 || net.screening != 0;
  const bool z2_rank = net.screening == static_cast<int>(ScreeningKind::weak);
  LowRank low;
  low.ye_rank = ye_rank;
  low.z2_rank = z2_rank;

  int order = 1;
  bool history_ready = false;
  double history_step = 0.0;     // the step D is written for
  int equal_steps = 0;           // accepted steps since the last change of h or order
  int error_failures = 0;        // consecutive error-test failures
  bool jacobian_valid = false;
  int jacobian_age = 0;          // accepted steps since the Jacobian was evaluated
  bool lu_valid = false;
  double lu_c = 0.0;             // c of the factorised matrix
  double rate = 1.0;             // the Newton convergence rate, kept across steps
  double release = 0.0;          // S at the iterate [MeV mol/(g s)]
  // Self-heating: T9 is one more component (implicit.hpp's bordered system): its iterate (the
  // prediction, then the Newton iterates), correction and psi, g = dT9/dt at the iterate, and the
  // border's pieces.
  double iterate_T9 = T9, correction_T9 = 0.0, psi_T9 = 0.0, heating_value = 0.0;
  double evaluated_T9 = T9;  // the T9 of the last flux evaluation (the rate factors' T9)
  double release_dT9 = 0.0, heating_dT9 = 0.0, temperature_denominator = 1.0;

  // f and S at `y` (one flux evaluation); with self-heating at the iterate's T9 (its rate factors
  // anew) and g there too.
  auto evaluate = [&](Array y) {
    if (heating) {
      evaluated_T9 = fmax(iterate_T9, self_heating_min_T9);
      zone_rate_factors<true>(rates, evaluated_T9, rho, work.rate_factor);
    }
    zone_fluxes(net, work.rate_factor, y, work.flux, evaluated_T9, rho);
    species_rates_in_lanes(net, work.flux, f);  // the team kernel's rounding (jacobian.hpp)
    release = energy_release_rate(net, work.flux);
    if (heating)
      heating_value = heating_rate(release, composition_rates_of(net, f), evaluated_T9, rho, ion_sum(net, y),
                                   electron_fraction(net, y), net.eos_table);
    ++rhs_evaluations;
  };

  while (control.begin_attempt()) {
    const double h = control.step();
    if (!history_ready) {  // D_0 = Y, D_1 = h f(Y), the rest 0
      for (int i = 0; i < n; ++i) iterate[i] = Y[i];
      evaluate(iterate);
      for (int q = 0; q < history_rows * width; ++q) history[q] = 0.0;
      for (int i = 0; i < n; ++i) {
        history[i] = Y[i];
        history[width + i] = h * f[i];
      }
      history[width + n] = h * release;
      if (heating) {
        history[t_column] = T9;
        history[width + t_column] = h * heating_value;
      }
      history_step = h;
      history_ready = true;
    } else if (h != history_step) {
      rescale_history(history, width, order, h / history_step);
      history_step = h;
      equal_steps = 0;
    }
    const double c = h / gamma_sum(order);
    double predicted_energy = 0.0, psi_energy = 0.0;
    auto predict = [&]() {
      for (int i = 0; i < width; ++i) {
        double y = 0.0, p = 0.0;
        for (int j = 0; j <= order; ++j) y += history[j * width + i];
        for (int j = 1; j <= order; ++j) p += gamma_sum(j) * history[j * width + i];
        if (i < n) {
          iterate[i] = y;
          psi[i] = p / gamma_sum(order);
        } else if (i == n) {
          predicted_energy = y;
          psi_energy = p / gamma_sum(order);
        } else {
          iterate_T9 = y;
          psi_T9 = p / gamma_sum(order);
        }
      }
    };
    predict();

    bool converged = false, jacobian_fresh = false, f_at_iterate = false, refresh = false;
    double energy = predicted_energy, energy_correction = 0.0;
    for (;;) {
      if (!jacobian_valid || jacobian_age >= jacobian_max_age || refresh) {  // J (and f, S) at the prediction
        evaluate(iterate);
        f_at_iterate = true;
        flux_derivative_slots(net, imp.jacobian, work.rate_factor, iterate, work.slot, evaluated_T9, rho);
        jacobian_from_slots(n, imp.jacobian, work.slot, work.jacobian, work.ye_column, work.energy_row);
        if (net.screening != 0)  // the fluxes at the prediction become scratch (f, S are kept)
          screening_jacobian_columns(net, evaluated_T9, rho, iterate, work.flux, work.ye_column,
                                     work.screening_column, work.energy_row);
        if (heating) {  // T's column, row and corner at the prediction (implicit.hpp)
          const TemperatureBorder border =
              temperature_border(rates, net, imp, work, work.rate_factor, evaluated_T9, rho, iterate, f, release);
          release_dT9 = border.release_dT9;
          heating_dT9 = border.heating_dT9;
        }
        ++jacobian_evaluations;
        jacobian_valid = true;
        jacobian_fresh = true;
        jacobian_age = 0;
        lu_valid = false;
      }
      if (!lu_valid || fabs(c / lu_c - 1.0) > gamma_ratio_limit) {
        const double diagonal = 1.0 / c;
        for (int q = 0; q < imp.lu.filled_count; ++q) work.matrix[q] = 0.0;
        for (int p = 0; p < n; ++p) work.matrix[imp.lu.diagonal[p]] = diagonal;
        for (int e = 0; e < imp.jacobian.entry_count; ++e) work.matrix[imp.entry_position[e]] -= work.jacobian[e];
        sparse_lu_factor(imp.lu, work.matrix);
        ++factorizations;
        low.ye_denominator = 1.0;
        low.c12 = 0.0;
        low.c21 = 0.0;
        low.c22 = 1.0;
        if (ye_rank) {
          sparse_lu_solve(imp.lu, work.matrix, work.ye_column, work.ye_solution, work.solve);
          for (int i = 0; i < n; ++i) low.ye_denominator -= net.species_Z[i] * work.ye_solution[i];
        }
        if (z2_rank) {
          sparse_lu_solve(imp.lu, work.matrix, work.screening_column, work.screening_solution, work.solve);
          for (int i = 0; i < n; ++i) {
            const double Z = net.species_Z[i];
            low.c12 -= Z * work.screening_solution[i];
            low.c21 -= Z * Z * work.ye_solution[i];
            low.c22 -= Z * Z * work.screening_solution[i];
          }
        }
        if (heating) {  // w = M^-1 b and the Schur complement 1/lu_c - d - c . w (implicit.hpp)
          sparse_lu_solve(imp.lu, work.matrix, work.temperature_column, work.temperature_solution, work.solve);
          low_rank_correct(net, low, work, work.temperature_solution);
          temperature_denominator = diagonal - heating_dT9;
          for (int i = 0; i < n; ++i) temperature_denominator -= work.temperature_row[i] * work.temperature_solution[i];
        }
        lu_c = c;
        lu_valid = true;
        rate = 1.0;
      }
      // Modified Newton from the prediction: (I/lu_c - J) x = r / lu_c, r = c f - psi - (y - y_pred).
      for (int i = 0; i < n; ++i) correction[i] = 0.0;
      energy = predicted_energy;
      energy_correction = 0.0;
      correction_T9 = 0.0;
      const double ratio_scale = 2.0 / (1.0 + c / lu_c);
      double previous_norm = 0.0;
      for (int m = 0; m < newton_max_iterations; ++m) {
        if (!f_at_iterate) evaluate(iterate);
        f_at_iterate = false;
        if (!all_finite(n, f) || !is_finite(release)) break;
        for (int i = 0; i < n; ++i) work.rhs[i] = (c * f[i] - psi[i] - correction[i]) / lu_c;
        sparse_lu_solve(imp.lu, work.matrix, work.rhs, update, work.solve);
        low_rank_correct(net, low, work, update);
        double update_T9 = 0.0;
        if (heating) {  // the bordered system's T row, then update += update_T9 w
          double row_dot_x = 0.0;
          for (int i = 0; i < n; ++i) row_dot_x += work.temperature_row[i] * update[i];
          update_T9 = ((c * heating_value - psi_T9 - correction_T9) / lu_c + row_dot_x) / temperature_denominator;
          for (int i = 0; i < n; ++i) update[i] += update_T9 * work.temperature_solution[i];
        }
        double norm = 0.0, energy_dot = 0.0;
        for (int i = 0; i < n; ++i) {
          const double x = ratio_scale * update[i];
          iterate[i] += x;
          correction[i] += x;
          energy_dot += work.energy_row[i] * x;
          norm = combine_error(norm, fabs(x) / newton_weight(settings, history[i]));
        }
        if (heating)
          update_newton_T9(ratio_scale * update_T9, release_dT9, settings, history[t_column], iterate_T9,
                           correction_T9, energy_dot, norm);
        update_newton_energy(c, release, psi_energy, energy_dot, energy, energy_correction);
        const NewtonVerdict verdict = newton_verdict(m, order, norm, rate, previous_norm);
        converged = verdict == NewtonVerdict::converged;
        if (verdict != NewtonVerdict::again) break;
      }
      if (converged || jacobian_fresh) break;
      refresh = true;  // failed with an older Jacobian: a new one at the prediction, same h
      predict();
    }

    AttemptReductions reductions;
    if (!converged) {
      if (trace) ++trace->newton_failures;
      reductions.error_norm = INFINITY;
      reductions.finite = false;  // adaptive: a rejection (error > 1); geometric: the zone stops
      if (control.end_attempt(reductions, 2) == StepVerdict::retry) {
        control.set_next_step(h * convergence_failure_factor);
        equal_steps = 0;
      }
      continue;
    }
    for (int i = 0; i < n; ++i) {
      const double scale = settings.atol + settings.rtol * fmax(fabs(history[i]), fabs(iterate[i]));
      reductions.error_norm = combine_error(reductions.error_norm, error_constant(order) * fabs(correction[i]) / scale);
    }
    if (heating) {
      const double scale = settings.atol + settings.rtol * fmax(fabs(history[t_column]), fabs(iterate_T9));
      reductions.error_norm = combine_error(reductions.error_norm, error_constant(order) * fabs(correction_T9) / scale);
    }
    const double released = energy - history[n];  // D_0's energy is 0 after every step
    reductions.finite = all_finite(n, iterate) && is_finite(released) && (!heating || is_finite(iterate_T9));
    reductions.mass = mass_fraction_sum(net, iterate);
    reductions.release_rate_start = released / h;
    reductions.release_rate_mid = released / h;
    const double error = reductions.error_norm;
    const StepVerdict verdict = control.end_attempt(reductions, 2);
    if (verdict == StepVerdict::retry) {
      ++error_failures;
      const double factor = rejected_step_factor(error, order, error_failures);
      if (error_failures >= error_failures_to_order_one && order > 1) {
        order = 1;
        if (trace) ++trace->order_changes;
      }
      control.set_next_step(h * factor);
      equal_steps = 0;
      continue;
    }
    if (verdict != StepVerdict::accepted) continue;  // stopped: begin_attempt() ends the loop

    // Accepted: D_{k+2} = d - D_{k+1}, D_{k+1} = d, D_j += D_{j+1} (j = k..0), so D_0 = y_new.
    error_failures = 0;
    for (int i = 0; i < width; ++i) {
      const double d = i < n ? correction[i] : (i == n ? energy_correction : correction_T9);
      history[(order + 2) * width + i] = d - history[(order + 1) * width + i];
      history[(order + 1) * width + i] = d;
      for (int j = order; j >= 0; --j) history[j * width + i] += history[(j + 1) * width + i];
    }
    history[n] = 0.0;
    const double scale = control.scale();
    if (scale != 1.0) {  // renormalising: the whole history scales with the state
      for (int j = 0; j < history_rows; ++j)
        for (int i = 0; i < n; ++i) history[j * width + i] *= scale;
    }
    // Exhausted species may come out slightly negative (of the order of atol): floored, as the
    // other methods do, in the history's D_0 too, which is the state.
    for (int i = 0; i < n; ++i) {
      history[i] = fmax(history[i], settings.abundance_floor);
      Y[i] = history[i];
    }
    if (heating) {  // as the implicit method: T9 never below its floor
      history[t_column] = fmax(history[t_column], self_heating_min_T9);
      T9 = history[t_column];
    }
    ++equal_steps;
    ++jacobian_age;
    if (trace) {
      if (order > trace->highest_order) trace->highest_order = order;
      ++trace->steps_at_order[order];
    }
    if (!control.running()) break;

    if (equal_steps < order + 1 || settings.schedule != StepSchedule::adaptive) {
      control.set_next_step(h);
      continue;
    }
    // The errors the step would have had at orders k-1 and k+1, and the step factor of each.
    double error_lower = INFINITY, error_higher = INFINITY;
    if (order > 1 || order < max_order) {
      error_lower = order > 1 ? 0.0 : INFINITY;
      error_higher = order < max_order ? 0.0 : INFINITY;
      for (int i = 0; i < width; ++i) {
        if (i == n) continue;  // the released energy is not in the error norm
        const double weight = settings.atol + settings.rtol * fabs(history[i]);
        if (order > 1)
          error_lower = combine_error(error_lower, error_constant(order - 1) * fabs(history[order * width + i]) / weight);
        if (order < max_order)
          error_higher =
              combine_error(error_higher, error_constant(order + 1) * fabs(history[(order + 2) * width + i]) / weight);
      }
    }
    const StepChoice choice = choose_step(error, error_lower, error_higher, order);
    if (choice.factor >= step_change_threshold) {
      if (choice.order != order && trace) ++trace->order_changes;
      order = choice.order;
      equal_steps = 0;
      control.set_next_step(h * choice.factor);
    } else {
      control.set_next_step(h);
    }
  }
  result = control.finish(mass_fraction_sum(net, Y));
  result.final_T9 = T9;
  result.rhs_evaluations = rhs_evaluations;
  result.jacobian_evaluations = jacobian_evaluations;
  result.factorizations = factorizations;
}

template <typename Abundances, typename Array>
ZONEODE_HD inline void integrate_zone(const MethodNetwork& network, const IntegratorSettings& settings, double T9,
                                      double rho, Abundances Y, Array workspace, ZoneResult& result) {
  integrate_zone(network, settings, T9, rho, Y, workspace, result, static_cast<Trace*>(nullptr));
}

}  // namespace bdf

}  // namespace zoneode
