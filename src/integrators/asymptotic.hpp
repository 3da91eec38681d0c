// The explicit asymptotic burner for one zone: the kernel the study optimised.
//
// integrate_zone() is the reference the CPU backend runs per zone and the GPU kernels reproduce
// with their own thread mapping, calling the same step pieces (advance_step, zone_rate_factors).
// Written for host and device: no allocation, exceptions or virtual calls; the caller supplies the
// workspace.
#pragma once

#include <cmath>
#include <cstdint>

#include "common/constants.hpp"
#include "common/portability.hpp"
#include "integrators/zone_math.hpp"

namespace zoneode {

enum class StepSchedule : std::int32_t {
  geometric = 0,  // the study's schedule: dt = dt_fraction * t from start_time to end_time
  adaptive = 1,   // step doubling with a local error bound (rtol, atol); see inputs/README.md
};

struct IntegratorSettings {
  StepSchedule schedule = StepSchedule::geometric;
  double start_time = 1e-12;       // [s] first time of the schedule (t0 > 0)
  double end_time = 1e-6;          // [s]
  double dt_fraction = 0.01;       // geometric: dt = dt_fraction * t
  double rtol = 1e-4;              // adaptive: relative local error bound
  double atol = 1e-12;             // adaptive: absolute local error bound [mol/g]
  double dt_initial = 0.0;         // adaptive: first dt [s]; 0 means dt_fraction * start_time
  double max_dt_growth = 2.0;      // adaptive: dt may grow at most by this factor per step
  std::int64_t max_steps = 1000000;
  double abundance_floor = 1e-30;  // [mol/g]
  double max_mass_drift = 1e-2;    // |sum A Y - initial| / initial beyond which the zone fails
  bool renormalize = false;        // rescale Y to the initial mass sum after every step
};

enum ZoneStatus : std::int32_t {
  zone_ok = 0,
  zone_non_finite = 1,       // an abundance became NaN or infinite
  zone_mass_drift = 2,       // the mass-fraction sum drifted beyond max_mass_drift
  zone_max_steps = 3,        // max_steps reached before end_time
  zone_step_underflow = 4,   // adaptive dt fell below 1e-15 t
  zone_bad_input = 5,        // T9, rho or Y not finite / not positive
  zone_status_count          // the number of codes above
};

// A short name for a status code ("ok", "non_finite", ...).
const char* zone_status_name(int status);

struct ZoneResult {
  std::int32_t status = zone_ok;
  std::int64_t steps = 0;             // accepted steps
  std::int64_t rejected_steps = 0;    // adaptive rejections
  double time_reached = 0.0;          // [s] time of the returned state
  double energy_generation_rate = 0;  // [erg/(g s)] released energy / burn time (mean over the burn)
  double max_mass_drift = 0;          // largest |sum A Y - initial| / initial of accepted states (before renormalising)
  double mass_fraction_sum = 0;       // sum A Y of the returned state
};

// Caller-owned scratch: rate_factor and flux hold reaction_count doubles, the others species_count.
struct ZoneWorkspace {
  double* rate_factor;
  double* flux;
  double* y_full;   // adaptive: the state after one full step
  double* y_half;   // adaptive: the state after two half steps
};

ZONEODE_HD inline void zone_rate_factors(const NetworkView& net, double T9, double rho,
                                         double* rate_factor) {
  for (int r = 0; r < net.reaction_count; ++r) rate_factor[r] = reaction_rate_factor(net, r, T9, rho);
}

ZONEODE_HD inline void zone_fluxes(const NetworkView& net, const double* rate_factor,
                                   const double* Y, double* flux) {
  const double ye = electron_fraction(net, Y);
  for (int r = 0; r < net.reaction_count; ++r) flux[r] = reaction_flux(net, r, rate_factor[r], Y, ye);
}

// Updates every species from fluxes evaluated at Y_in (the caller computed them) over dt into
// Y_out; Y_out may be Y_in, since each species reads only its own old abundance.
ZONEODE_HD inline void apply_update(const NetworkView& net, const double* flux, const double* Y_in,
                                    double* Y_out, double dt, double floor) {
  for (int i = 0; i < net.species_count; ++i) {
    Y_out[i] = asymptotic_update(Y_in[i], creation_sum(net, i, flux), destruction_sum(net, i, flux),
                                 dt, floor);
  }
}

ZONEODE_HD inline bool all_finite(int count, const double* Y) {
  for (int i = 0; i < count; ++i) {
    if (!is_finite(Y[i])) return false;
  }
  return true;
}

ZONEODE_HD inline void copy_state(int count, const double* from, double* to) {
  for (int i = 0; i < count; ++i) to[i] = from[i];
}

// Integrates one zone at fixed T9 [GK] and rho [g/cm^3] from settings.start_time to end_time.
// Y [species_count] holds the initial abundances and returns the final ones: on failure, the last
// state that passed the checks, with result.status saying why and result.time_reached how far.
ZONEODE_HD inline void integrate_zone(const NetworkView& net, const IntegratorSettings& settings,
                                      double T9, double rho, double* Y, ZoneWorkspace work,
                                      ZoneResult& result) {
  result = ZoneResult{};
  result.time_reached = settings.start_time;
  const int n = net.species_count;
  const double initial_mass = mass_fraction_sum(net, Y);
  result.mass_fraction_sum = initial_mass;
  if (!(T9 > 0.0) || !is_finite(T9) || !(rho > 0.0) || !is_finite(rho) || !all_finite(n, Y) ||
      !(initial_mass > 0.0)) {
    result.status = zone_bad_input;
    return;
  }
  zone_rate_factors(net, T9, rho, work.rate_factor);

  // Checks a proposed state; on success it becomes Y (renormalised if asked).
  auto accept = [&](double* proposed) -> bool {
    if (!all_finite(n, proposed)) {
      result.status = zone_non_finite;
      return false;
    }
    const double mass = mass_fraction_sum(net, proposed);
    const double drift = fabs(mass - initial_mass) / initial_mass;
    if (!(drift <= settings.max_mass_drift)) {
      result.status = zone_mass_drift;
      return false;
    }
    if (drift > result.max_mass_drift) result.max_mass_drift = drift;
    const double scale = settings.renormalize ? initial_mass / mass : 1.0;
    for (int i = 0; i < n; ++i) Y[i] = proposed[i] * scale;
    return true;
  };

  double t = settings.start_time;
  double released = 0.0;  // integral of sum_r flux_r Q_r dt [MeV mol/g]
  const double floor = settings.abundance_floor;

  if (settings.schedule == StepSchedule::geometric) {
    while (t < settings.end_time) {
      if (result.steps >= settings.max_steps) {
        result.status = zone_max_steps;
        break;
      }
      double dt = settings.dt_fraction * t;
      const bool last = t + dt >= settings.end_time;
      if (last) dt = settings.end_time - t;
      zone_fluxes(net, work.rate_factor, Y, work.flux);
      const double release_rate = energy_release_rate(net, work.flux);
      apply_update(net, work.flux, Y, work.y_full, dt, floor);
      if (!accept(work.y_full)) break;
      released += release_rate * dt;
      t = last ? settings.end_time : t + dt;
      ++result.steps;
    }
  } else {
    double dt = settings.dt_initial > 0.0 ? settings.dt_initial : settings.dt_fraction * t;
    while (t < settings.end_time) {
      if (result.steps + result.rejected_steps >= settings.max_steps) {
        result.status = zone_max_steps;
        break;
      }
      if (dt < 1e-15 * t) {
        result.status = zone_step_underflow;
        break;
      }
      const bool last = t + dt >= settings.end_time;
      const double step = last ? settings.end_time - t : dt;
      // One full step and the first half step share the fluxes at Y.
      zone_fluxes(net, work.rate_factor, Y, work.flux);
      const double release_start = energy_release_rate(net, work.flux);
      for (int i = 0; i < n; ++i) {
        const double fplus = creation_sum(net, i, work.flux);
        const double fminus = destruction_sum(net, i, work.flux);
        work.y_full[i] = asymptotic_update(Y[i], fplus, fminus, step, floor);
        work.y_half[i] = asymptotic_update(Y[i], fplus, fminus, 0.5 * step, floor);
      }
      zone_fluxes(net, work.rate_factor, work.y_half, work.flux);
      const double release_mid = energy_release_rate(net, work.flux);
      apply_update(net, work.flux, work.y_half, work.y_half, 0.5 * step, floor);
      // Local error of the two-half-step solution, estimated by its difference from the full step.
      double error = 0.0;
      for (int i = 0; i < n; ++i) {
        const double scale = settings.atol + settings.rtol * fmax(fabs(Y[i]), fabs(work.y_half[i]));
        const double e = fabs(work.y_half[i] - work.y_full[i]) / scale;
        error = e > error ? e : error;  // NaN compares false and is caught below
        if (!is_finite(e)) error = INFINITY;
      }
      // First-order method: the local error scales as dt^2.
      const double factor = error > 0.0 ? 0.9 / sqrt(error) : settings.max_dt_growth;
      if (error <= 1.0) {
        if (!accept(work.y_half)) break;
        released += 0.5 * step * (release_start + release_mid);
        t = last ? settings.end_time : t + step;
        ++result.steps;
        dt = step * fmin(settings.max_dt_growth, fmax(0.2, factor));
        if (last) break;
      } else {
        ++result.rejected_steps;
        dt = step * fmax(0.2, fmin(0.9, factor));
      }
    }
  }
  result.time_reached = t;
  result.mass_fraction_sum = mass_fraction_sum(net, Y);
  const double burn_time = t - settings.start_time;
  if (burn_time > 0.0) {
    result.energy_generation_rate =
        constants::avogadro * constants::mev_to_erg * released / burn_time;
  }
}

}  // namespace zoneode
