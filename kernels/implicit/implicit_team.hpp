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
//   for_each_unsynced(count, body)   the same without the barrier: the next reduction's completes it
//                            (a pass whose results are read only after that reduction)
//   sum(count, term)         the sum of term(i), in a fixed order; every thread gets it
//   max_error(count, term)   combine_error over term(i) (order-independent)
//   reduce_fused<M, S>(count, terms, total)   M maxima and S sums over the same items on one
//                            barrier: terms(i, part) writes item i's M + S terms; each reduced as
//                            max_error and sum reduce it (the same bits as separate calls)
//   sums<N>(count, terms, total)   reduce_fused<0, N>
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
// term(i) (terms(i, part)) is called once per i, so it may also store values (visible after the call):
// a pass that writes per-item results and a sum of them takes one barrier, not two. All other
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
// screening column and its solution exist with screening on only, the stage rate factors and T's
// column, its solution and T's row with self-heating on only (null otherwise).
struct ImplicitTeamArrays {
  double *Y, *rate_factor, *flux, *slot, *jacobian, *matrix, *energy_row, *ye_column, *ye_solution, *rhs, *f0,
      *stages, *solve, *screening_column, *screening_solution;
  double *stage_rate_factor, *temperature_column, *temperature_solution, *temperature_row;
};

// Self-heating's stage rate factors (reactions; 0 without self-heating): per reaction like the
// rate factors and fluxes, so a team keeps them with those (the cold part), not with the vectors.
ZONEODE_HD inline std::int64_t implicit_team_stage_rates(const ImplicitWorkspaceLayout& l) {
  return l.stage_rate_factor > 0 ? l.temperature_column - l.stage_rate_factor : 0;
}

// Where a team's arrays are: doubles of the part in LDS (Y, then the workspace from `matrix` to its
// end: the LU values and the vectors) and of the rest (rate factors, fluxes, slots, J entries, and
// with self-heating the stage rate factors).
struct ImplicitTeamSplit {
  std::int64_t hot = 0, cold = 0;
};
ZONEODE_HD inline ImplicitTeamSplit implicit_team_split(const ImplicitWorkspaceLayout& l, int species) {
  const std::int64_t stage_rates = implicit_team_stage_rates(l);
  return {species + l.total - l.matrix - stage_rates, l.matrix + stage_rates};
}
// The arrays over `hot` (split.hot doubles) and `cold` (split.cold doubles).
ZONEODE_HD inline ImplicitTeamArrays implicit_team_arrays(const ImplicitWorkspaceLayout& l, int species, double* hot,
                                                          double* cold) {
  double* w = hot + species;  // workspace offsets from `matrix` on, relative to `matrix`
  // Self-heating's vectors follow the stage rate factors in the layout; in `hot` they follow the
  // vectors before (the stage rate factors are in `cold`, after the J entries).
  const std::int64_t stage_rates = implicit_team_stage_rates(l);
  double* const heated = w - stage_rates;
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
          l.screening_solution > 0 ? w + (l.screening_solution - l.matrix) : nullptr,
          stage_rates > 0 ? cold + l.matrix : nullptr,
          stage_rates > 0 ? heated + (l.temperature_column - l.matrix) : nullptr,
          stage_rates > 0 ? heated + (l.temperature_solution - l.matrix) : nullptr,
          stage_rates > 0 ? heated + (l.temperature_row - l.matrix) : nullptr};
}

