// Self-heating (deck `physics.self_heating`): the zone's temperature follows dT/dt = eps / c_v,
// eps the energy the network keeps (sum_r flux_r Q_r, neutrino losses taken off when they are on)
// and c_v from physics/eos.hpp at the current state.
//
// T9 is one more variable of every method's integrated state, inside the step and in the error
// estimate: the implicit method (integrators/implicit.hpp) carries it in its Rosenbrock stages with
// T's row and column in the Jacobian (the pieces below: d lambda / d T9 analytic, partition
// functions', screening's and c_v's derivatives by central differences); qss2 and asymptotic
// (integrators/qss2.hpp, asymptotic.hpp) advance it with the step's predictor-corrector and put it
// in their error estimates. With self-heating off none of it runs.
//
// The operator-split update this replaced (T jumped by the step's energy over c_v after each
// accepted step, first order in dt, outside error control) is gone; the GPU team kernels do not
// carry T9, so the GPU backend routes implicit self-heating runs to the serial method and the deck
// refuses it with the explicit methods on the GPU (gpu_backend.hip). Host/device.
#pragma once

#include "common/portability.hpp"
#include "network/rates.hpp"
#include "network/views.hpp"
#include "physics/cgs.hpp"
#include "physics/eos.hpp"

namespace zoneode {

inline constexpr double self_heating_min_T9 = 1e-3;  // [GK] an endothermic burn never cools below this

// sum_i Y_i [mol/g]: the ions per gram, in species order.
template <typename Abundances>
ZONEODE_HD inline double ion_sum(const StepView& net, const Abundances& Y) {
  double ions = 0.0;
  for (int i = 0; i < net.species_count; ++i) ions += Y[i];
  return ions;
}

// ---- T as a variable of the integrated state (the implicit method, integrators/implicit.hpp) ----

// [GK/s per MeV mol/(g s)] over c_v [erg/(g K)]: dT9/dt = heating_per_release * S / c_v.
inline constexpr double heating_per_release = cgs::avogadro * cgs::mev_to_erg / cgs::kelvin_per_gk;

// Relative step of the central differences below: truncation ~1e-10, rounding ~1e-11 relative.
inline constexpr double self_heating_difference_step = 1e-5;

// dT9/dt [GK/s] of a zone releasing S = sum_r Q_r flux_r [MeV mol/(g s)] at T9 [GK], rho [g/cm^3]
// with ion_sum = sum Y, ye = sum Z Y [mol/g].
ZONEODE_HD inline double heating_rate(double release, double T9, double rho, double ion_sum, double ye) {
  return heating_per_release * release / specific_heat(T9 * cgs::kelvin_per_gk, rho, ion_sum, ye);
}

// c_v and its derivatives with respect to T9, ion_sum and ye, by central differences (the EOS,
// physics/eos.hpp, gives c_v only; its derivatives enter the Jacobian's temperature row, where a
// relative error of 1e-10 is far below what the step control sees).
struct SpecificHeatSlopes {
  double cv = 0.0;        // [erg/(g K)]
  double d_T9 = 0.0;      // [erg/(g K) per GK]
  double d_ion_sum = 0.0; // [erg/(g K) per mol/g]
  double d_ye = 0.0;      // [erg/(g K) per mol/g]
};
ZONEODE_HD inline SpecificHeatSlopes specific_heat_slopes(double T9, double rho, double ion_sum, double ye) {
  const double K = cgs::kelvin_per_gk;
  const double step = self_heating_difference_step;
  SpecificHeatSlopes s;
  s.cv = specific_heat(T9 * K, rho, ion_sum, ye);
  const double dT = step * T9, di = step * ion_sum, de = step * ye;
  s.d_T9 = (specific_heat((T9 + dT) * K, rho, ion_sum, ye) - specific_heat((T9 - dT) * K, rho, ion_sum, ye)) / (2.0 * dT);
  if (di > 0.0)
    s.d_ion_sum = (specific_heat(T9 * K, rho, ion_sum + di, ye) - specific_heat(T9 * K, rho, ion_sum - di, ye)) / (2.0 * di);
  if (de > 0.0)
    s.d_ye = (specific_heat(T9 * K, rho, ion_sum, ye + de) - specific_heat(T9 * K, rho, ion_sum, ye - de)) / (2.0 * de);
  return s;
}

// d lambda / d T9 of one REACLIB set (reaclib_set_lambda), analytic:
// d ln lambda / d T9 = -a1/T9^2 - a2/(3 T9^(4/3)) + a3/(3 T9^(2/3)) + a4 + 5/3 a5 T9^(2/3) + a6/T9.
ZONEODE_HD inline double reaclib_set_lambda_dT9(const double* a, double T9) {
  const double T9_13 = cbrt(T9);
  const double T9_23 = T9_13 * T9_13;
  const double d_log = -a[1] / (T9 * T9) - a[2] / (3.0 * T9 * T9_13) + a[3] / (3.0 * T9_23) + a[4] +
                       (5.0 / 3.0) * a[5] * T9_23 + a[6] / T9;
  return reaclib_set_lambda(a, T9) * d_log;
}

// d rate_factor_r / d T9 (reaction_rate_factor): the fits' derivative analytic; a reverse rate's
// partition-function ratio (interpolated in a table) by a central difference.
// Above the fits' range the fitted part is held at T9 10 (reaclib_fit_T9): its slope is 0 there.
ZONEODE_HD inline double reaction_rate_factor_dT9(const RateView& net, int r, double T9, double rho) {
  double d_lambda = 0.0;
  if (!(T9 > reaclib_fit_max_T9)) {
    for (int s = net.set_offsets[r]; s < net.set_offsets[r + 1]; ++s) {
      d_lambda += reaclib_set_lambda_dT9(net.set_coefficients + 7 * s, T9);
    }
  }
  const double d_fitted = reaction_density_factor(net, r, rho) * d_lambda * net.identical_factor[r];
  if (net.pf_offsets == nullptr || net.pf_offsets[r] == net.pf_offsets[r + 1]) return d_fitted;
  auto ratio = [&](double t9) {
    return partition_function_ratio(net.pf_grid, net.pf_points, net.pf_log10_G, net.pf_row, net.pf_power,
                                    net.pf_offsets[r], net.pf_offsets[r + 1], t9);
  };
  const double dT = self_heating_difference_step * T9;
  const double d_ratio = (ratio(T9 + dT) - ratio(T9 - dT)) / (2.0 * dT);
  return d_fitted * ratio(T9) + reaction_rate_factor_fitted(net, r, T9, rho) * d_ratio;
}

// d flux_r / d T9 at abundances Y for every reaction (flux_dT, reaction_count values): the rate
// factor's derivative and, with screening on, the screening factor's (a central difference of
// exp(H) in T). rate_factor: the zone's rate factors at T9.
template <typename Rates, typename Abundances, typename Fluxes>
ZONEODE_HD inline void flux_temperature_derivatives(const RateView& rates, const StepView& net, const Rates& rate_factor,
                                                    double T9, double rho, const Abundances& Y, Fluxes flux_dT) {
  const double ye = electron_fraction(net, Y);
  const double dT = self_heating_difference_step * T9;
  ScreeningPlasma plasma, hotter, cooler;
  if (net.screening != 0) {
    plasma = screening_plasma(net, Y, T9, rho, ye);
    hotter = screening_plasma(net, Y, T9 + dT, rho, ye);
    cooler = screening_plasma(net, Y, T9 - dT, rho, ye);
  }
  for (int r = 0; r < net.reaction_count; ++r) {
    double d_rate = reaction_rate_factor_dT9(rates, r, T9, rho);
    if (net.screening != 0) {
      const double d_screening =
          (reaction_screening(net, r, hotter) - reaction_screening(net, r, cooler)) / (2.0 * dT);
      d_rate = d_rate * reaction_screening(net, r, plasma) + rate_factor[r] * d_screening;
    }
    flux_dT[r] = reaction_flux(net, r, d_rate, Y, ye);
  }
}

}  // namespace zoneode
