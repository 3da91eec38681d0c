// bdf (integrators/bdf.hpp) with one zone integrated by a team of threads: the same steps, the same
// StepControl, the same decisions and per-value arithmetic as the serial method, on the implicit
// team's pieces (implicit_team.hpp): its flux and species-rate phases, its Jacobian gathers, its
// LU by phases of the elimination DAG and its wave-level triangular solves. What bdf adds runs over
// the team too: the history of backward differences (prediction, step change, update) one column
// per thread, the Newton iteration's vectors per species, its norms and the energy coupling as the
// team's reductions. Sums over species (Ye, Z.x, the energy coupling, mass) are rounded in the
// team's order, so a result differs from the serial method's in the last bits, and bdf's discrete
// choices (Newton iterations, refactorisation, order) can turn that into a different path where the
// serial method would itself take another for rtol one ulp away (tests/test_bdf_team.cpp).
//
// Why a team: the one-zone-per-thread kernel (bdf_thread.hpp) runs the serial code at 128
// registers with its LU values and history in global memory; bdf's steps are mostly Newton
// iterations (a flux evaluation and one solve each) with a factorisation every few steps, the
// latency-bound parts that the implicit team kernel keeps on chip.
//
// Scope: screening with the PHYSICS instantiation, as the implicit team; self-heating with HEATING
// (and PHYSICS), as the serial method: T9 one more column of the history, predicted, corrected and
// error-controlled as an abundance, the rate factors (and g) at the iterate's T9 at every flux
// evaluation, the Newton matrix bordered by T's column, row and corner (the implicit team's
// temperature_border, solved beside the Ye column) and reused with the Jacobian. Workspace: the
// implicit team's arrays (ImplicitTeamArrays) plus the history, bdf::history_rows x (species + 1
// [+ 1 with self-heating]) doubles, wherever the kernel placed it.
#pragma once

#include <cmath>
#include <cstdint>

#include "common/portability.hpp"
#include "implicit/implicit_team.hpp"
#include "integrators/bdf.hpp"

