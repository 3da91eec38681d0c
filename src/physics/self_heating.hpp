// Self-heating (deck `physics.self_heating`): the zone's internal energy per gram (rho fixed)
//   U(T, rho, Y) = 3/2 R T sum_i Y_i  (ideal ions)  +  a T^4 / rho  (radiation)
//                  +  u_ele(T, rho, Ye)  (the e-/e+ gas of physics/eos.hpp: kinetic energy of both
//                     species and 2 m_e c^2 per positron; the net electrons' rest mass is in the
//                     atomic masses from which Q comes, network.q_values: masses)
// rises by the energy the network keeps, dU/dt = eps (sum_r flux_r Q_r N_A, neutrino losses taken
// off when they are on). U depends on the composition too, so
//   dT/dt = (eps - sum_i dU/dY_i dY_i/dt) / c_v,   dU/dY_i = 3/2 R T + Z_i du_ele/dYe (at T, rho),
// du_ele/dYe = N_A m_e c^2 [(D_- - D_+) / (B_- + B_+) - 1] from the gas's moments (eos.hpp;
// non-degenerate 3/2 N_A k T, degenerate the Fermi kinetic energy, pair plasma -> -N_A m_e c^2).
// Before issue 39 the composition term was missing (dT/dt = eps / c_v): closed burns raised U by
// 0.970 (rp mix, T9 0.8, rho 1e6, 0.05 s) and 0.918 (He, T9 3, rho 1e8, 1e-7 s) of the energy
// released; tests/test_self_heating_energy.cpp now holds U's rise to the mass-excess energy
// released within 1e-6 for every method. On the host c_v and du_ele/dYe come from one read of the
// table (physics/eos_table.hpp; c_v within 2.2e-7, du_ele/dYe within 4e-7 of |du/dYe| + N_A k T)
// unless physics.eos: exact; device code reads the GPU backend's copy of the same table
// (StepView::eos_table), or with physics.eos: exact the exact gas.
//
// T9 is one more variable of every method's integrated state, inside the step and in the error
// estimate: the implicit method (integrators/implicit.hpp) carries it in its Rosenbrock stages with
// T's row and column in the Jacobian (the pieces below: d lambda / d T9 analytic, partition
// functions', screening's, c_v's and dU/dY's derivatives by central differences; the row also
// carries sum_i dU/dY_i J_ij; on the CPU the fits and their d/dT9 come from the table of
// network/rate_table.hpp: lambda within 1e-11, d ln lambda / d ln T9 within 5e-9); qss2 and asymptotic
// (integrators/qss2.hpp, asymptotic.hpp) advance it with the step's predictor-corrector (the
// asymptotic method each step's T9 from the energy balance over it, energy_conserving_T9) and put
// it in their error estimates. With self-heating off none of it runs.
//
// The operator-split update this replaced (T jumped by the step's energy over c_v after each
// accepted step, first order in dt, outside error control) is gone; on the GPU the implicit
// method's kernels carry T9 (the serial method, and the team kernel's heated instantiation:
// kernels/implicit/implicit_team.hpp), the explicit methods' team kernels do not, and the deck
// refuses self-heating with those methods there (gpu_backend.hip). Host/device.
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

// [GK/s per MeV mol/(g s)] over c_v [erg/(g K)]: the release's share of dT9/dt is heating_per_release * S / c_v.
inline constexpr double heating_per_release = cgs::avogadro * cgs::mev_to_erg / cgs::kelvin_per_gk;

// Relative step of the central differences below: truncation ~1e-10, rounding ~1e-11 relative.
inline constexpr double self_heating_difference_step = 1e-5;

#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__) && !defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__)
// Test-only: false drops the composition term (dU/dY_i = 0: the equation before issue 39), so that
// tests/test_self_heating.cpp can show its energy-balance check fails without it. Host only; runs
// leave it true.
inline bool& self_heating_composition_term_for_tests() {
  static bool enabled = true;
  return enabled;
}
#endif

