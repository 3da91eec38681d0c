// The explicit asymptotic method (Guidry et al.): the burner the study optimised.
//
// The per-species update and the per-attempt arithmetic of both schedules, as pieces that a
// backend runs its own way, and integrate_zone(): the readable serial reference that the CPU
// backend runs per zone, built from those pieces and the shared StepControl. GPU kernels call the
// same pieces with their own thread mapping. Host/device: no allocation, exceptions or virtual
// calls; the caller supplies the workspace.
#pragma once

#include <cmath>
#include <cstdint>

#include "common/portability.hpp"
#include "integrators/method_network.hpp"
#include "integrators/settings.hpp"
#include "integrators/step_control.hpp"
#include "network/rates.hpp"
#include "physics/self_heating.hpp"

namespace zoneode {

// The update of one species over dt: where destruction would remove more than the species holds
// in one step (F- dt > Y), the stiff limit
//     Y <- (Y + F+ dt) / (1 + F- dt / Y)
// which is forward Euler on dY/dt = F+ - k Y with k = F-/Y taken implicitly; forward Euler
// otherwise. The result never drops below `floor` [mol/g].
ZONEODE_HD inline double asymptotic_update(double y, double fplus, double fminus, double dt, double floor) {
  double next;
  if (fminus * dt > y) {
    next = (y + fplus * dt) / (1.0 + fminus * dt / y);
  } else {
    next = y + (fplus - fminus) * dt;
  }
  return next > floor ? next : floor;
}

// Adaptive schedule, species i's part of the local error of the two-half-step solution, estimated
// by its difference from the full step and scaled by atol + rtol * max(|Y|, |Y_half|).
ZONEODE_HD inline double scaled_local_error(const IntegratorSettings& settings, double y, double y_half,
                                            double y_full) {
  const double scale = settings.atol + settings.rtol * fmax(fabs(y), fabs(y_half));
  return fabs(y_half - y_full) / scale;
}

// The energy [MeV mol/g] an accepted step of the asymptotic method released, as StepControl
// integrates it (self-heating heats the zone by it): geometric, the start rate x step; adaptive,
// the trapezoid of the start and half-step rates.
ZONEODE_HD inline double step_released_energy(StepSchedule schedule, double step, const AttemptReductions& r) {
  return schedule == StepSchedule::geometric ? r.release_rate_start * step
                                             : 0.5 * step * (r.release_rate_start + r.release_rate_mid);
}

// One zone's scratch: rate_factor and flux hold reaction_count values, the others species_count.
template <typename Array = double*>
struct ZoneWorkspace {
  Array rate_factor;
  Array flux;
  Array y_full;  // geometric: the proposed state; adaptive: the state after one full step
  Array y_half;  // adaptive: the state after two half steps (the proposed state)
};

// ---- serial pieces (one thread does a whole zone) ----

// Every reaction's rate factor at T9 [GK], rho [g/cm^3]; from RateView::fit_table where it is set
// (self-heating with physics.eos: table): on the host always, in device code with DEVICE_TABLE
// (the implicit and bdf kernels, whose self-heated GPU runs get the table; the explicit methods'
// kernels never do, and keep their code), a reaction at a time as the team kernels read it.
template <bool DEVICE_TABLE = false, typename Array>
ZONEODE_HD inline void zone_rate_factors(const RateView& rates, double T9, double rho, Array rate_factor) {
#if ZONEODE_RATE_TABLE_ON_HOST
  if (rates.fit_table != nullptr && tabulated_rate_factors(rates, T9, rho, rate_factor)) return;  // self-heating, CPU
#else
  if constexpr (DEVICE_TABLE) {
    if (rates.fit_table != nullptr && tabulated_rate_factors_each(rates, T9, rho, rate_factor)) return;
  }
#endif
  for (int r = 0; r < rates.reaction_count; ++r) rate_factor[r] = reaction_rate_factor(rates, r, T9, rho);
}

template <typename Rates, typename Abundances, typename Fluxes>
ZONEODE_HD inline void zone_fluxes(const StepView& net, const Rates& rate_factor, const Abundances& Y, Fluxes flux) {
  const double ye = electron_fraction(net, Y);
  for (int r = 0; r < net.reaction_count; ++r) flux[r] = reaction_flux(net, r, rate_factor[r], Y, ye);
}

// The same at the zone's T9 [GK] and rho [g/cm^3], screened when the network's screening is on.
template <typename Rates, typename Abundances, typename Fluxes>
ZONEODE_HD inline void zone_fluxes(const StepView& net, const Rates& rate_factor, const Abundances& Y, Fluxes flux,
                                   double T9, double rho) {
  if (net.screening == 0) return zone_fluxes(net, rate_factor, Y, flux);
  const double ye = electron_fraction(net, Y);
  const ScreeningPlasma plasma = screening_plasma(net, Y, T9, rho, ye);
  for (int r = 0; r < net.reaction_count; ++r) flux[r] = reaction_flux(net, r, rate_factor[r], Y, ye, plasma);
}

// Every species from fluxes evaluated at Y_in over dt into Y_out; Y_out may be Y_in, since each
// species reads only its own old abundance.
template <typename Fluxes, typename In, typename Out>
ZONEODE_HD inline void apply_update(const StepView& net, const Fluxes& flux, const In& Y_in, Out Y_out, double dt,
                                    double floor) {
  for (int i = 0; i < net.species_count; ++i) {
    Y_out[i] = asymptotic_update(Y_in[i], creation_sum(net, i, flux), destruction_sum(net, i, flux), dt, floor);
  }
}

// What self-heating needs of one update, summed in its pass over the species (each sum in species
// order, as composition_rates_of_fluxes, composition_change, ion_sum and electron_fraction form it).
struct UpdateSums {
  CompositionRates rates;    // d(sum Y)/dt, d(sum Z Y)/dt of the fluxes
  CompositionChange change;  // sum (out - in), sum Z (out - in)
  double ion_sum = 0.0;      // sum Y_in
  double ye = 0.0;           // sum Z Y_in
};

// apply_update, also summing `sums` from the same F+ and F- (Y_out may be Y_in).
template <typename Fluxes, typename In, typename Out>
ZONEODE_HD inline void apply_update(const StepView& net, const Fluxes& flux, const In& Y_in, Out Y_out, double dt,
                                    double floor, UpdateSums& sums) {
  for (int i = 0; i < net.species_count; ++i) {
    const double fplus = creation_sum(net, i, flux), fminus = destruction_sum(net, i, flux);
    const double dydt = fplus - fminus, Z = net.species_Z[i], y = Y_in[i];
    sums.rates.ions += dydt;
    sums.rates.ye += Z * dydt;
    sums.ion_sum += y;
    sums.ye += Z * y;
    const double next = asymptotic_update(y, fplus, fminus, dt, floor);
    sums.change.ions += next - y;
    sums.change.ye += Z * (next - y);
    Y_out[i] = next;
  }
}

template <typename Array>
ZONEODE_HD inline bool all_finite(int count, const Array& Y) {
  for (int i = 0; i < count; ++i) {
    if (!is_finite(Y[i])) return false;
  }
  return true;
}

namespace asymptotic {

// Doubles of scratch one zone needs (integrators/methods.hpp): rate factors and fluxes per
// reaction, two proposed states per species, 2R + 2S; with self-heating R more (the rate factors
// at the half step's T9).
inline std::int64_t workspace_doubles(const MethodNetwork& network) {
  const std::int64_t R = network.step.reaction_count;
  return 2 * R + 2 * network.step.species_count + (network.step.self_heating ? R : 0);
}

// Integrates one zone at fixed T9 [GK] and rho [g/cm^3] from settings.start_time to end_time.
// Y holds the initial abundances and returns the final ones: on failure, the last state that
// passed the checks, with result.status saying why and result.time_reached how far. The contract
// of every method's integrate_zone (integrators/methods.hpp); `workspace` holds
// workspace_doubles() values. The readable serial reference that the CPU backend runs per zone.
// With self-heating (net.self_heating) T9 is one more variable of the step, dT9/dt = g = (eps -
// sum_i dU/dY_i dY_i/dt) / c_v (physics/self_heating.hpp; dY/dt from the fluxes that give eps, so
// that the internal energy rises by the energy released), advanced as the abundances are:
// geometric, one step; adaptive, the full step T9 + dt g0 (Euler) against two half steps, the
// second with g at the half step's state and T9 (its rate factors evaluated there), the difference
// in the error estimate. The accepted T9 of each (half) step is not Euler's but the energy
// balance's over it (energy_conserving_T9: U's rise equals the step's release, c_v and dU/dY at
// the step's midpoint, Euler's T9 the estimate of its end): an Euler step in T left U's rise off
// the mass-excess release by 1.7e-6 .. 5.4e-5 at rtol 1e-6 (tests/test_self_heating_energy.cpp),
// since c_v and dU/dY change over a step. result.final_T9 is where it ended (T9 itself otherwise).
template <typename Abundances, typename Array>
ZONEODE_HD inline void integrate_zone(const MethodNetwork& network, const IntegratorSettings& settings, double T9,
                                      double rho, Abundances Y, Array workspace, ZoneResult& result) {
  const RateView& rates = network.rates;
  const StepView& net = network.step;
  const int R = net.reaction_count;
  const ZoneWorkspace<Array> work{workspace, workspace + R, workspace + 2 * R, workspace + 2 * R + net.species_count};
  const int n = net.species_count;
  const double floor = settings.abundance_floor;
  const double initial_mass = mass_fraction_sum(net, Y);
  StepControl control(settings, initial_mass, zone_input_valid(T9, rho, all_finite(n, Y), initial_mass));
  if (control.running()) zone_rate_factors(rates, T9, rho, work.rate_factor);
  const bool heating = net.self_heating != 0;
  const Array half_rate_factor = work.y_half + n;  // self-heating only: rate factors at the half step's T9
  while (control.begin_attempt()) {
    const double step = control.step();
    AttemptReductions reductions;
    zone_fluxes(net, work.rate_factor, Y, work.flux, T9, rho);
    reductions.release_rate_start = energy_release_rate(net, work.flux);
    const bool geometric = settings.schedule == StepSchedule::geometric;
    // Self-heating: what it needs of Y and the fluxes at Y, summed in the update's pass over F+ and F-.
    UpdateSums start;
    if (geometric) {
      if (heating) apply_update(net, work.flux, Y, work.y_full, step, floor, start);
      else apply_update(net, work.flux, Y, work.y_full, step, floor);
    } else {
      // One full step and the first half step share the fluxes at Y.
      for (int i = 0; i < n; ++i) {
        const double fplus = creation_sum(net, i, work.flux);
        const double fminus = destruction_sum(net, i, work.flux);
        if (heating) {
          const double dydt = fplus - fminus, Z = net.species_Z[i];
          start.rates.ions += dydt;
          start.rates.ye += Z * dydt;
          start.ion_sum += Y[i];
          start.ye += Z * Y[i];
        }
        work.y_full[i] = asymptotic_update(Y[i], fplus, fminus, step, floor);
        work.y_half[i] = asymptotic_update(Y[i], fplus, fminus, 0.5 * step, floor);
      }
    }
    const double heating_start =
        heating ? heating_rate(reductions.release_rate_start, start.rates, T9, rho, start.ion_sum, start.ye, net.eos_table)
                : 0.0;
    double next_T9 = fmax(T9 + step * heating_start, self_heating_min_T9);  // geometric; adaptive: the full step
    Array proposed = work.y_full;
    if (geometric) {
      if (heating) {  // T9 from the energy balance over the step (self_heating.hpp), Euler's T9 as the estimate
        next_T9 = fmax(energy_conserving_T9(reductions.release_rate_start * step, T9, next_T9, rho, start.ion_sum,
                                            start.ye, start.change.ions, start.change.ye, net.eos_table),
                       self_heating_min_T9);
      }
    } else if (heating) {
      // Each half step's T9 from the energy balance over it (self_heating.hpp), its Euler T9 the estimate.
      const CompositionChange first_change = composition_change(net, Y, work.y_half);
      const double half_T9 = fmax(energy_conserving_T9(0.5 * step * reductions.release_rate_start, T9,
                                                       T9 + 0.5 * step * heating_start, rho, start.ion_sum,
                                                       start.ye, first_change.ions, first_change.ye, net.eos_table),
                                  self_heating_min_T9);
      zone_rate_factors(rates, half_T9, rho, half_rate_factor);
      zone_fluxes(net, half_rate_factor, work.y_half, work.flux, half_T9, rho);
      reductions.release_rate_mid = energy_release_rate(net, work.flux);
      UpdateSums mid;
      apply_update(net, work.flux, work.y_half, work.y_half, 0.5 * step, floor, mid);
      const double half_ion_sum = mid.ion_sum, half_ye = mid.ye;
      const double heating_mid = heating_rate(reductions.release_rate_mid, mid.rates, half_T9, rho, half_ion_sum, half_ye,
                                               net.eos_table);
      const double full_T9 = next_T9;
      next_T9 = fmax(energy_conserving_T9(0.5 * step * reductions.release_rate_mid, half_T9,
                                          half_T9 + 0.5 * step * heating_mid, rho, half_ion_sum, half_ye,
                                          ion_sum(net, work.y_half) - half_ion_sum,
                                          electron_fraction(net, work.y_half) - half_ye, net.eos_table),
                     self_heating_min_T9);
      reductions.error_norm = combine_error(reductions.error_norm, scaled_local_error(settings, T9, next_T9, full_T9));
      for (int i = 0; i < n; ++i) {
        reductions.error_norm =
            combine_error(reductions.error_norm, scaled_local_error(settings, Y[i], work.y_half[i], work.y_full[i]));
      }
      proposed = work.y_half;
    } else {
      zone_fluxes(net, work.rate_factor, work.y_half, work.flux, T9, rho);
      reductions.release_rate_mid = energy_release_rate(net, work.flux);
      apply_update(net, work.flux, work.y_half, work.y_half, 0.5 * step, floor);
      for (int i = 0; i < n; ++i) {
        reductions.error_norm =
            combine_error(reductions.error_norm, scaled_local_error(settings, Y[i], work.y_half[i], work.y_full[i]));
      }
      proposed = work.y_half;
    }
    reductions.finite = all_finite(n, proposed) && (!heating || is_finite(next_T9));
    reductions.mass = mass_fraction_sum(net, proposed);
    if (control.end_attempt(reductions) == StepVerdict::accepted) {
      const double scale = control.scale();
      for (int i = 0; i < n; ++i) Y[i] = proposed[i] * scale;
      if (heating) {
        T9 = next_T9;
        zone_rate_factors(rates, T9, rho, work.rate_factor);
      }
    }
  }
  result = control.finish(mass_fraction_sum(net, Y));
  result.final_T9 = T9;
}

}  // namespace asymptotic

}  // namespace zoneode