namespace zoneode {

namespace bdf_team {

// Doubles of a zone's history: the species, the released energy and, with self-heating, T9.
ZONEODE_HD inline std::int64_t history_doubles(int species_count, bool self_heating = false) {
  return static_cast<std::int64_t>(bdf::history_rows) * (species_count + 1 + (self_heating ? 1 : 0));
}

// The zone in w.Y (species_count values, in and out) from settings.start_time to end_time at T9
// [GK] and rho [g/cm^3]; the contract of bdf::integrate_zone. history: history_doubles(species,
// HEATING && the view's self-heating) doubles of the team's. Every thread returns the result.
// columns: as implicit_team's. HEATING (with PHYSICS): self-heating as the step view's flag asks;
// without it the code is not there.
template <bool PHYSICS = false, bool HEATING = false, typename Team, typename Columns>
ZONEODE_HD inline ZoneResult integrate_zone(const Team& team, const MethodNetwork& network,
                                            const ImplicitScheduleView& sc, const IntegratorSettings& settings,
                                            double T9, double rho, const ImplicitTeamArrays& w, double* history,
                                            const Columns& columns) {
  static_assert(PHYSICS || !HEATING, "self-heating runs in the physics instantiation");
  using namespace bdf;
  const StepView& net = network.step;
  const ImplicitView& imp = network.implicit;
  const int n = net.species_count;
  const bool heating = HEATING && net.self_heating != 0;
  // The species, then the released energy [MeV mol/g] since the last step, then (self-heating) T9.
  const int width = n + 1 + (heating ? 1 : 0);
  const int t_column = n + 1;  // T9's column (self-heating only)
  double* const Y = w.Y;
  double* const iterate = w.stages;           // the Newton iterate y
  double* const correction = w.stages + n;    // y - y_pred
  double* const psi = w.stages + 2 * n;
  double* const update = w.stages + 3 * n;    // one Newton update
  double* const f = w.f0;                     // f at the latest evaluation
  // The Jacobian is evaluated at the prediction: the team's Jacobian reads the state from .Y.
  ImplicitTeamArrays at_iterate = w;
  at_iterate.Y = iterate;
  auto Z_times = [&](const double* x) { return implicit_team::z_sum(team, net, x); };
  auto Z2_times = [&](const double* x) { return implicit_team::z2_sum(team, net, x); };
  const double initial_mass = team.sum(n, [&](int i) { return net.species_A[i] * Y[i]; });
  const bool finite = team.sum(n, [&](int i) { return is_finite(Y[i]) ? 0.0 : 1.0; }) == 0.0;
  StepControl control(settings, initial_mass, zone_input_valid(T9, rho, finite, initial_mass));
  // Every reaction's rate factor at at_T9 [GK] (self-heating's evaluations; synced: as team_rate_factors).
  auto rate_factors_at = [&](double at_T9, bool synced = true) {
    implicit_team::team_rate_factors<HEATING>(team, network.rates, at_T9, rho, w.rate_factor, synced);
  };
  if (control.running()) {
    if (heating) {
      rate_factors_at(T9);
    } else {
      team.for_each(network.rates.reaction_count,
                    [&](int r) { w.rate_factor[r] = reaction_rate_factor(network.rates, r, T9, rho); });
    }
  }
  std::int64_t rhs_evaluations = 0, jacobian_evaluations = 0, factorizations = 0;
  const bool screening = PHYSICS && net.screening != 0;
  const bool ye_rank = imp.jacobian.ye_term_count > 0 || screening;
  const bool z2_rank = PHYSICS && net.screening == static_cast<int>(ScreeningKind::weak);
  LowRank low;
  low.ye_rank = ye_rank;
  low.z2_rank = z2_rank;
  ScreeningPlasma plasma;  // at the latest flux evaluation's state, where screening is on
  const ScreeningPlasma* const screened = screening ? &plasma : nullptr;

  int order = 1;
  bool history_ready = false;
  double history_step = 0.0;
  int equal_steps = 0;
  int error_failures = 0;
  bool jacobian_valid = false;
  int jacobian_age = 0;
  bool lu_valid = false;
  double lu_c = 0.0;
  double rate = 1.0;
  double release = 0.0;  // S at the latest evaluation [MeV mol/(g s)]
  double evaluated_ye = 0.0;
  // Self-heating (bdf.hpp): T9's iterate (the prediction, then the Newton iterates), correction and
  // psi, g = dT9/dt at the iterate, the T9 of the last flux evaluation (the rate factors' T9) and the
  // border's pieces; the same on every thread.
  double iterate_T9 = T9, correction_T9 = 0.0, psi_T9 = 0.0, heating_value = 0.0;
  double evaluated_T9 = T9;
  double release_dT9 = 0.0, heating_dT9 = 0.0, temperature_denominator = 1.0;

  // f and S at y (one flux evaluation; the plasma there where screening is on); with self-heating
  // at the iterate's T9 (its rate factors anew) and g there too.
  auto evaluate = [&](const double* y) {
    if (heating) {
      evaluated_T9 = fmax(iterate_T9, self_heating_min_T9);
      rate_factors_at(team_heating_fault(TeamHeatingFault::stage_rates_at_step_T9) ? T9 : evaluated_T9,
                      false);  // completed by the sums' barrier below
    }
    double ions = 0.0;
    if (heating) {  // sum Z y and sum y on one barrier
      double state_sums[2];
      team.template sums<2>(n, [&](int i, double (&part)[2]) {
        part[0] = net.species_Z[i] * y[i];
        part[1] = y[i];
      }, state_sums);
      evaluated_ye = state_sums[0];
      ions = state_sums[1];
    } else {
      evaluated_ye = Z_times(y);
    }
    if (screening) plasma = implicit_team::plasma_at(team, net, evaluated_T9, rho, y, evaluated_ye);
    release = implicit_team::fluxes(team, net, w.rate_factor, y, evaluated_ye, w.flux, screened);
    implicit_team::species_rates_team(team, net, w.flux, [&](int i, double value) { f[i] = value; });
    if (heating) {
      double rate_sums[2];  // CompositionRates' two sums on one barrier
      team.template sums<2>(n, [&](int i, double (&part)[2]) {
        part[0] = f[i];
        part[1] = net.species_Z[i] * f[i];
      }, rate_sums);
      CompositionRates change;
      change.ions = rate_sums[0];
      change.ye = rate_sums[1];
      heating_value = heating_rate(release, change, evaluated_T9, rho, ions, evaluated_ye, net.eos_table);
    }
    ++rhs_evaluations;
  };
  // x += the low-rank part of M^-1 (bdf::low_rank_correct with the team's Z.x sums).
  auto low_rank = [&](double* x) {
    implicit_team::low_rank_correct(team, net, low, w.ye_solution, w.screening_solution, x);
  };

  while (control.begin_attempt()) {
    const double h = control.step();
    if (!history_ready) {  // D_0 = Y, D_1 = h f(Y), the rest 0
      team.for_each(n, [&](int i) { iterate[i] = Y[i]; });
      evaluate(iterate);
      team.for_each(width, [&](int i) {
        for (int j = 0; j < history_rows; ++j) history[j * width + i] = 0.0;
        history[i] = i < n ? Y[i] : (i == n ? 0.0 : T9);
        history[width + i] = i < n ? h * f[i] : (i == n ? h * release : h * heating_value);
      });
      history_step = h;
      history_ready = true;
    } else if (h != history_step) {  // bdf::rescale_history, a column per thread
      double RU[max_order + 1][max_order + 1];
      step_change_product(order, h / history_step, RU);
      team.for_each(width, [&](int i) { rescale_history_column(history, width, order, RU, i); });
      history_step = h;
      equal_steps = 0;
    }
    const double c = h / gamma_sum(order);
    double predicted_energy = 0.0, psi_energy = 0.0;
    auto predict = [&]() {
      team.for_each(n, [&](int i) {
        double y = 0.0, p = 0.0;
        for (int j = 0; j <= order; ++j) y += history[j * width + i];
        for (int j = 1; j <= order; ++j) p += gamma_sum(j) * history[j * width + i];
        iterate[i] = y;
        psi[i] = p / gamma_sum(order);
      });
      double y = 0.0, p = 0.0;  // the energy column, on every thread
      for (int j = 0; j <= order; ++j) y += history[j * width + n];
      for (int j = 1; j <= order; ++j) p += gamma_sum(j) * history[j * width + n];
      predicted_energy = y;
      psi_energy = p / gamma_sum(order);
      if (heating) {  // T9's column, on every thread
        double t = 0.0, q = 0.0;
        for (int j = 0; j <= order; ++j) t += history[j * width + t_column];
        for (int j = 1; j <= order; ++j) q += gamma_sum(j) * history[j * width + t_column];
        iterate_T9 = t;
        psi_T9 = q / gamma_sum(order);
      }
    };
    predict();

    bool converged = false, jacobian_fresh = false, f_at_iterate = false, refresh = false;
    double energy = predicted_energy, energy_correction = 0.0;
    for (;;) {
      if (!jacobian_valid || jacobian_age >= jacobian_max_age || refresh) {  // J (and f, S) at the prediction
        evaluate(iterate);
        f_at_iterate = true;
        implicit_team::jacobian(team, net, imp.jacobian, sc, at_iterate, evaluated_ye, screened);
        if (screening) implicit_team::screening_columns(team, net, plasma, w);  // the fluxes become scratch
        if (heating) {  // T's column, row and corner at the prediction; the Newton update's room as scratch
          const TemperatureBorder border = implicit_team::temperature_border(
              team, network, sc, at_iterate, evaluated_T9, rho, evaluated_ye, release, update, n);
          release_dT9 = border.release_dT9;
          heating_dT9 = border.heating_dT9;
        }
        ++jacobian_evaluations;
        jacobian_valid = true;
        jacobian_fresh = true;
        jacobian_age = 0;
        lu_valid = false;  // the Jacobian's gathers used the matrix's room
      }
      if (!lu_valid || fabs(c / lu_c - 1.0) > gamma_ratio_limit) {
        const double diagonal = 1.0 / c;
        team.for_each(imp.lu.filled_count, [&](int q) {
          const double base = sc.matrix_diagonal[q] ? diagonal : 0.0;
          const int e = sc.matrix_entry[q];
          w.matrix[q] = e >= 0 ? base - w.jacobian[e] : base;
        });
        implicit_team::factor(team, sc, w.matrix);
        ++factorizations;
        low.ye_denominator = 1.0;
        low.c12 = 0.0;
        low.c21 = 0.0;
        low.c22 = 1.0;
        // rhs and update are free here: the solves' scratch. With self-heating T's column is
        // solved beside the low-rank columns (w = M^-1 b, then its low-rank correction).
        if (z2_rank) {
          if (heating) {
            const double* const b[3] = {w.ye_column, w.screening_column, w.temperature_column};
            double* const x[3] = {w.ye_solution, w.screening_solution, w.temperature_solution};
            double* const work[3] = {w.solve, w.rhs, update};
            implicit_team::solve<3>(team, sc, columns, w.matrix, b, x, work);
          } else {
            const double* const b[2] = {w.ye_column, w.screening_column};
            double* const x[2] = {w.ye_solution, w.screening_solution};
            double* const work[2] = {w.solve, w.rhs};
            implicit_team::solve<2>(team, sc, columns, w.matrix, b, x, work);
          }
          low.ye_denominator = 1.0 - Z_times(w.ye_solution);
          low.c12 = -Z_times(w.screening_solution);
          low.c21 = -Z2_times(w.ye_solution);
          low.c22 = 1.0 - Z2_times(w.screening_solution);
        } else if (ye_rank) {
          if (heating) {
            const double* const b[2] = {w.ye_column, w.temperature_column};
            double* const x[2] = {w.ye_solution, w.temperature_solution};
            double* const work[2] = {w.solve, w.rhs};
            implicit_team::solve<2>(team, sc, columns, w.matrix, b, x, work);
          } else {
            implicit_team::solve(team, sc, columns, w.matrix, w.ye_column, w.ye_solution, w.solve);
          }
          low.ye_denominator = 1.0 - Z_times(w.ye_solution);
        } else if (heating) {
          implicit_team::solve(team, sc, columns, w.matrix, w.temperature_column, w.temperature_solution, w.solve);
        }
        if (heating) {  // the Schur complement 1/lu_c - d - c . w (bdf.hpp)
          low_rank(w.temperature_solution);
          const double corner = team_heating_fault(TeamHeatingFault::corner_dropped)
                                    ? 0.0
                                    : heating_dT9;
          temperature_denominator = (diagonal - corner) - team.sum(n, [&](int i) {
                                      return w.temperature_row[i] * w.temperature_solution[i];
                                    });
        }
        lu_c = c;
        lu_valid = true;
        rate = 1.0;
      }
      // Modified Newton from the prediction: (I/lu_c - J) x = r / lu_c, r = c f - psi - (y - y_pred).
      team.for_each(n, [&](int i) { correction[i] = 0.0; });
      energy = predicted_energy;
      energy_correction = 0.0;
      correction_T9 = 0.0;
      const double ratio_scale = 2.0 / (1.0 + c / lu_c);
      double previous_norm = 0.0;
      for (int m = 0; m < newton_max_iterations; ++m) {
        if (!f_at_iterate) evaluate(iterate);
        f_at_iterate = false;
        const double non_finite = team.sum(n, [&](int i) {
          w.rhs[i] = (c * f[i] - psi[i] - correction[i]) / lu_c;
          return is_finite(f[i]) ? 0.0 : 1.0;
        });
        if (non_finite != 0.0 || !is_finite(release)) break;
        implicit_team::solve(team, sc, columns, w.matrix, w.rhs, update, w.solve);
        low_rank(update);
        double update_T9 = 0.0;
        if (heating) {  // the bordered system's T row; update += update_T9 w in the pass below
          const double row_dot_x = team.sum(n, [&](int i) { return w.temperature_row[i] * update[i]; });
          update_T9 = ((c * heating_value - psi_T9 - correction_T9) / lu_c + row_dot_x) / temperature_denominator;
        }
        // The update applied, its norm and its energy coupling on one barrier.
        double newton_sums[2];
        team.template reduce_fused<1, 1>(n, [&](int i, double (&part)[2]) {
          if (heating) update[i] += update_T9 * w.temperature_solution[i];
          const double x = ratio_scale * update[i];
          iterate[i] += x;
          correction[i] += x;
          part[0] = fabs(x) / newton_weight(settings, history[i]);
          part[1] = w.energy_row[i] * x;
        }, newton_sums);
        double norm = newton_sums[0];
        double energy_dot = newton_sums[1];
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
      reductions.error_norm = INFINITY;
      reductions.finite = false;
      if (control.end_attempt(reductions, 2) == StepVerdict::retry) {
        control.set_next_step(h * convergence_failure_factor);
        equal_steps = 0;
      }
      continue;
    }
    // The error norm, the non-finite count and the mass of the iterate on one barrier.
    double attempt[3];
    team.template reduce_fused<1, 2>(n, [&](int i, double (&part)[3]) {
      const double scale = settings.atol + settings.rtol * fmax(fabs(history[i]), fabs(iterate[i]));
      part[0] = error_constant(order) * fabs(correction[i]) / scale;
      part[1] = is_finite(iterate[i]) ? 0.0 : 1.0;
      part[2] = net.species_A[i] * iterate[i];
    }, attempt);
    reductions.error_norm = attempt[0];
    if (heating) {
      const double scale = settings.atol + settings.rtol * fmax(fabs(history[t_column]), fabs(iterate_T9));
      reductions.error_norm = combine_error(reductions.error_norm, error_constant(order) * fabs(correction_T9) / scale);
    }
    const double released = energy - history[n];  // D_0's energy is 0 after every step
    const double non_finite = attempt[1];
    reductions.finite = non_finite == 0.0 && is_finite(released) && (!heating || is_finite(iterate_T9));
    reductions.mass = attempt[2];
    reductions.release_rate_start = released / h;
    reductions.release_rate_mid = released / h;
    const double error = reductions.error_norm;
    const StepVerdict verdict = control.end_attempt(reductions, 2);
    if (verdict == StepVerdict::retry) {
      ++error_failures;
      const double factor = rejected_step_factor(error, order, error_failures);
      if (error_failures >= error_failures_to_order_one) order = 1;
      control.set_next_step(h * factor);
      equal_steps = 0;
      continue;
    }
    if (verdict != StepVerdict::accepted) continue;

    // Accepted: D_{k+2} = d - D_{k+1}, D_{k+1} = d, D_j += D_{j+1} (j = k..0), so D_0 = y_new; the
    // renormalisation's scale and the floors (bdf.hpp) column by column.
    error_failures = 0;
    const double scale = control.scale();
    team.for_each(width, [&](int i) {
      const double d = i < n ? correction[i] : (i == n ? energy_correction : correction_T9);
      history[(order + 2) * width + i] = d - history[(order + 1) * width + i];
      history[(order + 1) * width + i] = d;
      for (int j = order; j >= 0; --j) history[j * width + i] += history[(j + 1) * width + i];
      if (i == n) {
        history[n] = 0.0;
        return;
      }
      if (i == t_column) {  // as the implicit method: T9 never below its floor
        history[i] = fmax(history[i], self_heating_min_T9);
        return;
      }
      if (scale != 1.0)
        for (int j = 0; j < history_rows; ++j) history[j * width + i] *= scale;
      history[i] = fmax(history[i], settings.abundance_floor);
      Y[i] = history[i];
    });
    if (heating) T9 = history[t_column];  // after the team's barrier
    ++equal_steps;
    ++jacobian_age;
    if (!control.running()) break;

    if (equal_steps < order + 1 || settings.schedule != StepSchedule::adaptive) {
      control.set_next_step(h);
      continue;
    }
    double error_lower = INFINITY, error_higher = INFINITY;
    auto lower_term = [&](int i) {
      return error_constant(order - 1) * fabs(history[order * width + i]) / (settings.atol + settings.rtol * fabs(history[i]));
    };
    auto higher_term = [&](int i) {
      return error_constant(order + 1) * fabs(history[(order + 2) * width + i]) /
             (settings.atol + settings.rtol * fabs(history[i]));
    };
    if (order > 1 && order < max_order) {  // both on one barrier
      double neighbours[2];
      team.template reduce_fused<2, 0>(n, [&](int i, double (&part)[2]) {
        part[0] = lower_term(i);
        part[1] = higher_term(i);
      }, neighbours);
      error_lower = neighbours[0];
      error_higher = neighbours[1];
    } else if (order > 1) {
      error_lower = team.max_error(n, lower_term);
    } else if (order < max_order) {
      error_higher = team.max_error(n, higher_term);
    }
    if (heating) {  // T9's column is in the norm as the species are
      const double weight = settings.atol + settings.rtol * fabs(history[t_column]);
      if (order > 1)
        error_lower = combine_error(error_lower, error_constant(order - 1) * fabs(history[order * width + t_column]) / weight);
      if (order < max_order)
        error_higher =
            combine_error(error_higher, error_constant(order + 1) * fabs(history[(order + 2) * width + t_column]) / weight);
    }
    const StepChoice choice = choose_step(error, error_lower, error_higher, order);
    if (choice.factor >= step_change_threshold) {
      order = choice.order;
      equal_steps = 0;
      control.set_next_step(h * choice.factor);
    } else {
      control.set_next_step(h);
    }
  }
  ZoneResult result = control.finish(team.sum(n, [&](int i) { return net.species_A[i] * Y[i]; }));
  result.final_T9 = T9;
  result.rhs_evaluations = rhs_evaluations;
  result.jacobian_evaluations = jacobian_evaluations;
  result.factorizations = factorizations;
  return result;
}

}  // namespace bdf_team

}  // namespace zoneode