// d(sum_i Y_i)/dt and d(sum_i Z_i Y_i)/dt [mol/(g s)]: what the composition term needs of dY/dt.
struct CompositionRates {
  double ions = 0.0;
  double ye = 0.0;
};

// From dY_i/dt (species_count values).
template <typename SpeciesRates>
ZONEODE_HD inline CompositionRates composition_rates_of(const StepView& net, const SpeciesRates& dydt) {
  CompositionRates c;
  for (int i = 0; i < net.species_count; ++i) {
    c.ions += dydt[i];
    c.ye += net.species_Z[i] * dydt[i];
  }
  return c;
}

// From the fluxes (dY_i/dt = F+_i - F-_i, as species_rates forms it).
template <typename Fluxes>
ZONEODE_HD inline CompositionRates composition_rates_of_fluxes(const StepView& net, const Fluxes& flux) {
  CompositionRates c;
  for (int i = 0; i < net.species_count; ++i) {
    const double dydt = creation_sum(net, i, flux) - destruction_sum(net, i, flux);
    c.ions += dydt;
    c.ye += net.species_Z[i] * dydt;
  }
  return c;
}

// sum_i (to_i - from_i) and sum_i Z_i (to_i - from_i) [mol/g]: a step's composition change, in the
// same two sums (CompositionRates' fields, here changes rather than rates).
using CompositionChange = CompositionRates;
template <typename From, typename To>
ZONEODE_HD inline CompositionChange composition_change(const StepView& net, const From& from, const To& to) {
  CompositionChange c;
  for (int i = 0; i < net.species_count; ++i) {
    const double d = to[i] - from[i];
    c.ions += d;
    c.ye += net.species_Z[i] * d;
  }
  return c;
}

// The zone's thermal response at T9 [GK], rho [g/cm^3], ion_sum = sum Y, ye = sum Z Y [mol/g]: c_v
// and dU/dY_i = per_ion + Z_i per_ye [erg/mol] at fixed T and rho, per_ion = 3/2 R T (ideal ions),
// per_ye = the e-/e+ gas's energy_per_ye (physics/eos.hpp; radiation does not depend on Y). Both
// e-/e+ values from one table read on the host (electron_gas_response).
struct ThermalResponse {
  double cv = 0.0;       // [erg/(g K)]
  double per_ion = 0.0;  // [erg/mol]
  double per_ye = 0.0;   // [erg/mol]
};
ZONEODE_HD inline ThermalResponse thermal_response(double T9, double rho, double ion_sum, double ye,
                                                  const ElectronGasTableView* table = nullptr) {
  const double T = T9 * cgs::kelvin_per_gk;
  const ElectronGasResponse gas = electron_gas_response(T, rho, ye, table);
  ThermalResponse r;
  r.cv = ion_specific_heat(ion_sum) + radiation_specific_heat(T, rho) + gas.specific_heat;
  r.per_ion = 1.5 * cgs::gas_constant * T;
  r.per_ye = gas.energy_per_ye;
#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__) && !defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__)
  if (!self_heating_composition_term_for_tests()) r.per_ion = r.per_ye = 0.0;
#endif
  return r;
}

// dT9/dt [GK/s] = (eps - sum_i dU/dY_i dY_i/dt) / c_v with eps = S N_A MeV, S = sum_r Q_r flux_r
// [MeV mol/(g s)], at a state whose thermal response is `at`.
ZONEODE_HD inline double heating_rate(double release, const CompositionRates& change, const ThermalResponse& at) {
  const double composition_power = at.per_ion * change.ions + at.per_ye * change.ye;  // [erg/(g s)]
  return (heating_per_release * release - composition_power / cgs::kelvin_per_gk) / at.cv;
}

// The same at T9 [GK], rho [g/cm^3] with ion_sum = sum Y, ye = sum Z Y [mol/g].
ZONEODE_HD inline double heating_rate(double release, const CompositionRates& change, double T9, double rho,
                                      double ion_sum, double ye, const ElectronGasTableView* table = nullptr) {
  return heating_rate(release, change, thermal_response(T9, rho, ion_sum, ye, table));
}

