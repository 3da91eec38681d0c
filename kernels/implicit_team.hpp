// The implicit method (Rodas3, integrators/implicit.hpp) with one zone integrated by a team of
// threads: the same steps, the same StepControl, the same per-value arithmetic, in phases
// (integrators/implicit_schedule.hpp): threads over reactions (rate factors, fluxes, flux
// derivatives), over species (F+/F-, stage vectors, the Jacobian's Ye column and energy row), over
// Jacobian entries and matrix positions, over an LU pivot's updates, over the rows of a level of
// the triangular solves. Sums over species or reactions (Ye, energy release, mass, error norm,
// Z.k, the energy coupling) are the team's reductions, so the result differs from the serial
// method's in the last bits, not in the steps (tests/test_implicit_team.cpp, on the CPU).
//
// Host/device: templated on the team, which provides
//   for_each(count, body)    body(i) for every i in [0, count), each by one thread; then a barrier
//   sum(count, term)         the sum of term(i), in a fixed order; every thread gets it
//   max_error(count, term)   combine_error over term(i) (order-independent)
// term(i) is called once per i, so it may also store a value (visible after the call). All other
// code runs on every thread alike (the step control is the same on every thread).
#pragma once

#include <cmath>
#include <cstdint>

#include "common/portability.hpp"
#include "integrators/implicit.hpp"
#include "integrators/implicit_team_view.hpp"
#include "integrators/method_network.hpp"
#include "physics/self_heating.hpp"

