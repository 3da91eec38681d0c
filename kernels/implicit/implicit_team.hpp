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
//   group_sums<N>(count, lanes, part, finish)   for every i, `lanes` lanes each add their part
//                            part(i, lane, lanes, v[N]) (v starts at 0), the lanes' v are added in a
//                            fixed tree (lane pairs, then pairs of pairs) and finish(i, v) gets
//                            them; then a barrier
//   for_each_wave(count, body)   body(i) for every i, each by one whole wave; then a barrier
//   wave_rounds(rounds, tasks, lanes, part, finish)   inside for_each_wave: for each round v,
//                            lane l of the calling wave adds part(tasks[v * wave + l], lanes[v]),
//                            the sums of each group of lanes[v] lanes are added in the fixed tree,
//                            finish(task, sum) for each task with row >= 0; the wave synchronises
//                            after each round (not the team)
//   for_each_phase(phases, count, load, body)   for each phase p in order, body(load(p, x)) for
//                            every x in [0, count(p)), each by one thread; a barrier after each
//                            phase (the device team reads a thread's first x of p + 1 before it)
// term(i) is called once per i, so it may also store a value (visible after the call). All other
// code runs on every thread alike (the step control is the same on every thread).
#pragma once

#include <cmath>
#include <cstdint>

#include "common/portability.hpp"
#include "integrators/implicit.hpp"
#include "integrators/implicit_team_view.hpp"
#include "integrators/method_network.hpp"

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

// Where a team reads the LU's column indices: the structure's own (global memory), or a byte copy
// the kernel made in LDS (networks of at most 256 species): a solve's row sum loads an index per
// term, and an LDS load is a tenth of the latency of one from L2.
struct LuColumns {
  const std::int32_t* index;
  ZONEODE_HD int operator[](int q) const { return index[q]; }
};
struct ByteColumns {
  const std::uint8_t* index;
  ZONEODE_HD int operator[](int q) const { return index[q]; }
};

// x_r = M^-1 b_r for R right-hand sides, with the factors in a; b_r and x_r in species order,
// distinct; work_r: species values each. Each right-hand side is one wave's (team.for_each_wave):
// the schedule's rounds of lane tasks (a level's rows by lane groups, each lane summing every
// lanes-th term), the lanes' sums added in a fixed tree (team.wave_rounds); the wave synchronises
// between rounds, the team once at the end. Rows are rounded differently from the serial solve's.
template <int R, typename Team, typename Columns>
ZONEODE_HD inline void solve(const Team& team, const ImplicitScheduleView& sc, const Columns& columns, const double* a,
                             const double* const (&b)[R], double* const (&x)[R], double* const (&work)[R]) {
  team.for_each_wave(R, [&](int r) {
    const double* const rhs = b[r];
    double* const out = x[r];
    double* const y = work[r];
    auto part = [&](const SolveLaneTask& task, int lanes) {
      double sum = 0.0;
      for (int q = task.first; q < task.last; q += lanes) sum += a[q] * y[columns[q]];
      return sum;
    };
    team.wave_rounds(sc.forward_rounds, sc.forward_tasks, sc.forward_lanes, part,
                     [&](const SolveLaneTask& task, double sum) { y[task.row] = rhs[task.order] - sum; });
    // Row p is final once computed: x takes it at once.
    team.wave_rounds(sc.backward_rounds, sc.backward_tasks, sc.backward_lanes, part,
                     [&](const SolveLaneTask& task, double sum) {
                       const double value = (y[task.row] - sum) / a[task.first - 1];  // first - 1: the diagonal
                       y[task.row] = value;
                       out[task.order] = value;
                     });
  });
}

template <typename Team, typename Columns>
ZONEODE_HD inline void solve(const Team& team, const ImplicitScheduleView& sc, const Columns& columns, const double* a,
                             const double* b, double* x, double* work) {
  const double* const bs[1] = {b};
  double* const xs[1] = {x};
  double* const works[1] = {work};
  solve<1>(team, sc, columns, a, bs, xs, works);
}

// The LU factors of a, in place, phase by phase: each thread's records of a phase
// (team.for_each_phase, which reads a thread's first record of the next phase before the barrier).
template <typename Team>
ZONEODE_HD inline void factor(const Team& team, const ImplicitScheduleView& sc, double* a) {
  team.for_each_phase(
      sc.phases, [&](int phase) { return (sc.phase_slots[phase + 1] - sc.phase_slots[phase]) * lu_record_width; },
      [&](int phase, int x) { return sc.lu_records[sc.phase_slots[phase] * lu_record_width + x]; },
      [&](const LuRecord& task) {
        if (task.count > 0) {
          const double l = a[task.l] / a[task.diagonal];
#pragma unroll
          for (int j = 0; j < lu_record_targets; ++j)
            if (j < task.count) a[task.target[j]] -= l * a[task.u + j];
        } else if (task.count < 0) {
          a[task.l] = a[task.l] / a[task.diagonal];
        }
      });
}

// Lanes that add one species' F+ and F- terms together (team.group_sums): the heaviest species
// (s150's neutron: 686 terms) would otherwise hold its phase back by one thread's whole list.
inline constexpr int species_sum_lanes = 8;