// The T9 [GK] after a step from T9 at (ion_sum, ye) [mol/g] that released `released` [MeV mol/g]
// and changed sum Y by ion_change and sum Z Y by ye_change [mol/g], given a first-order estimate
// T9_estimate of it: U(T9_new, Y_new) - U(T9, Y) = released N_A MeV with U's line integral taken
// by the midpoint rule, c_v and dU/dY at the step's midpoint (exact for the ions' part, whose
// dU/dY is linear in T; third order in the step otherwise). The first-order asymptotic method
// advances T9 so (integrators/asymptotic.hpp): an Euler step in T alone leaves U's rise off the
// release by c_v's and dU/dY's change over the step (measured 5.4e-5 of the release at rtol 1e-6).
ZONEODE_HD inline double energy_conserving_T9(double released, double T9, double T9_estimate, double rho,
                                              double ion_sum, double ye, double ion_change, double ye_change,
                                              const ElectronGasTableView* table = nullptr) {
  const ThermalResponse mid = thermal_response(0.5 * (T9 + T9_estimate), rho, ion_sum + 0.5 * ion_change,
                                               ye + 0.5 * ye_change, table);
  const double composition_energy = mid.per_ion * ion_change + mid.per_ye * ye_change;  // [erg/g]
  return T9 + (heating_per_release * released - composition_energy / cgs::kelvin_per_gk) / mid.cv;
}

// The thermal response and its derivatives for the implicit method's temperature row and corner:
// in T9 and ye by central differences of the e-/e+ gas (the table or the exact gas, as the step
// reads it; its derivatives are not tabulated), in ion_sum and of per_ion analytic (linear). A
// relative error of 1e-10 there is far below what the step control sees.
struct ThermalSlopes {
  ThermalResponse at;
  double cv_dT9 = 0.0;       // [erg/(g K) per GK]
  double cv_dion_sum = 0.0;  // [erg/(g K) per mol/g]
  double cv_dye = 0.0;       // [erg/(g K) per mol/g]
  double per_ion_dT9 = 0.0;  // [erg/mol per GK]
  double per_ye_dT9 = 0.0;   // [erg/mol per GK]
  double per_ye_dye = 0.0;   // [erg/mol per mol/g]
};
// Its five evaluations of the gas (point 0 at, 1 hotter, 2 cooler, 3 richer, 4 poorer in ye; 3 and
// 4 only where ye > 0: thermal_slope_point_needed) and the slopes from them: the implicit team
// kernel evaluates the points on five threads at once rather than one after another.
inline constexpr int thermal_slope_points = 5;
ZONEODE_HD inline bool thermal_slope_point_needed(int point, double ye) {
  return point < 3 || self_heating_difference_step * ye > 0.0;
}
ZONEODE_HD inline ThermalResponse thermal_slope_point(int point, double T9, double rho, double ion_sum, double ye,
                                                     const ElectronGasTableView* table = nullptr) {
  const double dT = self_heating_difference_step * T9, de = self_heating_difference_step * ye;
  switch (point) {
    case 0: return thermal_response(T9, rho, ion_sum, ye, table);
    case 1: return thermal_response(T9 + dT, rho, ion_sum, ye, table);
    case 2: return thermal_response(T9 - dT, rho, ion_sum, ye, table);
    case 3: return thermal_response(T9, rho, ion_sum, ye + de, table);
    default: return thermal_response(T9, rho, ion_sum, ye - de, table);
  }
}
ZONEODE_HD inline ThermalSlopes thermal_slopes_from(const ThermalResponse (&point)[thermal_slope_points], double T9,
                                                    double ion_sum, double ye) {
  const double step = self_heating_difference_step;
  ThermalSlopes s;
  s.at = point[0];
  const double dT = step * T9, de = step * ye;
  const ThermalResponse& hotter = point[1];
  const ThermalResponse& cooler = point[2];
  s.cv_dT9 = (hotter.cv - cooler.cv) / (2.0 * dT);
  s.per_ye_dT9 = (hotter.per_ye - cooler.per_ye) / (2.0 * dT);
  s.per_ion_dT9 = (s.at.per_ion != 0.0) ? 1.5 * cgs::gas_constant * cgs::kelvin_per_gk : 0.0;
  s.cv_dion_sum = (ion_sum > 0.0) ? 1.5 * cgs::gas_constant : 0.0;  // c_v is linear in ion_sum (ideal ions)
  if (de > 0.0) {
    const ThermalResponse& richer = point[3];
    const ThermalResponse& poorer = point[4];
    s.cv_dye = (richer.cv - poorer.cv) / (2.0 * de);
    s.per_ye_dye = (richer.per_ye - poorer.per_ye) / (2.0 * de);
  }
  return s;
}
ZONEODE_HD inline ThermalSlopes thermal_slopes(double T9, double rho, double ion_sum, double ye,
                                               const ElectronGasTableView* table = nullptr) {
  ThermalResponse point[thermal_slope_points];
  for (int k = 0; k < thermal_slope_points; ++k)
    if (thermal_slope_point_needed(k, ye)) point[k] = thermal_slope_point(k, T9, rho, ion_sum, ye, table);
  return thermal_slopes_from(point, T9, ion_sum, ye);
}

