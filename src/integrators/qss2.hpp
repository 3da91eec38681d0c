// The second-order quasi-steady-state method (`integrator.method: qss2`): the alpha-QSS
// predictor-corrector of CHEMEQ2 (Mott, Oran & van Leer 2000, J. Comput. Phys. 164, 407), with
// its own error estimate for the adaptive schedule.
//
// Each species is written dY/dt = q - p Y with q = F+ (creation) and p = F-/Y (destruction per
// unit abundance), both frozen over the step. For constant q and p the exact solution is
//     Y(dt) = Y0 + dt (q - p Y0) / (1 + alpha(p dt) p dt),   alpha(x) = 1/(1 - e^-x) - 1/x,
// and alpha is replaced by its Pade form (x = p dt)
//     alpha(x) = (180 + 60 x + 11 x^2 + x^3) / (360 + 60 x + 12 x^2 + x^3),
// which is 1/2 + x/12 for small x (the trapezoid rule: second order) and 1 - 1/x for large x (the
// equilibrium q/p is reached without the step being bounded by 1/p). One step:
//     predictor  y_p = Y0 + dt (q0 - p0 Y0) / (1 + alpha(p0 dt) p0 dt)          (fluxes at Y0)
//     corrector  p_bar = (p0 + p_p)/2, a = alpha(p_bar dt), q~ = a q_p + (1 - a) q0,
//                y_c = Y0 + dt (q~ - p_bar Y0) / (1 + a p_bar dt)                (fluxes at y_p)
// Two flux evaluations per attempt (one on a retry: q0 and p0 do not depend on dt). Both stages
// keep Y >= 0 for any dt: (1 - alpha(x)) x <= 1 for every x >= 0 (x^2 - 10 x + 30 > 0), so
// y = [Y0 (1 - (1 - alpha) x) + q dt] / (1 + alpha x) is a sum of non-negative terms.
//
// Error estimate (adaptive schedule): max_i |y_c - y_p| / (atol + rtol max(|Y0|, |y_c|)). y_p is
// first order (local error C dt^2), y_c second order (O(dt^3)), so the difference is y_p's local
// error, O(dt^2): estimate_order 1 (next dt ~ err^(-1/2)), as CHEMEQ2's step control does. The
// accepted state is y_c, whose local error is O(dt^3) = O(rtol^(3/2)) at that dt, over O(rtol^(-1/2))
// steps: a global error proportional to rtol. Geometric schedule: dt = dt_fraction * t, no estimate.
//
// Energy: the release rate at Y0 and at y_p, averaged (trapezoid, second order like the state).
//
// Self-heating (physics.self_heating): T9 is one more variable of the step, dT9/dt = g = (eps -
// sum_i dU/dY_i dY_i/dt) / c_v (physics/self_heating.hpp: the internal energy's composition term
// with dY/dt from the same fluxes as eps, so that U rises by the energy released): predictor
// T_p = T0 + dt g(Y0, T0), the predictor's fluxes at (y_p, T_p) with the rate factors at T_p,
// corrector T_c = T0 + dt (g(Y0, T0) + g(y_p, T_p)) / 2 (the same trapezoid as the energy), and
// |T_c - T_p| / (atol + rtol max(T0, T_c)) in the error estimate.
// Mass is not conserved exactly (nor by the asymptotic method): StepControl's drift check applies.
// Host/device: no allocation, exceptions or virtual calls; the caller supplies the workspace.
#pragma once

#include <cmath>
#include <cstdint>

#include "common/portability.hpp"
#include "integrators/asymptotic.hpp"
#include "integrators/method_network.hpp"
#include "integrators/settings.hpp"
#include "integrators/step_control.hpp"
#include "network/rates.hpp"