// dY_i/dt = F+_i - F-_i from the fluxes, for every species, given to set(i, value): each species by
// species_sum_lanes lanes, each lane every lanes-th term of both lists, in a fixed tree (rounded
// differently from creation_sum - destruction_sum). Ends with the team's barrier.
template <typename Team, typename Set>
ZONEODE_HD inline void species_rates_team(const Team& team, const StepView& net, const double* flux, Set&& set) {
  team.template group_sums<2>(
      net.species_count, species_sum_lanes,
      [&](int i, int lane, int lanes, double (&v)[2]) {
        for (int k = net.creation_offsets[i] + lane; k < net.creation_offsets[i + 1]; k += lanes)
          v[0] += flux_term(net.creation_reaction, net.creation_factor, k, flux);
        for (int k = net.destruction_offsets[i] + lane; k < net.destruction_offsets[i + 1]; k += lanes)
          v[1] += flux_term(net.destruction_reaction, net.destruction_factor, k, flux);
      },
      [&](int i, const double (&v)[2]) { set(i, v[0] - v[1]); });
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
  // The gathers (implicit_schedule.hpp): items [0, entries) are J's entries, then the Ye column,
  // then the energy row; pieces of long items sum into the matrix's room (free until the matrix
  // is made from J), then those items add their pieces in order.
  const int n = net.species_count, entries = jac.entry_count;
  auto store = [&](int item, double value) {
    if (item < entries) {
      w.jacobian[item] = value;
    } else if (item < entries + n) {
      w.ye_column[item - entries] = value;
    } else {
      w.energy_row[item - entries - n] = value;
    }
  };
  team.for_each(sc.gather_pieces, [&](int x) {
    const GatherPiece piece = sc.pieces[x];
    double sum = 0.0;
    for (int k = piece.first; k < piece.last; ++k) sum += sc.gather_coefficient[k] * w.slot[sc.gather_slot[k]];
    if (piece.output >= 0) {
      store(piece.output, sum);
    } else {
      w.matrix[-1 - piece.output] = sum;
    }
  });
  if (sc.multi_piece_items > 0) {
    team.for_each(sc.multi_piece_items, [&](int m) {
      const MultiPieceItem item = sc.multi_items[m];
      double sum = w.matrix[item.first_scratch];
      for (int j = 1; j < item.pieces; ++j) sum += w.matrix[item.first_scratch + j];
      store(item.item, sum);
    });
  }
}

// The zone in w.Y (species_count values, in and out), from settings.start_time to end_time at T9
// [GK] and rho [g/cm^3]; the contract of implicit::integrate_zone. Every thread returns the result.
// PHYSICS: the instantiation with screening (as the step view's flag asks: the screened fluxes and
// Jacobian, the Woodbury correction of weak screening's second rank; self-heating runs take the
// serial method, which carries T9 in its state: gpu_backend.hip); without it the flag is not
// read, and the kernel keeps the registers of a run without options (partition functions and
// neutrino losses are in the rate factors and Q either way). columns: where the solves read the
// LU's column indices (LuColumns over the structure's, or a ByteColumns copy in LDS).
template <bool PHYSICS = false, typename Team, typename Columns>
ZONEODE_HD inline ZoneResult integrate_zone(const Team& team, const MethodNetwork& network,
                                            const ImplicitScheduleView& sc, const IntegratorSettings& settings,
                                            double T9, double rho, const ImplicitTeamArrays& w,
                                            const Columns& columns) {
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
      species_rates_team(team, net, w.flux, [&](int i, double f) { w.f0[i] = f; });
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
        species_rates_team(team, net, w.flux, couple);
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
        solve<3>(team, sc, columns, w.matrix, b, x, work);
        ye_denominator = 1.0 - Z_times(w.ye_solution);
        c12 = -Z_times(w.screening_solution);
        c21 = -Z2_times(w.ye_solution);
        c22 = 1.0 - Z2_times(w.screening_solution);
      } else if (ye_rank && s == 0) {
        const double* const b[2] = {w.rhs, w.ye_column};
        double* const x[2] = {k, w.ye_solution};
        double* const work[2] = {w.solve, w.stages + (rodas3::stages - 1) * n};
        solve<2>(team, sc, columns, w.matrix, b, x, work);
        ye_denominator = 1.0 - Z_times(w.ye_solution);
      } else {
        solve(team, sc, columns, w.matrix, w.rhs, k, w.solve);
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
    }
  }
  ZoneResult result = control.finish(team.sum(n, [&](int i) { return net.species_A[i] * Y[i]; }));
  result.final_T9 = T9;
  result.rhs_evaluations = rhs_evaluations;
  result.jacobian_evaluations = jacobian_evaluations;
  result.factorizations = factorizations;
  return result;
}

// With the structure's own column indices.
template <bool PHYSICS = false, typename Team>
ZONEODE_HD inline ZoneResult integrate_zone(const Team& team, const MethodNetwork& network,
                                            const ImplicitScheduleView& sc, const IntegratorSettings& settings,
                                            double T9, double rho, const ImplicitTeamArrays& w) {
  return integrate_zone<PHYSICS>(team, network, sc, settings, T9, rho, w, LuColumns{network.implicit.lu.columns});
}

}  // namespace implicit_team

}  // namespace zoneode