// d lambda / d T9 of one REACLIB set (reaclib_set_lambda), analytic:
// d ln lambda / d T9 = -a1/T9^2 - a2/(3 T9^(4/3)) + a3/(3 T9^(2/3)) + a4 + 5/3 a5 T9^(2/3) + a6/T9.
ZONEODE_HD inline double reaclib_set_lambda_dT9(const double* a, const ReaclibPowers& p) {
  const double T9 = p.T9, T9_13 = p.T9_13;
  const double T9_23 = T9_13 * T9_13;
  const double d_log = -a[1] / (T9 * T9) - a[2] / (3.0 * T9 * T9_13) + a[3] / (3.0 * T9_23) + a[4] +
                       (5.0 / 3.0) * a[5] * T9_23 + a[6] / T9;
  return reaclib_set_lambda(a, p) * d_log;
}

// A reverse rate's partition-function ratio and its d/dT9 (central difference) at T9; ratio 1, slope
// 0 without partition functions.
ZONEODE_HD inline void partition_ratio_and_slope(const RateView& net, int r, double T9, double& ratio,
                                                 double& d_ratio) {
  ratio = 1.0;
  d_ratio = 0.0;
  if (net.pf_offsets == nullptr || net.pf_offsets[r] == net.pf_offsets[r + 1]) return;
  auto at = [&](double t9) {
    return partition_function_ratio(net.pf_grid, net.pf_points, net.pf_log10_G, net.pf_row, net.pf_power,
                                    net.pf_offsets[r], net.pf_offsets[r + 1], t9);
  };
  const double dT = self_heating_difference_step * T9;
  d_ratio = (at(T9 + dT) - at(T9 - dT)) / (2.0 * dT);
  ratio = at(T9);
}

// d rate_factor_r / d T9 (reaction_rate_factor): the fits' derivative analytic; a reverse rate's
// partition-function ratio (interpolated in a table) by a central difference.
// Above the fits' range the fitted part is held at T9 10 (reaclib_fit_T9): its slope is 0 there.
// fit: reaclib_powers(reaclib_fit_T9(T9)) (below T9 10 the powers of T9 itself), taken once by a
// caller evaluating many reactions at one T9.
ZONEODE_HD inline double reaction_rate_factor_dT9(const RateView& net, int r, double T9, const ReaclibPowers& fit,
                                                  double rho) {
  double d_lambda = 0.0;
  if (!(T9 > reaclib_fit_max_T9)) {
    for (int s = net.set_offsets[r]; s < net.set_offsets[r + 1]; ++s) {
      d_lambda += reaclib_set_lambda_dT9(net.set_coefficients + 7 * s, fit);
    }
  }
  const double d_fitted = reaction_density_factor(net, r, rho) * d_lambda * net.identical_factor[r];
  if (net.pf_offsets == nullptr || net.pf_offsets[r] == net.pf_offsets[r + 1]) return d_fitted;
  double ratio = 1.0, d_ratio = 0.0;
  partition_ratio_and_slope(net, r, T9, ratio, d_ratio);
  return d_fitted * ratio + reaction_rate_factor_fitted(net, r, fit, rho) * d_ratio;
}
ZONEODE_HD inline double reaction_rate_factor_dT9(const RateView& net, int r, double T9, double rho) {
  return reaction_rate_factor_dT9(net, r, T9, reaclib_powers(reaclib_fit_T9(T9)), rho);
}

