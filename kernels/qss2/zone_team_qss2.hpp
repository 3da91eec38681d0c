// The qss2 method (integrators/qss2.hpp) with a team of threads: what qss2::integrate_zone does
// for one zone, written with zone_team.hpp's public pieces (BlockTeam's sync and reductions,
// team_fluxes, a sums policy's for_each_species) and the shared StepControl, so that every kernel
// variant runs it through run_zones (kernel_common.hpp) with its own block size, reductions,
// sums and placement. The per-species formulas are qss2.hpp's; only the sums' and reductions'
// order differs from the CPU's serial one (last bits).
#pragma once

#include "asymptotic/zone_team.hpp"
#include "asymptotic/zone_team_physics.hpp"
#include "integrators/qss2.hpp"

namespace zoneode::gpu {

// Integrates one zone like qss2::integrate_zone, with the team; every thread of the team must
// call it. Arrays (global memory or LDS, species_count or reaction_count values): Y in and out,
// rate_factor, flux, y (the predictor, then the corrector in place), q0 = F+ and p0 = F-/Y at Y.
//
// Ownership: the sums policy gives each species an owner thread, which alone writes q0, p0 and
// y of it (start and corrector phases); the rank-strided loops (Ye, the retry's predictor, the
// copy into Y) read them only across a barrier: every reduction and team_fluxes end with one.
// PHYSICS: the instantiation with the physics hooks (zone_team_physics.hpp), as the asymptotic
// team integrator's: fluxes screened at the state they are evaluated at (the screened rate factors
// go into `flux`, free at both flux evaluations: its last readers, the species phases, are behind
// a reduction's barrier). No self-heating: the deck refuses it with qss2 on the GPU (T9 is a
// variable of the CPU method's state, which this kernel does not carry).
template <bool PHYSICS = false, typename Sums, typename Reactions, typename Team, typename Array>
__device__ inline void integrate_zone_team_qss2(const Team& team, const Sums& sums, const Reactions& reactions,
                                                const RateView& rates, const StepView& net,
                                                const IntegratorSettings& settings, double T9, double rho, Array Y,
                                                Array rate_factor, Array flux, Array y, Array q0, Array p0,
                                                ZoneResult* result) {
  const int S = net.species_count;
  const double floor = settings.abundance_floor;
  const bool adaptive = settings.schedule == StepSchedule::adaptive;
  StepControl control = team_start_zone<true>(team, rates, net, settings, T9, rho, Y, rate_factor);
  std::int64_t rhs_evaluations = 0;
  bool start_current = false;  // q0, p0 and release_start belong to the current Y
  double release_start = 0.0;  // this thread's part of sum flux Q at Y
  while (control.begin_attempt()) {
    const double dt = control.step();
    double ye_part = 0.0;  // Ye of the predictor, this thread's species
    if (!start_current) {
      const double ye = team.sum(electron_fraction_part(team, net, Y));
      const Array rates_at_Y = team_screened_rate_factors<PHYSICS>(team, net, rate_factor, Y, T9, rho, ye, flux);
      release_start = team_fluxes(team, reactions, net, rates_at_Y, Y, ye, flux);
      ++rhs_evaluations;
      sums.for_each_species(team, net, flux, [&](int i, double fplus, double fminus) {
        q0[i] = fplus;
        p0[i] = qss_loss_rate(Y[i], fminus);
        y[i] = qss_predictor(Y[i], fplus, p0[i], dt, floor);
        ye_part += net.species_Z[i] * y[i];
      });
      start_current = true;
    } else {
      // A retry: q0 and p0 hold (written by their owners before the last attempt's barriers).
      for (int i = team.rank(); i < S; i += Team::size) {
        y[i] = qss_predictor(Y[i], q0[i], p0[i], dt, floor);
        ye_part += net.species_Z[i] * y[i];
      }
    }
    // The reduction's barrier also makes every y[i] visible to the flux phase.
    const double ye_predicted = team.sum(ye_part);
    const Array rates_at_y = team_screened_rate_factors<PHYSICS>(team, net, rate_factor, y, T9, rho, ye_predicted, flux);
    const double release_predicted = team_fluxes(team, reactions, net, rates_at_y, y, ye_predicted, flux);
    ++rhs_evaluations;
    AttemptPartials part;
    sums.for_each_species(team, net, flux, [&](int i, double fplus, double fminus) {
      const double corrected = qss_corrector(Y[i], q0[i], p0[i], fplus, qss_loss_rate(y[i], fminus), dt, floor);
      if (adaptive) part.error = combine_error(part.error, qss_scaled_error(settings, Y[i], y[i], corrected));
      y[i] = corrected;  // the fluxes at the predictor are complete: no thread reads y[i] again this phase
      part.mass += net.species_A[i] * corrected;
      if (!is_finite(corrected)) part.non_finite = 1.0;
    });
    double v[5] = {part.mass, release_start, release_predicted, part.error, part.non_finite};
    team.template reduce<3>(v);  // sums, then maxima
    AttemptReductions reductions;
    reductions.mass = v[0];
    reductions.release_rate_start = 0.5 * (v[1] + v[2]);  // the trapezoid's mean, as qss2::integrate_zone
    reductions.release_rate_mid = reductions.release_rate_start;
    reductions.error_norm = v[3];
    reductions.finite = v[4] == 0.0;
    // Every thread runs the same controller on the same reduced values.
    if (control.end_attempt(reductions, qss_estimate_order) == StepVerdict::accepted) {
      const double scale = control.scale();
      for (int i = team.rank(); i < S; i += Team::size) Y[i] = y[i] * scale;
      start_current = false;
      // The next Ye sum reads Y[i] only where this thread wrote it; its barrier precedes the fluxes.
    }
  }
  double final_mass = 0.0;
  for (int i = team.rank(); i < S; i += Team::size) final_mass += net.species_A[i] * Y[i];
  final_mass = team.sum(final_mass);
  if (team.rank() == 0) {
    *result = control.finish(final_mass);
    result->rhs_evaluations = rhs_evaluations;
    result->final_T9 = T9;  // its input: self-heating runs never reach a team kernel
  }
}

}  // namespace zoneode::gpu