namespace zoneode {

// alpha(x), x = p dt >= 0: the Pade form above, evaluated in x up to 1 and in r = 1/x beyond (the
// same rational function; in r it cannot overflow for huge x and tends to 1).
ZONEODE_HD inline double qss_alpha(double x) {
  if (x <= 1.0) return (180.0 + x * (60.0 + x * (11.0 + x))) / (360.0 + x * (60.0 + x * (12.0 + x)));
  const double r = 1.0 / x;
  return (1.0 + r * (11.0 + r * (60.0 + r * 180.0))) / (1.0 + r * (12.0 + r * (60.0 + r * 360.0)));
}

// p = F-/Y [1/s]. Every destruction flux of a species carries its abundance as a factor, so F- is
// 0 where Y is (an abundance floor of 0): p is then taken as 0 instead of 0/0.
ZONEODE_HD inline double qss_loss_rate(double y, double fminus) { return y > 0.0 ? fminus / y : 0.0; }

// The predictor from Y0 with q0, p0 over dt, not below `floor` [mol/g].
ZONEODE_HD inline double qss_predictor(double y0, double q0, double p0, double dt, double floor) {
  const double x = p0 * dt;
  const double y = y0 + dt * (q0 - p0 * y0) / (1.0 + qss_alpha(x) * x);
  return y < floor ? floor : y;  // NaN passes through, for the finiteness check
}

// The corrector from Y0 with the start's q0, p0 and the predictor's q_p, p_p, not below `floor`.
ZONEODE_HD inline double qss_corrector(double y0, double q0, double p0, double q_p, double p_p, double dt,
                                       double floor) {
  const double p_bar = 0.5 * (p0 + p_p);
  const double x = p_bar * dt;
  const double a = qss_alpha(x);
  const double q_tilde = a * q_p + (1.0 - a) * q0;
  const double y = y0 + dt * (q_tilde - p_bar * y0) / (1.0 + a * x);
  return y < floor ? floor : y;
}

// Adaptive schedule, species i's scaled error estimate |y_c - y_p| / (atol + rtol max(|Y0|, |y_c|)).
ZONEODE_HD inline double qss_scaled_error(const IntegratorSettings& settings, double y0, double y_predicted,
                                          double y_corrected) {
  const double scale = settings.atol + settings.rtol * fmax(fabs(y0), fabs(y_corrected));
  return fabs(y_corrected - y_predicted) / scale;
}

// The estimate's order for StepControl::end_attempt (see above).
inline constexpr int qss_estimate_order = 1;

namespace qss2 {

// Doubles of scratch one zone needs (integrators/methods.hpp): rate factors and fluxes per
// reaction; q0, p0 and the proposed state (predictor, then corrector in place) per species.
// With self-heating, one more per reaction: the rate factors at the predictor's T9.
inline std::int64_t workspace_doubles(const MethodNetwork& network) {
  const std::int64_t R = network.step.reaction_count;
  return 2 * R + 3 * network.step.species_count + (network.step.self_heating ? R : 0);
}

// Integrates one zone at T9 [GK] and rho [g/cm^3] from settings.start_time to end_time; the
// contract of every method's integrate_zone (integrators/methods.hpp): failed zones keep their
// last good state. Screening as in the asymptotic method: fluxes screened at the state they are
// evaluated at; self-heating as above; result.final_T9 is where T9 ended. `workspace` holds workspace_doubles() values. The serial reference that the
// CPU backend runs per zone; kernels/qss2/zone_team_qss2.hpp is the same with a team of threads.
template <typename Abundances, typename Array>
ZONEODE_HD inline void integrate_zone(const MethodNetwork& network, const IntegratorSettings& settings, double T9,
                                      double rho, Abundances Y, Array workspace, ZoneResult& result) {
  const RateView& rates = network.rates;
  const StepView& net = network.step;
  const int R = net.reaction_count, n = net.species_count;
  const Array rate_factor = workspace, flux = workspace + R, q0 = workspace + 2 * R, p0 = q0 + n, y = p0 + n;
  const bool heating = net.self_heating != 0;
  const Array predicted_rate_factor = y + n;  // self-heating only: the rate factors at T_p
  const double floor = settings.abundance_floor;
  const bool adaptive = settings.schedule == StepSchedule::adaptive;
  const double initial_mass = mass_fraction_sum(net, Y);
  StepControl control(settings, initial_mass, zone_input_valid(T9, rho, all_finite(n, Y), initial_mass));
  if (control.running()) zone_rate_factors(rates, T9, rho, rate_factor);
  std::int64_t rhs_evaluations = 0;
  bool start_current = false;  // q0, p0 and release_start belong to the current Y
  double release_start = 0.0;  // sum flux Q at Y [MeV mol/(g s)]
  double heating_start = 0.0;  // self-heating: dT9/dt at (Y, T9) [GK/s]
  while (control.begin_attempt()) {
    const double dt = control.step();
    if (!start_current) {
      zone_fluxes(net, rate_factor, Y, flux, T9, rho);
      ++rhs_evaluations;
      release_start = energy_release_rate(net, flux);
      CompositionRates start_rates;  // self-heating: summed in this pass (as composition_rates_of_fluxes)
      double start_ions = 0.0, start_ye = 0.0;
      for (int i = 0; i < n; ++i) {
        const double fplus = creation_sum(net, i, flux), fminus = destruction_sum(net, i, flux);
        q0[i] = fplus;
        p0[i] = qss_loss_rate(Y[i], fminus);
        if (heating) {
          const double dydt = fplus - fminus, Z = net.species_Z[i];
          start_rates.ions += dydt;
          start_rates.ye += Z * dydt;
          start_ions += Y[i];
          start_ye += Z * Y[i];
        }
      }
      if (heating) heating_start = heating_rate(release_start, start_rates, T9, rho, start_ions, start_ye, net.eos_table);
      start_current = true;
    }
    for (int i = 0; i < n; ++i) y[i] = qss_predictor(Y[i], q0[i], p0[i], dt, floor);
    double T9_corrected = T9;
    double release_predicted;
    AttemptReductions reductions;
    double T9_predicted = T9;
    if (heating) {  // the predictor's T9 and its rate factors
      T9_predicted = fmax(T9 + dt * heating_start, self_heating_min_T9);
      zone_rate_factors(rates, T9_predicted, rho, predicted_rate_factor);
      zone_fluxes(net, predicted_rate_factor, y, flux, T9_predicted, rho);
    } else {
      zone_fluxes(net, rate_factor, y, flux, T9, rho);
    }
    release_predicted = energy_release_rate(net, flux);
    ++rhs_evaluations;
    CompositionRates predicted_rates;  // self-heating: at the predictor, summed in the corrector's pass
    double predicted_ions = 0.0, predicted_ye = 0.0;
    for (int i = 0; i < n; ++i) {
      const double fplus = creation_sum(net, i, flux), fminus = destruction_sum(net, i, flux);
      if (heating) {
        const double dydt = fplus - fminus, Z = net.species_Z[i];
        predicted_rates.ions += dydt;
        predicted_rates.ye += Z * dydt;
        predicted_ions += y[i];
        predicted_ye += Z * y[i];
      }
      const double q_p = fplus;
      const double p_p = qss_loss_rate(y[i], fminus);
      const double corrected = qss_corrector(Y[i], q0[i], p0[i], q_p, p_p, dt, floor);
      if (adaptive)
        reductions.error_norm = combine_error(reductions.error_norm, qss_scaled_error(settings, Y[i], y[i], corrected));
      y[i] = corrected;
    }
    if (heating) {
      const double heating_predicted =
          heating_rate(release_predicted, predicted_rates, T9_predicted, rho, predicted_ions, predicted_ye,
                       net.eos_table);
      T9_corrected = fmax(T9 + 0.5 * dt * (heating_start + heating_predicted), self_heating_min_T9);
      if (adaptive) {  // combine_error is a max: the order of the terms does not matter
        const double scale = settings.atol + settings.rtol * fmax(fabs(T9), fabs(T9_corrected));
        reductions.error_norm = combine_error(reductions.error_norm, fabs(T9_corrected - T9_predicted) / scale);
      }
      reductions.finite = is_finite(T9_corrected);
    }
    reductions.finite = reductions.finite && all_finite(n, y);
    reductions.mass = mass_fraction_sum(net, y);
    // The trapezoid's mean rate in both slots: StepControl adds start x dt (geometric) or
    // (start + mid) x dt/2 (adaptive).
    reductions.release_rate_start = 0.5 * (release_start + release_predicted);
    reductions.release_rate_mid = reductions.release_rate_start;
    if (control.end_attempt(reductions, qss_estimate_order) == StepVerdict::accepted) {
      const double scale = control.scale();
      for (int i = 0; i < n; ++i) Y[i] = y[i] * scale;
      start_current = false;
      if (heating) {
        T9 = T9_corrected;
        zone_rate_factors(rates, T9, rho, rate_factor);
      }
    }
  }
  result = control.finish(mass_fraction_sum(net, Y));
  result.rhs_evaluations = rhs_evaluations;
  result.final_T9 = T9;
}

}  // namespace qss2

}  // namespace zoneode