// Reaction r's reaction_rate_factor_dT9 at T9 [GK] (<= 10) from the table: lambda_r (the table's,
// table_exp of its log at interval j) and d ln lambda_r / d ln T9 (the interpolant's slope, slope
// weights w_slope: within ~1e-9 of the fits' own, tests/test_rate_table.cpp); from the fits (powers
// `fit`) where the table does not read r in j. tabulated_rate_factor_slopes' value for r, the same
// operations in the same order (a device thread per reaction; the CPU's loop below).
ZONEODE_HD inline double tabulated_rate_factor_dT9(const RateView& net, const RateTableView& table, int j,
                                                   const HermiteWeights& w_slope, int r, double T9,
                                                   const ReaclibPowers& fit, double rho, double lambda) {
  if (rate_table_direct(table, j, r)) return reaction_rate_factor_dT9(net, r, T9, fit, rho);
  const double fitted = reaction_density_factor(net, r, rho) * lambda * net.identical_factor[r];
  double d = fitted * (rate_table_log_slope(table, j, w_slope, r) / T9);
  if (net.pf_offsets != nullptr && net.pf_offsets[r] != net.pf_offsets[r + 1]) {
    double ratio = 1.0, d_ratio = 0.0;
    partition_ratio_and_slope(net, r, T9, ratio, d_ratio);
    d = d * ratio + fitted * d_ratio;
  }
  return d;
}
// The same with lambda_r read from the table too (value weights w_value, hermite_weights(t)): the
// device's per-reaction read, in the CPU loop's operations.
ZONEODE_HD inline double tabulated_rate_factor_dT9(const RateView& net, const RateTableView& table, int j,
                                                   const HermiteWeights& w_value, const HermiteWeights& w_slope, int r,
                                                   double T9, const ReaclibPowers& fit, double rho) {
  const double lambda = table_exp(rate_table_log_lambda(table, j, w_value, r));
  return tabulated_rate_factor_dT9(net, table, j, w_slope, r, T9, fit, rho, lambda);
}
// Whether the table gives T9's slopes: at or above its first node and not above T9 10 (the fits'
// slope is 0 there, reaction_rate_factor_dT9); j, t: rate_table_position's.
ZONEODE_HD inline bool rate_table_slope_position(const RateTableView& table, double T9, int& j, double& t) {
  return !(T9 > reaclib_fit_max_T9) && rate_table_position(table, T9, j, t);
}

// Every reaction's tabulated_rate_factor_dT9 at T9 [GK] from net.fit_table (non-null), a reaction
// at a time (the serial device kernels' loop; the host's is tabulated_rate_factor_slopes below, the
// same bits); false (nothing written) below the table's T9 and above T9 10.
template <typename Array>
ZONEODE_HD inline bool tabulated_rate_factor_slopes_each(const RateView& net, double T9, double rho, Array out) {
  const RateTableView& table = *net.fit_table;
  int j = 0;
  double t = 0.0;
  if (!rate_table_slope_position(table, T9, j, t)) return false;
  const HermiteWeights value_weights = hermite_weights(t), slope_weights = hermite_weight_slopes(t);
  const ReaclibPowers fit = reaclib_powers(reaclib_fit_T9(T9));
  for (int r = 0; r < net.reaction_count; ++r)
    out[r] = tabulated_rate_factor_dT9(net, table, j, value_weights, slope_weights, r, T9, fit, rho);
  return true;
}