namespace zoneode {

// One zone's arrays for a team (each on chip or in global memory, as the kernel placed them); the
// sizes of ImplicitWorkspaceLayout, plus Y (species) and f0 (the serial code's `state`). The
// screening column and its solution exist with screening on only (null otherwise).
struct ImplicitTeamArrays {
  double *Y, *rate_factor, *flux, *slot, *jacobian, *matrix, *energy_row, *ye_column, *ye_solution, *rhs, *f0,
      *stages, *solve, *screening_column, *screening_solution;
};

// Where a team's arrays are: doubles of the part in LDS (Y, then the workspace from `matrix` to its
// end: the LU values and the vectors) and of the rest (rate factors, fluxes, slots, J entries).
struct ImplicitTeamSplit {
  std::int64_t hot = 0, cold = 0;
};
ZONEODE_HD inline ImplicitTeamSplit implicit_team_split(const ImplicitWorkspaceLayout& l, int species) {
  return {species + l.total - l.matrix, l.matrix};
}
// The arrays over `hot` (split.hot doubles) and `cold` (split.cold doubles).
ZONEODE_HD inline ImplicitTeamArrays implicit_team_arrays(const ImplicitWorkspaceLayout& l, int species, double* hot,
                                                          double* cold) {
  double* w = hot + species;  // workspace offsets from `matrix` on, relative to `matrix`
  return {hot,
          cold + l.rate_factor,
          cold + l.flux,
          cold + l.slot,
          cold + l.jacobian,
          w,
          w + (l.energy_row - l.matrix),
          w + (l.ye_column - l.matrix),
          w + (l.ye_solution - l.matrix),
          w + (l.rhs - l.matrix),
          w + (l.state - l.matrix),
          w + (l.stages - l.matrix),
          w + (l.solve - l.matrix),
          l.screening_column > 0 ? w + (l.screening_column - l.matrix) : nullptr,
          l.screening_solution > 0 ? w + (l.screening_solution - l.matrix) : nullptr};
}

namespace implicit_team {

// start - sum over q in [first, last) of a[q] * work[columns[q]], in four interleaved partial sums:
// a solve level waits for its longest row, and four independent chains of subtractions are about
// four times shorter than the serial one (the sum is rounded differently from the serial solve's).
ZONEODE_HD inline double row_sum(double start, const double* a, const std::int32_t* columns, const double* work,
                                 int first, int last) {
  double s0 = start, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int q = first;
  for (; q + 3 < last; q += 4) {
    s0 -= a[q] * work[columns[q]];
    s1 -= a[q + 1] * work[columns[q + 1]];
    s2 -= a[q + 2] * work[columns[q + 2]];
    s3 -= a[q + 3] * work[columns[q + 3]];
  }
  for (; q < last; ++q) s0 -= a[q] * work[columns[q]];
  return s0 + ((s1 + s2) + s3);
}

// x_r = M^-1 b_r for R right-hand sides at once (the same level phases), with the factors in a;
// b_r and x_r in species order, distinct; work_r: species values each.
template <int R, typename Team>
ZONEODE_HD inline void solve(const Team& team, const SparseLuView& lu, const ImplicitScheduleView& sc, const double* a,
                             const double* const (&b)[R], double* const (&x)[R], double* const (&work)[R]) {
  for (int v = 0; v < sc.forward_levels; ++v) {
    const int first = sc.forward_offsets[v];
    team.for_each(R * (sc.forward_offsets[v + 1] - first), [&](int task) {
      const int r = task % R, p = sc.forward_rows[first + task / R];
      work[r][p] = row_sum(b[r][lu.order[p]], a, lu.columns, work[r], lu.row_offsets[p], lu.diagonal[p]);
    });
  }
  // Row p is final once computed: x takes it at once (no phase of its own).
  for (int v = 0; v < sc.backward_levels; ++v) {
    const int first = sc.backward_offsets[v];
    team.for_each(R * (sc.backward_offsets[v + 1] - first), [&](int task) {
      const int r = task % R, p = sc.backward_rows[first + task / R];
      const double value =
          row_sum(work[r][p], a, lu.columns, work[r], lu.diagonal[p] + 1, lu.row_offsets[p + 1]) / a[lu.diagonal[p]];
      work[r][p] = value;
      x[r][lu.order[p]] = value;
    });
  }
}

template <typename Team>
ZONEODE_HD inline void solve(const Team& team, const SparseLuView& lu, const ImplicitScheduleView& sc, const double* a,
                             const double* b, double* x, double* work) {
  const double* const bs[1] = {b};
  double* const xs[1] = {x};
  double* const works[1] = {work};
  solve<1>(team, lu, sc, a, bs, xs, works);
}

// The LU factors of a, in place, phase by phase.
template <typename Team>
ZONEODE_HD inline void factor(const Team& team, const ImplicitScheduleView& sc, double* a) {
  for (int phase = 0; phase < sc.phases; ++phase) {
    const int tasks = sc.phase_offsets[phase], task_count = sc.phase_offsets[phase + 1] - tasks;
    const int stores = sc.store_offsets[phase], store_count = sc.store_offsets[phase + 1] - stores;
    team.for_each(task_count + store_count, [&](int x) {
      if (x < task_count) {
        const int t = tasks + x;
        const double l = a[sc.task_l[t]] / a[sc.task_diagonal[t]];
        const int u = sc.task_u[t], count = sc.task_count[t];
        const std::int32_t* target = sc.targets + sc.task_targets[t];
        for (int j = 0; j < count; ++j) a[target[j]] -= l * a[u + j];
      } else {
        const int s = stores + x - task_count;
        a[sc.store_l[s]] = a[sc.store_l[s]] / a[sc.store_diagonal[s]];
      }
    });
  }
}

// Fluxes at X; returns sum_r flux_r Q_r. ye: the electron fraction of X; `plasma` (null:
// unscreened) the screening at X, as the serial zone_fluxes().
template <typename Team>
ZONEODE_HD inline double fluxes(const Team& team, const StepView& net, const double* rate_factor, const double* X,
                                double ye, double* flux, const ScreeningPlasma* plasma = nullptr) {
  team.for_each(net.reaction_count, [&](int r) {
    flux[r] = plasma ? reaction_flux(net, r, rate_factor[r], X, ye, *plasma)
                     : reaction_flux(net, r, rate_factor[r], X, ye);
  });
  return team.sum(net.reaction_count, [&](int r) { return flux[r] * net.q_value_MeV[r]; });
}

// The screening plasma of abundances X at T9 [GK] and rho [g/cm^3] with electron fraction ye:
// weak screening also needs sum Z^2 X (one more reduction; every thread calls this).
template <typename Team>
ZONEODE_HD inline ScreeningPlasma plasma_at(const Team& team, const StepView& net, double T9, double rho,
                                            const double* X, double ye) {
  const bool weak = net.screening == static_cast<int>(ScreeningKind::weak);
  const double z2 =
      weak ? team.sum(net.species_count, [&](int i) { return net.species_Z[i] * net.species_Z[i] * X[i]; }) : 0.0;
  return make_screening_plasma(T9, rho, ye, z2);
}

// Screening's part of the Jacobian at Y (jacobian.hpp's screening_jacobian_columns, with the team):
// flux holds the screened fluxes at Y on entry and q_r = flux_r dh_r/dye on return; the screening
// column c = species_rates(q) is added to the Ye column, (sum_r Q_r q_r)(Z [+ Z^2 weak]) to the
// energy row.
template <typename Team>
ZONEODE_HD inline void screening_columns(const Team& team, const StepView& net, const ScreeningPlasma& plasma,
                                         const ImplicitTeamArrays& w) {
  const ScreeningKind kind = static_cast<ScreeningKind>(net.screening);
  team.for_each(net.reaction_count, [&](int r) {
    double z[max_reactants_per_reaction], a[max_reactants_per_reaction];
    const int count = reactant_nuclei(net, r, z, a);
    w.flux[r] *= reaction_screening_slopes(kind, count, z, a, plasma).d_ye;
  });
  const double energy = team.sum(net.reaction_count, [&](int r) { return w.flux[r] * net.q_value_MeV[r]; });
  const bool weak = kind == ScreeningKind::weak;
  team.for_each(net.species_count, [&](int i) {
    const double c = creation_sum(net, i, w.flux) - destruction_sum(net, i, w.flux), Z = net.species_Z[i];
    w.screening_column[i] = c;
    w.ye_column[i] += c;
    w.energy_row[i] += weak ? energy * (Z + Z * Z) : energy * Z;
  });
}

// The analytic Jacobian at Y (entries, Ye column, energy row) from the rate factors; `plasma`
// (null: unscreened) gives the screening at Y, as the serial flux_derivative_slots().
template <typename Team>
ZONEODE_HD inline void jacobian(const Team& team, const StepView& net, const JacobianView& jac,
                                const ImplicitScheduleView& sc, const ImplicitTeamArrays& w, double ye,
                                const ScreeningPlasma* plasma = nullptr) {
  team.for_each(net.reaction_count, [&](int r) {
    const double rate = plasma ? w.rate_factor[r] * reaction_screening(net, r, *plasma) : w.rate_factor[r];
    reaction_flux_derivative_slots(net, jac, r, rate, w.Y, ye, w.slot);
  });
  const int n = net.species_count, entries = jac.entry_count;
  team.for_each(entries + 2 * n, [&](int x) {
    double sum = 0.0;
    if (x < entries) {
      for (int k = sc.entry_term_offsets[x]; k < sc.entry_term_offsets[x + 1]; ++k) {
        const int t = sc.entry_terms[k];
        sum += jac.term_coefficient[t] * w.slot[jac.term_slot[t]];
      }
      w.jacobian[x] = sum;
    } else if (x < entries + n) {
      const int i = x - entries;
      for (int k = sc.ye_offsets[i]; k < sc.ye_offsets[i + 1]; ++k) {
        const int t = sc.ye_terms[k];
        sum += jac.ye_term_coefficient[t] * w.slot[jac.ye_term_slot[t]];
      }
      w.ye_column[i] = sum;
    } else {
      const int i = x - entries - n;
      for (int k = sc.energy_offsets[i]; k < sc.energy_offsets[i + 1]; ++k) {
        const int t = sc.energy_terms[k];
        sum += jac.energy_term_coefficient[t] * w.slot[jac.energy_term_slot[t]];
      }
      w.energy_row[i] = sum;
    }
  });
}

// The zone in w.Y (species_count values, in and out), from settings.start_time to end_time at T9
// [GK] and rho [g/cm^3]; the contract of implicit::integrate_zone. Every thread returns the result.
// PHYSICS: the instantiation with screening and self-heating (as the step view's flags ask: the
// screened fluxes and Jacobian, the Woodbury correction of weak screening's second rank, T9 and the
// rate factors after each accepted step); without it those flags are not read, and the kernel
// keeps the registers of a run without options (partition functions and neutrino losses are in
// the rate factors and Q either way).
template <bool PHYSICS = false, typename Team>
ZONEODE_HD inline ZoneResult integrate_zone(const Team& team, const MethodNetwork& network,
                                            const ImplicitScheduleView& sc, const IntegratorSettings& settings,
                                            double T9, double rho, const ImplicitTeamArrays& w) {
  const StepView& net = network.step;
  const ImplicitView& imp = network.implicit;
  const int n = net.species_count;
  double* const Y = w.Y;
  auto Z_times = [&](const double* x) { return team.sum(n, [&](int i) { return net.species_Z[i] * x[i]; }); };
  const double initial_mass = team.sum(n, [&](int i) { return net.species_A[i] * Y[i]; });
  const bool finite = team.sum(n, [&](int i) { return is_finite(Y[i]) ? 0.0 : 1.0; }) == 0.0;
  StepControl control(settings, initial_mass, zone_input_valid(T9, rho, finite, initial_mass));
  if (control.running())
    team.for_each(network.rates.reaction_count,
                  [&](int r) { w.rate_factor[r] = reaction_rate_factor(network.rates, r, T9, rho); });
  std::int64_t rhs_evaluations = 0, jacobian_evaluations = 0, factorizations = 0;
  bool jacobian_current = false;
  double release_start = 0.0;
  double stage_energy[rodas3::stages];
  const bool screening = PHYSICS && net.screening != 0;
  // J = J_sparse + u Z^T [+ v (Z^2)^T] (implicit.hpp): u the Ye column (captures, screening), v the
  // screening column (weak screening): Sherman-Morrison for u alone, Woodbury for both.
  const bool ye_rank = imp.jacobian.ye_term_count > 0 || screening;
  const bool z2_rank = PHYSICS && net.screening == static_cast<int>(ScreeningKind::weak);
  auto Z2_times = [&](const double* x) {
    return team.sum(n, [&](int i) { return net.species_Z[i] * net.species_Z[i] * x[i]; });
  };
  ScreeningPlasma plasma;  // at the latest flux evaluation's state, where screening is on
  const ScreeningPlasma* const screened = screening ? &plasma : nullptr;
  // Fluxes at X (electron fraction ye), screened where screening is on; sum_r flux_r Q_r.
  auto fluxes_at = [&](const double* X, double ye) {
    if (screening) plasma = plasma_at(team, net, T9, rho, X, ye);
    return fluxes(team, net, w.rate_factor, X, ye, w.flux, screened);
  };
  while (control.begin_attempt()) {
    const double h = control.step();
    if (!jacobian_current) {
      const double ye = Z_times(Y);
      release_start = fluxes_at(Y, ye);
      team.for_each(n, [&](int i) { w.f0[i] = creation_sum(net, i, w.flux) - destruction_sum(net, i, w.flux); });
      jacobian(team, net, imp.jacobian, sc, w, ye, screened);  // the plasma at Y
      if (screening) screening_columns(team, net, plasma, w);  // flux (at Y, used above) becomes scratch
      ++rhs_evaluations;
      ++jacobian_evaluations;
      jacobian_current = true;
    }
    const double diagonal = 1.0 / (h * rodas3::gamma);
    team.for_each(imp.lu.filled_count, [&](int q) {
      const double base = sc.matrix_diagonal[q] ? diagonal : 0.0;
      const int e = sc.matrix_entry[q];
      w.matrix[q] = e >= 0 ? base - w.jacobian[e] : base;
    });
    factor(team, sc, w.matrix);
    ++factorizations;
    // C = I - [Z Z^2]^T [w x], w = M_s^-1 u, x = M_s^-1 v: solved with stage 1 (the rooms of k_4
    // and k_3 as their scratch); C_11 alone for Sherman-Morrison.
    double ye_denominator = 1.0, c12 = 0.0, c21 = 0.0, c22 = 1.0;

    double release = release_start;
    for (int s = 0; s < rodas3::stages; ++s) {
      double* k = w.stages + s * n;
      const int row = s * (s - 1) / 2;
      // The stage's right-hand side and its couplings c_sj k_j / h, per species in the serial order.
      auto couple = [&](int i, double value) {
        for (int j = 0; j < s; ++j) value += (rodas3::c(row + j) / h) * w.stages[j * n + i];
        w.rhs[i] = value;
      };
      if (rodas3::new_f(s) && s > 0) {
        const double ye = team.sum(n, [&](int i) {
          double y = Y[i];
          for (int j = 0; j < s; ++j) y += rodas3::a(row + j) * w.stages[j * n + i];
          w.solve[i] = y;
          return net.species_Z[i] * y;
        });
        release = fluxes_at(w.solve, ye);
        team.for_each(n, [&](int i) { couple(i, creation_sum(net, i, w.flux) - destruction_sum(net, i, w.flux)); });
        ++rhs_evaluations;
      } else {
        release = release_start;
        team.for_each(n, [&](int i) { couple(i, w.f0[i]); });
      }
      double energy_rhs = release;
      for (int j = 0; j < s; ++j) energy_rhs += (rodas3::c(row + j) / h) * stage_energy[j];
      if (z2_rank && s == 0) {
        const double* const b[3] = {w.rhs, w.ye_column, w.screening_column};
        double* const x[3] = {k, w.ye_solution, w.screening_solution};
        double* const work[3] = {w.solve, w.stages + 3 * n, w.stages + 2 * n};
        solve<3>(team, imp.lu, sc, w.matrix, b, x, work);
        ye_denominator = 1.0 - Z_times(w.ye_solution);
        c12 = -Z_times(w.screening_solution);
        c21 = -Z2_times(w.ye_solution);
        c22 = 1.0 - Z2_times(w.screening_solution);
      } else if (ye_rank && s == 0) {
        const double* const b[2] = {w.rhs, w.ye_column};
        double* const x[2] = {k, w.ye_solution};
        double* const work[2] = {w.solve, w.stages + (rodas3::stages - 1) * n};
        solve<2>(team, imp.lu, sc, w.matrix, b, x, work);
        ye_denominator = 1.0 - Z_times(w.ye_solution);
      } else {
        solve(team, imp.lu, sc, w.matrix, w.rhs, k, w.solve);
      }
      if (z2_rank) {
        const double z_dot_k = Z_times(k), z2_dot_k = Z2_times(k);
        const double determinant = ye_denominator * c22 - c12 * c21;
        const double along_w = (c22 * z_dot_k - c12 * z2_dot_k) / determinant;
        const double along_x = (ye_denominator * z2_dot_k - c21 * z_dot_k) / determinant;
        team.for_each(n, [&](int i) { k[i] += along_w * w.ye_solution[i] + along_x * w.screening_solution[i]; });
      } else if (ye_rank) {
        const double correction = Z_times(k) / ye_denominator;
        team.for_each(n, [&](int i) { k[i] += correction * w.ye_solution[i]; });
      }
      const double coupling_energy = team.sum(n, [&](int i) { return w.energy_row[i] * k[i]; });
      stage_energy[s] = h * rodas3::gamma * (energy_rhs + coupling_energy);
    }

    // Proposed state into rhs; error norm from k_4.
    const double* k_last = w.stages + (rodas3::stages - 1) * n;
    AttemptReductions reductions;
    reductions.error_norm = team.max_error(n, [&](int i) {
      double y = Y[i];
      for (int s = 0; s < rodas3::stages; ++s) y += rodas3::m(s) * w.stages[s * n + i];
      w.rhs[i] = y;
      const double scale = settings.atol + settings.rtol * fmax(fabs(Y[i]), fabs(y));
      return fabs(k_last[i]) / scale;
    });
    double released = 0.0;
    for (int s = 0; s < rodas3::stages; ++s) released += rodas3::m(s) * stage_energy[s];
    const double non_finite = team.sum(n, [&](int i) { return is_finite(w.rhs[i]) ? 0.0 : 1.0; });
    reductions.finite = non_finite == 0.0 && is_finite(released);
    reductions.mass = team.sum(n, [&](int i) { return net.species_A[i] * w.rhs[i]; });
    reductions.release_rate_start = released / h;
    reductions.release_rate_mid = released / h;
    if (control.end_attempt(reductions, 2) == StepVerdict::accepted) {
      const double scale = control.scale();
      team.for_each(n, [&](int i) { Y[i] = fmax(w.rhs[i] * scale, settings.abundance_floor); });
      jacobian_current = false;
      if (PHYSICS && net.self_heating) {  // heated by the step's release, c_v of the new state
        const double ions = team.sum(n, [&](int i) { return Y[i]; });
        T9 = heated_temperature_from_sums(T9, rho, ions, Z_times(Y), released);
        team.for_each(network.rates.reaction_count,
                      [&](int r) { w.rate_factor[r] = reaction_rate_factor(network.rates, r, T9, rho); });
      }
    }
  }
  ZoneResult result = control.finish(team.sum(n, [&](int i) { return net.species_A[i] * Y[i]; }));
  result.final_T9 = T9;
  result.rhs_evaluations = rhs_evaluations;
  result.jacobian_evaluations = jacobian_evaluations;
  result.factorizations = factorizations;
  return result;
}

}  // namespace implicit_team

}  // namespace zoneode