// Test-only faults of the team's self-heating (tests/test_implicit_team.cpp and test_bdf_team.cpp
// plant each and check that the comparison with the serial method fails): the Schur complement's
// corner dg/dT9 left out, or the stages' (bdf: the Newton iterates') rate factors taken at the
// step's T9 rather than their own. Host only; device code and runs have none.
enum class TeamHeatingFault { none, corner_dropped, stage_rates_at_step_T9 };
#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__) && !defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__)
inline TeamHeatingFault& team_heating_fault_for_tests() {
  static TeamHeatingFault fault = TeamHeatingFault::none;
  return fault;
}
#endif
ZONEODE_HD inline bool team_heating_fault(TeamHeatingFault which) {
#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__) && !defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__)
  return team_heating_fault_for_tests() == which;
#else
  (void)which;
  return false;
#endif
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
    // The lane's terms in order; the first solve_task_columns take their columns from the task.
    auto part = [&](const SolveLaneTask& task, int lanes) {
      double sum = 0.0;
      const int last = task.last;
      int q = task.first;
#pragma unroll
      for (int j = 0; j < solve_task_columns; ++j, q += lanes)
        if (q < last) sum += a[q] * y[task.column[j]];
      for (; q < last; q += lanes) sum += a[q] * y[columns[q]];
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
      sc.phases, [&](int phase) { return (sc.phase_slots[phase + 1] - sc.phase_slots[phase]) * sc.lu_record_width; },
      [&](int phase, int x) { return sc.lu_records[sc.phase_slots[phase] * sc.lu_record_width + x]; },
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

// dY_i/dt = F+_i - F-_i from the fluxes, for every species, given to set(i, value): each species by
// species_sum_lanes lanes (species_rate_lane_part, jacobian.hpp), their parts added in a fixed tree
// (species_rates_in_lanes' rounding, which bdf's serial method takes; rounded differently from
// creation_sum - destruction_sum). Ends with the team's barrier.
template <typename Team, typename Set>
ZONEODE_HD inline void species_rates_team(const Team& team, const StepView& net, const double* flux, Set&& set) {
  team.template group_sums<2>(
      net.species_count, species_sum_lanes,
      [&](int i, int lane, int lanes, double (&v)[2]) { species_rate_lane_part(net, i, lane, lanes, flux, v); },
      [&](int i, const double (&v)[2]) { set(i, v[0] - v[1]); });
}

// Fluxes at X; returns sum_r flux_r Q_r. ye: the electron fraction of X; `plasma` (null:
// unscreened) the screening at X, as the serial zone_fluxes().
template <typename Team>
ZONEODE_HD inline double fluxes(const Team& team, const StepView& net, const double* rate_factor, const double* X,
                                double ye, double* flux, const ScreeningPlasma* plasma = nullptr) {
  return team.sum(net.reaction_count, [&](int r) {  // the fluxes stored and summed in one pass: one barrier
    flux[r] = plasma ? reaction_flux(net, r, rate_factor[r], X, ye, *plasma)
                     : reaction_flux(net, r, rate_factor[r], X, ye);
    return flux[r] * net.q_value_MeV[r];
  });
}

// Every reaction's rate factor at T9 [GK] into out (zone_rate_factors with a thread per reaction),
// T9's powers once per thread. TABLE (the heated instantiations): read from RateView::fit_table
// where the backend set it (self-heating with physics.eos: table, as the CPU backend does;
// tabulated_rate_factor: one exp-free lookup a reaction instead of every set's exp and divisions),
// the fits directly otherwise. synced false: no barrier of its own, the next reduction's completes
// it (nothing may read out before). The Rodas3 and bdf team kernels both.
template <bool TABLE = false, typename Team>
ZONEODE_HD inline void team_rate_factors(const Team& team, const RateView& rates, double T9, double rho, double* out,
                                         bool synced = true) {
  const ReaclibPowers fit = reaclib_powers(reaclib_fit_T9(T9));  // once per thread, not per set
  auto run = [&](auto&& body) {
    if (synced) {
      team.for_each(rates.reaction_count, body);
    } else {
      team.for_each_unsynced(rates.reaction_count, body);
    }
  };
  if constexpr (TABLE) {
    int j = 0;
    double t = 0.0;
    if (rates.fit_table != nullptr && rate_table_position(*rates.fit_table, reaclib_fit_T9(T9), j, t)) {
      const RateTableView table = *rates.fit_table;
      const HermiteWeights weights = hermite_weights(t);  // once per thread
      run([&](int r) { out[r] = tabulated_rate_factor(rates, table, j, weights, r, T9, fit, rho); });
      return;
    }
  }
  run([&](int r) { out[r] = reaction_rate_factor(rates, r, T9, fit, rho); });
}

// sum_i Z_i x_i and sum_i Z_i^2 x_i over the species, the team's sums (the low-rank parts of the
// Jacobian and the electron fraction).
template <typename Team>
ZONEODE_HD inline double z_sum(const Team& team, const StepView& net, const double* x) {
  return team.sum(net.species_count, [&](int i) { return net.species_Z[i] * x[i]; });
}
template <typename Team>
ZONEODE_HD inline double z2_sum(const Team& team, const StepView& net, const double* x) {
  return team.sum(net.species_count, [&](int i) { return net.species_Z[i] * net.species_Z[i] * x[i]; });
}

// x += the low-rank part of M^-1 for the x the sparse solve left there (J = J_sparse + u Z^T
// [+ v (Z^2)^T], implicit.hpp): Sherman-Morrison for u alone, Woodbury for both, with the team's
// sums. ye_solution = M_s^-1 u, screening_solution = M_s^-1 v; low: ye_rank, z2_rank and C = I -
// [Z Z^2]^T [w x]'s entries (ye_denominator = C_11, c12, c21, c22): LowRankParts, or bdf::LowRank.
// The Rodas3 and bdf team kernels both.
struct LowRankParts {
  bool ye_rank = false, z2_rank = false;
  double ye_denominator = 1.0, c12 = 0.0, c21 = 0.0, c22 = 1.0;
};
template <typename Team, typename Parts>
ZONEODE_HD inline void low_rank_correct(const Team& team, const StepView& net, const Parts& low,
                                        const double* ye_solution, const double* screening_solution, double* x) {
  if (low.z2_rank) {
    const double z_dot_k = z_sum(team, net, x), z2_dot_k = z2_sum(team, net, x);
    const double determinant = low.ye_denominator * low.c22 - low.c12 * low.c21;
    const double along_w = (low.c22 * z_dot_k - low.c12 * z2_dot_k) / determinant;
    const double along_x = (low.ye_denominator * z2_dot_k - low.c21 * z_dot_k) / determinant;
    team.for_each(net.species_count, [&](int i) { x[i] += along_w * ye_solution[i] + along_x * screening_solution[i]; });
  } else if (low.ye_rank) {
    const double correction = z_sum(team, net, x) / low.ye_denominator;
    team.for_each(net.species_count, [&](int i) { x[i] += correction * ye_solution[i]; });
  }
}

// The screening plasma of abundances X at T9 [GK] and rho [g/cm^3] with electron fraction ye:
// weak screening also needs sum Z^2 X (one more reduction; every thread calls this).
template <typename Team>
ZONEODE_HD inline ScreeningPlasma plasma_at(const Team& team, const StepView& net, double T9, double rho,
                                            const double* X, double ye) {
  const bool weak = net.screening == static_cast<int>(ScreeningKind::weak);
  const double z2 = weak ? z2_sum(team, net, X) : 0.0;
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
  const double energy = team.sum(net.reaction_count, [&](int r) {  // q stored and summed in one pass
    double z[max_reactants_per_reaction], a[max_reactants_per_reaction];
    const int count = reactant_nuclei(net, r, z, a);
    w.flux[r] *= reaction_screening_slopes(kind, count, z, a, plasma).d_ye;
    return w.flux[r] * net.q_value_MeV[r];
  });
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

// Self-heating's border at (Y, T9) (implicit.hpp's temperature_border, with the team): T's column
// b = d(dY/dt)/dT9 into w.temperature_column, T's row c = dg/dY into w.temperature_row, and g, dS/dT9,
// dg/dT9. On entry w.rate_factor is at T9, w.f0 = dY/dt and release_start = S at (Y, T9), and
// J's entries, Ye column, screening column and energy row are at (Y, T9); w.flux is scratch. ye:
// sum Z Y. The per-value arithmetic is the serial pieces' (reaction_rate_factor_dT9,
// screened_rate_factor_dT9, temperature_row_value, temperature_corner); the sums are the team's,
// except each T row entry's column sum, a thread's, in the serial scatter's entry order. room:
// room_doubles of scratch for the gas's five points (Rodas3: the stages; bdf: its Newton update),
// none of w's inputs; with less than 3 per point every thread evaluates them.
template <typename Team>
ZONEODE_HD inline TemperatureBorder temperature_border(const Team& team, const MethodNetwork& network,
                                                       const ImplicitScheduleView& sc, const ImplicitTeamArrays& w,
                                                       double T9, double rho, double ye, double release_start,
                                                       double* room, int room_doubles) {
  const StepView& net = network.step;
  const JacobianView& jac = network.implicit.jacobian;
  const int n = net.species_count;
  const double* const Y = w.Y;
  const bool screened = net.screening != 0;
  const bool weak = net.screening == static_cast<int>(ScreeningKind::weak);
  TemperatureBorder b;
  TemperatureRowTerms terms;
  // sum Y, and dY/dt's two sums (CompositionRates), on one barrier
  double species_sums[3];
  team.template sums<3>(n, [&](int i, double (&part)[3]) {
    part[0] = Y[i];
    part[1] = w.f0[i];
    part[2] = net.species_Z[i] * w.f0[i];
  }, species_sums);
  const double ions = species_sums[0];
  terms.change.ions = species_sums[1];
  terms.change.ye = species_sums[2];
  TemperatureScreening screening;
  if (screened) {
    const double z2 = weak ? z2_sum(team, net, Y) : 0.0;
    screening = temperature_screening(T9, rho, ye, z2);
  }
  const ReaclibPowers fit = reaclib_powers(reaclib_fit_T9(T9));  // once per thread, not per set
  // The rate factors' slopes from the fits' table where the backend set it (as the CPU's
  // flux_temperature_derivatives reads it), directly otherwise.
  int table_j = 0;
  double table_t = 0.0;
  const bool tabulated = network.rates.fit_table != nullptr &&
                         rate_table_slope_position(*network.rates.fit_table, T9, table_j, table_t);
  const HermiteWeights value_weights = hermite_weights(table_t), slope_weights = hermite_weight_slopes(table_t);
  const RateTableView table = tabulated ? *network.rates.fit_table : RateTableView{};  // once per thread
  b.release_dT9 = team.sum(net.reaction_count, [&](int r) {  // d flux / d T9 stored and summed in one pass
    double d_rate = tabulated ? tabulated_rate_factor_dT9(network.rates, table, table_j, value_weights, slope_weights,
                                                          r, T9, fit, rho)
                              : reaction_rate_factor_dT9(network.rates, r, T9, fit, rho);
    if (screened) d_rate = screened_rate_factor_dT9(net, r, d_rate, w.rate_factor[r], screening);
    w.flux[r] = reaction_flux(net, r, d_rate, Y, ye);
    return w.flux[r] * net.q_value_MeV[r];
  });
  species_rates_team(team, net, w.flux, [&](int i, double value) { w.temperature_column[i] = value; });
  // The gas at thermal_slopes' five points, each on a thread of its own (one evaluation's latency
  // rather than five: the exact EOS is a Newton solve over quadratures), into the room (3 doubles a
  // point); without room (small networks) every thread evaluates them.
  if (room_doubles >= 3 * thermal_slope_points) {
    team.for_each(thermal_slope_points, [&](int k) {
      if (!thermal_slope_point_needed(k, ye)) return;
      const ThermalResponse r = thermal_slope_point(k, T9, rho, ions, ye, net.eos_table);
      room[3 * k] = r.cv;
      room[3 * k + 1] = r.per_ion;
      room[3 * k + 2] = r.per_ye;
    });
    ThermalResponse point[thermal_slope_points];
    for (int k = 0; k < thermal_slope_points; ++k)
      if (thermal_slope_point_needed(k, ye)) point[k] = {room[3 * k], room[3 * k + 1], room[3 * k + 2]};
    terms.thermal = thermal_slopes_from(point, T9, ions, ye);
  } else {
    terms.thermal = thermal_slopes(T9, rho, ions, ye, net.eos_table);
  }
  b.heating = heating_rate(release_start, terms.change, terms.thermal.at);
  terms.heating = b.heating;
  const ThermalResponse& at = terms.thermal.at;
  if (weak) {  // both on one barrier (weak screening implies screened)
    double dots[2];
    team.template sums<2>(n, [&](int i, double (&part)[2]) {
      const double weight = temperature_row_weight(net, at, i);
      part[0] = weight * w.ye_column[i];
      part[1] = weight * w.screening_column[i];
    }, dots);
    terms.energy_dot_ye_column = dots[0];
    terms.energy_dot_screening_column = dots[1];
  } else if (jac.ye_term_count > 0 || screened) {
    terms.energy_dot_ye_column =
        team.sum(n, [&](int i) { return temperature_row_weight(net, at, i) * w.ye_column[i]; });
  }
  // T's row needs J's column sums weighted by row. Every product first, in column order, into the
  // matrix's room (free until M is made from J; its filled positions include every J entry): one
  // thread per product, so the index and entry loads of all of them are in flight at once. Then each
  // column's sum over its contiguous products, in the serial scatter's entry order (the same
  // additions, the same bits). A thread summing its column straight from the index lists waited on
  // three dependent global loads per term (p's and he4's columns hold ~150 terms on rp-z24).
  team.for_each(sc.column_entry_offsets[n], [&](int k) {
    const int e = sc.column_entries[k];
    w.matrix[k] = temperature_row_weight(net, at, jac.entry_row[e]) * w.jacobian[e];
  });
  team.for_each(n, [&](int j) {
    double column_sum = 0.0;
    for (int k = sc.column_entry_offsets[j]; k < sc.column_entry_offsets[j + 1]; ++k) column_sum += w.matrix[k];
    w.temperature_row[j] = temperature_row_value(net, terms, j, column_sum, w.energy_row[j]);
  });
  CompositionRates change_dT9;
  double column_sums[2];
  team.template sums<2>(n, [&](int i, double (&part)[2]) {
    part[0] = w.temperature_column[i];
    part[1] = net.species_Z[i] * w.temperature_column[i];
  }, column_sums);
  change_dT9.ions = column_sums[0];
  change_dT9.ye = column_sums[1];
  b.heating_dT9 = temperature_corner(terms, b.release_dT9, change_dT9);
  return b;
}

// The zone in w.Y (species_count values, in and out), from settings.start_time to end_time at T9
// [GK] and rho [g/cm^3]; the contract of implicit::integrate_zone. Every thread returns the result.
// PHYSICS: the instantiation with screening (as the step view's flag asks: the screened fluxes and
// Jacobian, the Woodbury correction of weak screening's second rank); without it the flag is not
// read, and the kernel keeps the registers of a run without options (partition functions and
// neutrino losses are in the rate factors and Q either way). HEATING (with PHYSICS): self-heating
// as the step view's flag asks, T9 a variable of the state as in the serial method (implicit.hpp:
// T's border, one more solve w = M^-1 b with stage 1's, the Schur complement, each new stage's rate
// factors and screening at its own T9, T9 in the error norm, final_T9); without it the code is not
// there. columns: where the solves read the LU's column indices (LuColumns over the structure's, or
// a ByteColumns copy in LDS).
template <bool PHYSICS = false, bool HEATING = false, typename Team, typename Columns>
ZONEODE_HD inline ZoneResult integrate_zone(const Team& team, const MethodNetwork& network,
                                            const ImplicitScheduleView& sc, const IntegratorSettings& settings,
                                            double T9, double rho, const ImplicitTeamArrays& w,
                                            const Columns& columns) {
  static_assert(PHYSICS || !HEATING, "self-heating runs in the physics instantiation");
  const StepView& net = network.step;
  const ImplicitView& imp = network.implicit;
  const int n = net.species_count;
  double* const Y = w.Y;
  auto Z_times = [&](const double* x) { return z_sum(team, net, x); };
  const double initial_mass = team.sum(n, [&](int i) { return net.species_A[i] * Y[i]; });
  const bool finite = team.sum(n, [&](int i) { return is_finite(Y[i]) ? 0.0 : 1.0; }) == 0.0;
  StepControl control(settings, initial_mass, zone_input_valid(T9, rho, finite, initial_mass));
  auto rate_factors_at = [&](double at_T9, double* out, bool synced = true) {
    team_rate_factors<HEATING>(team, network.rates, at_T9, rho, out, synced);
  };
  if (control.running()) rate_factors_at(T9, w.rate_factor);
  std::int64_t rhs_evaluations = 0, jacobian_evaluations = 0, factorizations = 0;
  bool jacobian_current = false;
  double release_start = 0.0;
  double stage_energy[rodas3::stages];
  const bool screening = PHYSICS && net.screening != 0;
  // J = J_sparse + u Z^T [+ v (Z^2)^T] (implicit.hpp): u the Ye column (captures, screening), v the
  // screening column (weak screening): Sherman-Morrison for u alone, Woodbury for both.
  const bool ye_rank = imp.jacobian.ye_term_count > 0 || screening;
  const bool z2_rank = PHYSICS && net.screening == static_cast<int>(ScreeningKind::weak);
  auto Z2_times = [&](const double* x) { return z2_sum(team, net, x); };
  ScreeningPlasma plasma;  // at the latest flux evaluation's state, where screening is on
  const ScreeningPlasma* const screened = screening ? &plasma : nullptr;
  // Fluxes at X (electron fraction ye) and at_T9 [GK] from rate_factor (at at_T9), screened where
  // screening is on; sum_r flux_r Q_r.
  auto fluxes_at = [&](const double* X, double ye, double at_T9, const double* rate_factor) {
    if (screening) plasma = plasma_at(team, net, at_T9, rho, X, ye);
    return fluxes(team, net, rate_factor, X, ye, w.flux, screened);
  };
  // Self-heating: g(Y, T9) [GK/s], dS/dT9, the corner dg/dT9 and the stages' k_T.
  const bool heating = HEATING && net.self_heating != 0;
  double heating_start = 0.0, release_dT9 = 0.0, heating_dT9 = 0.0;
  double stage_temperature[rodas3::stages] = {};
  while (control.begin_attempt()) {
    const double h = control.step();
    if (!jacobian_current) {
      const double ye = Z_times(Y);
      release_start = fluxes_at(Y, ye, T9, w.rate_factor);
      species_rates_team(team, net, w.flux, [&](int i, double f) { w.f0[i] = f; });
      jacobian(team, net, imp.jacobian, sc, w, ye, screened);  // the plasma at Y
      if (screening) screening_columns(team, net, plasma, w);  // flux (at Y, used above) becomes scratch
      if (heating) {  // T's column, row and corner (flux is scratch again: d flux / d T9)
        // the stages' room is free while the Jacobian is made
        const TemperatureBorder border =
            temperature_border(team, network, sc, w, T9, rho, ye, release_start, w.stages, rodas3::stages * n);
        heating_start = border.heating;
        release_dT9 = border.release_dT9;
        heating_dT9 = border.heating_dT9;
      }
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
    LowRankParts low;
    low.ye_rank = ye_rank;
    low.z2_rank = z2_rank;
    // x <- M^-1 x for the x the sparse solve left there: the rank-one (two) corrections.
    auto correct = [&](double* x) { low_rank_correct(team, net, low, w.ye_solution, w.screening_solution, x); };
    // Self-heating: w = M^-1 b (solved with stage 1) and the Schur complement D - c . w.
    double temperature_denominator = 1.0;

    double release = release_start;
    double heating_stage = heating_start;  // g at the current stage's argument
    for (int s = 0; s < rodas3::stages; ++s) {
      double* k = w.stages + s * n;
      const int row = s * (s - 1) / 2;
      // The stage's right-hand side and its couplings c_sj k_j / h, per species in the serial order.
      auto couple = [&](int i, double value) {
        for (int j = 0; j < s; ++j) value += (rodas3::c(row + j) / h) * w.stages[j * n + i];
        w.rhs[i] = value;
      };
      if (rodas3::new_f(s) && s > 0) {
        // The stage's argument into solve, with its sum Z y (heated: and sum y, on the same barrier).
        auto argument = [&](int i) {
          double y = Y[i];
          for (int j = 0; j < s; ++j) y += rodas3::a(row + j) * w.stages[j * n + i];
          w.solve[i] = y;
          return y;
        };
        double ye = 0.0, argument_ions = 0.0;
        double stage_T9 = T9;
        if (heating) {
          // The stage's own T9 and rate factors first: the argument's sums below complete them.
          for (int j = 0; j < s; ++j) stage_T9 += rodas3::a(row + j) * stage_temperature[j];
          stage_T9 = fmax(stage_T9, self_heating_min_T9);
          rate_factors_at(team_heating_fault(TeamHeatingFault::stage_rates_at_step_T9) ? T9 : stage_T9,
                          w.stage_rate_factor, false);
          double argument_sums[2];
          team.template sums<2>(n, [&](int i, double (&part)[2]) {
            const double y = argument(i);
            part[0] = net.species_Z[i] * y;
            part[1] = y;
          }, argument_sums);
          ye = argument_sums[0];
          argument_ions = argument_sums[1];
        } else {
          ye = team.sum(n, [&](int i) { return net.species_Z[i] * argument(i); });
        }
        if (heating) {  // the stage's fluxes at its own T9 and rate factors, and g
          release = fluxes_at(w.solve, ye, stage_T9, w.stage_rate_factor);
          species_rates_team(team, net, w.flux, [&](int i, double f) { w.rhs[i] = f; });
          double rate_sums[2];
          team.template sums<2>(n, [&](int i, double (&part)[2]) {
            part[0] = w.rhs[i];
            part[1] = net.species_Z[i] * w.rhs[i];
          }, rate_sums);
          CompositionRates change;
          change.ions = rate_sums[0];
          change.ye = rate_sums[1];
          const double ions = argument_ions;
          heating_stage = heating_rate(release, change, stage_T9, rho, ions, ye, net.eos_table);
          team.for_each(n, [&](int i) { couple(i, w.rhs[i]); });
        } else {
          release = fluxes_at(w.solve, ye, T9, w.rate_factor);
          species_rates_team(team, net, w.flux, couple);
        }
        ++rhs_evaluations;
      } else {
        release = release_start;
        heating_stage = heating_start;
        team.for_each(n, [&](int i) { couple(i, w.f0[i]); });
      }
      double energy_rhs = release;
      double temperature_rhs = heating_stage;
      for (int j = 0; j < s; ++j) {
        const double coupling = rodas3::c(row + j) / h;
        energy_rhs += coupling * stage_energy[j];
        if (heating) temperature_rhs += coupling * stage_temperature[j];
      }
      if (heating && s == 0) {  // stage 1's solves with w = M^-1 b, the rooms of k_4, k_3, k_2 as scratch
        if (z2_rank) {
          const double* const b[4] = {w.rhs, w.ye_column, w.screening_column, w.temperature_column};
          double* const x[4] = {k, w.ye_solution, w.screening_solution, w.temperature_solution};
          double* const work[4] = {w.solve, w.stages + 3 * n, w.stages + 2 * n, w.stages + n};
          solve<4>(team, sc, columns, w.matrix, b, x, work);
          low.ye_denominator = 1.0 - Z_times(w.ye_solution);
          low.c12 = -Z_times(w.screening_solution);
          low.c21 = -Z2_times(w.ye_solution);
          low.c22 = 1.0 - Z2_times(w.screening_solution);
        } else if (ye_rank) {
          const double* const b[3] = {w.rhs, w.ye_column, w.temperature_column};
          double* const x[3] = {k, w.ye_solution, w.temperature_solution};
          double* const work[3] = {w.solve, w.stages + 3 * n, w.stages + 2 * n};
          solve<3>(team, sc, columns, w.matrix, b, x, work);
          low.ye_denominator = 1.0 - Z_times(w.ye_solution);
        } else {
          const double* const b[2] = {w.rhs, w.temperature_column};
          double* const x[2] = {k, w.temperature_solution};
          double* const work[2] = {w.solve, w.stages + 3 * n};
          solve<2>(team, sc, columns, w.matrix, b, x, work);
        }
        correct(w.temperature_solution);
        const double corner = team_heating_fault(TeamHeatingFault::corner_dropped) ? 0.0 : heating_dT9;
        temperature_denominator =
            (diagonal - corner) - team.sum(n, [&](int i) { return w.temperature_row[i] * w.temperature_solution[i]; });
      } else if (z2_rank && s == 0) {
        const double* const b[3] = {w.rhs, w.ye_column, w.screening_column};
        double* const x[3] = {k, w.ye_solution, w.screening_solution};
        double* const work[3] = {w.solve, w.stages + 3 * n, w.stages + 2 * n};
        solve<3>(team, sc, columns, w.matrix, b, x, work);
        low.ye_denominator = 1.0 - Z_times(w.ye_solution);
        low.c12 = -Z_times(w.screening_solution);
        low.c21 = -Z2_times(w.ye_solution);
        low.c22 = 1.0 - Z2_times(w.screening_solution);
      } else if (ye_rank && s == 0) {
        const double* const b[2] = {w.rhs, w.ye_column};
        double* const x[2] = {k, w.ye_solution};
        double* const work[2] = {w.solve, w.stages + (rodas3::stages - 1) * n};
        solve<2>(team, sc, columns, w.matrix, b, x, work);
        low.ye_denominator = 1.0 - Z_times(w.ye_solution);
      } else {
        solve(team, sc, columns, w.matrix, w.rhs, k, w.solve);
      }
      correct(k);
      double k_T = 0.0;
      if (heating) {  // the bordered system's T row, then k += k_T w
        const double row_dot_x = team.sum(n, [&](int i) { return w.temperature_row[i] * k[i]; });
        k_T = (temperature_rhs + row_dot_x) / temperature_denominator;
        team.for_each(n, [&](int i) { k[i] += k_T * w.temperature_solution[i]; });
        stage_temperature[s] = k_T;
      }
      double coupling_energy = team.sum(n, [&](int i) { return w.energy_row[i] * k[i]; });
      if (heating) coupling_energy += release_dT9 * k_T;
      stage_energy[s] = h * rodas3::gamma * (energy_rhs + coupling_energy);
    }

    // Proposed state into rhs; error norm from k_4.
    const double* k_last = w.stages + (rodas3::stages - 1) * n;
    // The error norm, the non-finite count and the mass of the proposed state on one barrier.
    AttemptReductions reductions;
    double attempt[3];
    team.template reduce_fused<1, 2>(n, [&](int i, double (&part)[3]) {
      double y = Y[i];
      for (int s = 0; s < rodas3::stages; ++s) y += rodas3::m(s) * w.stages[s * n + i];
      w.rhs[i] = y;
      const double scale = settings.atol + settings.rtol * fmax(fabs(Y[i]), fabs(y));
      part[0] = fabs(k_last[i]) / scale;
      part[1] = is_finite(y) ? 0.0 : 1.0;
      part[2] = net.species_A[i] * y;
    }, attempt);
    reductions.error_norm = attempt[0];
    const rodas3::ScalarEnd end =
        rodas3::scalar_end(stage_energy, stage_temperature, T9, heating, settings, reductions.error_norm);
    const double released = end.released, next_T9 = end.next_T9;
    const double non_finite = attempt[1];
    reductions.finite = non_finite == 0.0 && is_finite(released) && (!heating || is_finite(next_T9));
    reductions.mass = attempt[2];
    reductions.release_rate_start = released / h;
    reductions.release_rate_mid = released / h;
    if (control.end_attempt(reductions, 2) == StepVerdict::accepted) {
      const double scale = control.scale();
      team.for_each(n, [&](int i) { Y[i] = fmax(w.rhs[i] * scale, settings.abundance_floor); });
      jacobian_current = false;
      if (heating) {
        T9 = fmax(next_T9, self_heating_min_T9);
        rate_factors_at(T9, w.rate_factor);
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

// With the structure's own column indices.
template <bool PHYSICS = false, bool HEATING = false, typename Team>
ZONEODE_HD inline ZoneResult integrate_zone(const Team& team, const MethodNetwork& network,
                                            const ImplicitScheduleView& sc, const IntegratorSettings& settings,
                                            double T9, double rho, const ImplicitTeamArrays& w) {
  return integrate_zone<PHYSICS, HEATING>(team, network, sc, settings, T9, rho, w,
                                          LuColumns{network.implicit.lu.columns});
}

}  // namespace implicit_team

}  // namespace zoneode