#if ZONEODE_RATE_TABLE_ON_HOST
// Every reaction's reaction_rate_factor_dT9 into out, read from net.fit_table (non-null) where it
// tabulates the reaction (tabulated_rate_factor_dT9); false (nothing written) below the table's T9
// and above T9 10, where the caller evaluates directly.
template <typename Array>
inline bool tabulated_rate_factor_slopes(const RateView& net, double T9, double rho, Array out) {
  const RateTableView& table = *net.fit_table;
  int j = 0;
  double t = 0.0;
  if (!rate_table_slope_position(table, T9, j, t)) return false;
  rate_table_lambdas(table, j, t, out);
  const HermiteWeights w = hermite_weight_slopes(t);
  const ReaclibPowers fit = reaclib_powers(reaclib_fit_T9(T9));
  for (int r = 0; r < net.reaction_count; ++r) out[r] = tabulated_rate_factor_dT9(net, table, j, w, r, T9, fit, rho, out[r]);
  return true;
}
#endif

// The screening plasma at T9 [GK] and at T9 +- dT (dT = self_heating_difference_step T9), for
// screening's d/dT9 by a central difference; ye = sum Z Y, z2_sum = sum Z^2 Y (weak screening).
struct TemperatureScreening {
  ScreeningPlasma at, hotter, cooler;
  double dT = 0.0;  // [GK]
};
ZONEODE_HD inline TemperatureScreening temperature_screening(double T9, double rho, double ye, double z2_sum) {
  TemperatureScreening s;
  s.dT = self_heating_difference_step * T9;
  s.at = make_screening_plasma(T9, rho, ye, z2_sum);
  s.hotter = make_screening_plasma(T9 + s.dT, rho, ye, z2_sum);
  s.cooler = make_screening_plasma(T9 - s.dT, rho, ye, z2_sum);
  return s;
}
// d(rate_factor_r exp(H_r))/dT9 of reaction r from its rate factor and the factor's d/dT9 d_rate.
ZONEODE_HD inline double screened_rate_factor_dT9(const StepView& net, int r, double d_rate, double rate_factor,
                                                  const TemperatureScreening& s) {
  const double d_screening = (reaction_screening(net, r, s.hotter) - reaction_screening(net, r, s.cooler)) / (2.0 * s.dT);
  return d_rate * reaction_screening(net, r, s.at) + rate_factor * d_screening;
}

// d flux_r / d T9 at abundances Y for every reaction (flux_dT, reaction_count values): the rate
// factor's derivative and, with screening on, the screening factor's (a central difference of
// exp(H) in T). rate_factor: the zone's rate factors at T9.
template <typename Rates, typename Abundances, typename Fluxes>
ZONEODE_HD inline void flux_temperature_derivatives(const RateView& rates, const StepView& net, const Rates& rate_factor,
                                                    double T9, double rho, const Abundances& Y, Fluxes flux_dT) {
  const double ye = electron_fraction(net, Y);
  TemperatureScreening screening;
  if (net.screening != 0) {
    const bool weak = net.screening == static_cast<int>(ScreeningKind::weak);
    screening = temperature_screening(T9, rho, ye, weak ? charge_squared_sum(net, Y) : 0.0);
  }
#if ZONEODE_RATE_TABLE_ON_HOST
  const bool tabulated = rates.fit_table != nullptr && tabulated_rate_factor_slopes(rates, T9, rho, flux_dT);
#else  // device code (the implicit and bdf kernels): a reaction at a time, as the team kernels read it
  const bool tabulated = rates.fit_table != nullptr && tabulated_rate_factor_slopes_each(rates, T9, rho, flux_dT);
#endif
  const ReaclibPowers fit = reaclib_powers(reaclib_fit_T9(T9));  // once, not per reaction
  for (int r = 0; r < net.reaction_count; ++r) {
    double d_rate = tabulated ? flux_dT[r] : reaction_rate_factor_dT9(rates, r, T9, fit, rho);
    if (net.screening != 0) d_rate = screened_rate_factor_dT9(net, r, d_rate, rate_factor[r], screening);
    flux_dT[r] = reaction_flux(net, r, d_rate, Y, ye);
  }
}

}  // namespace zoneode
