// Rates, fluxes and F+/F- sums of one zone: the network's maths, written once for the CPU backend
// and every GPU kernel (host/device; no containers, no exceptions).
//
// Units: T9 in GK, rho in g/cm^3, abundances Y in mol/g (X = A Y), time in s, fluxes in mol/(g s).
// A reaction r with n reactants has flux
//     flux_r = rho^(n-1) * lambda_r(T9) * prod(Y_reactants) / prod(n_identical!)      (REACLIB)
// with one more factor rho*Ye for electron captures, and with the physics options (physics/) a
// partition-function factor G_products / G_reactants for reverse rates (in the rate factor) and a
// screening factor exp(H) per flux evaluation (it depends on the composition). dY_i/dt = F+_i - F-_i where F+_i (F-_i) sums
// stoichiometric factor * flux over the reactions creating (destroying) species i.
//
// Backends differ in which thread evaluates which reaction or species and where the arrays live;
// they call these functions for the arithmetic so that every backend does the same operations.
// Per-zone arrays are any type with operator[] (a pointer, or a StridedArray for species-major
// layouts); the per-term helpers let a team of threads split one sum and keep the term's maths.
#pragma once

#include <cmath>

#include "common/portability.hpp"
#include "network/views.hpp"
#include "physics/partition_functions.hpp"
#include "physics/screening.hpp"

#include "network/rate_table_lookup.hpp"

// The tabulated fits' vector loops (the CPU's) exist in host code only; the per-reaction reads
// (tabulated_rate_factor below) on both sides.
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__)
#define ZONEODE_RATE_TABLE_ON_HOST 1
#include <type_traits>

#include "network/rate_table.hpp"
#else
#define ZONEODE_RATE_TABLE_ON_HOST 0
#endif

namespace zoneode {

// The powers of T9 a REACLIB set's fit takes. They are the same for every set at one T9, so the
// implicit team kernels take them once per thread and T9 (the cbrt and log per set were ~10% of a
// self-heated team step's instructions on the H100, 2026-12-07). The same values as computed per
// set (the forms from T9 below, which keep the static kernels' registers): the same bits.
struct ReaclibPowers {
  double T9, T9_13, T9_53, log_T9;
};
ZONEODE_HD inline ReaclibPowers reaclib_powers(double T9) {
  const double T9_13 = cbrt(T9);
  return {T9, T9_13, T9 * T9_13 * T9_13, log(T9)};
}

// lambda(T9) of one REACLIB set.
ZONEODE_HD inline double reaclib_set_lambda(const double* a, const ReaclibPowers& p) {
  return exp(a[0] + a[1] / p.T9 + a[2] / p.T9_13 + a[3] * p.T9_13 + a[4] * p.T9 + a[5] * p.T9_53 +
             a[6] * p.log_T9);
}
// The same from T9 alone (its powers per set: the static kernels' registers, kernels/RESOURCES.md).
ZONEODE_HD inline double reaclib_set_lambda(const double* a, double T9) {
  const double T9_13 = cbrt(T9);
  const double T9_53 = T9 * T9_13 * T9_13;
  return exp(a[0] + a[1] / T9 + a[2] / T9_13 + a[3] * T9_13 + a[4] * T9 + a[5] * T9_53 + a[6] * log(T9));
}

// Everything of reaction r's flux that does not depend on abundances:
// rho^(n-1) [* rho for electron captures] * sum of sets' lambda / prod(n_identical!)
// [* G_products / G_reactants for a reverse rate with partition functions on].
// Computed once per zone, since T and rho are constant over one burn (with self-heating, again
// whenever T changes).
// The factor as the REACLIB fits give it, without partition functions (GPU kernels without the
// physics options call this one: the partition-function code would cost them registers).
// rho^(density power) of reaction r, by repeated multiplication.
ZONEODE_HD inline double reaction_density_factor(const RateView& net, int r, double rho) {
  double density_factor = 1.0;
  for (int k = 0; k < net.density_power[r]; ++k) density_factor *= rho;
  return density_factor;
}
// REACLIB's fits are made to T9 = 10 and nothing bounds them beyond: exp(polynomial in T9^(1/3),
// 1/T9, ln T9) runs away (s31 <-> p + p30, mb07: ln lambda 161 at T9 10.2, 767 at 11). Above T9 10
// every set is evaluated at T9 10 (the rate held at the edge of its fit), while partition
// functions, screening and the EOS take the zone's own T9: the policy of pynucastro and AMReX
// Microphysics, justified in inputs/README.md ("Above T9 10"). A NaN T9 passes through.
inline constexpr double reaclib_fit_max_T9 = 10.0;  // [GK]
ZONEODE_HD inline double reaclib_fit_T9(double T9) { return T9 > reaclib_fit_max_T9 ? reaclib_fit_max_T9 : T9; }
// fit: reaclib_powers(reaclib_fit_T9(T9)), which a caller evaluating many reactions at one T9 takes once.
ZONEODE_HD inline double reaction_rate_factor_fitted(const RateView& net, int r, const ReaclibPowers& fit, double rho) {
  double lambda = 0.0;
  for (int s = net.set_offsets[r]; s < net.set_offsets[r + 1]; ++s) {
    lambda += reaclib_set_lambda(net.set_coefficients + 7 * s, fit);
  }
  return reaction_density_factor(net, r, rho) * lambda * net.identical_factor[r];
}
// The same from T9, the powers per set (the static kernels' registers: kernels/RESOURCES.md).
ZONEODE_HD inline double reaction_rate_factor_fitted(const RateView& net, int r, double T9, double rho) {
  const double T9_fit = reaclib_fit_T9(T9);
  double lambda = 0.0;
  for (int s = net.set_offsets[r]; s < net.set_offsets[r + 1]; ++s) {
    lambda += reaclib_set_lambda(net.set_coefficients + 7 * s, T9_fit);
  }
  return reaction_density_factor(net, r, rho) * lambda * net.identical_factor[r];
}
// factor (reaction r's fitted rate factor) times its partition-function ratio at T9, where it has one.
ZONEODE_HD inline double with_partition_ratio(const RateView& net, int r, double T9, double factor) {
  if (net.pf_offsets == nullptr || net.pf_offsets[r] == net.pf_offsets[r + 1]) return factor;
  return factor * partition_function_ratio(net.pf_grid, net.pf_points, net.pf_log10_G, net.pf_row, net.pf_power,
                                           net.pf_offsets[r], net.pf_offsets[r + 1], T9);
}
ZONEODE_HD inline double reaction_rate_factor(const RateView& net, int r, double T9, const ReaclibPowers& fit,
                                              double rho) {
  return with_partition_ratio(net, r, T9, reaction_rate_factor_fitted(net, r, fit, rho));
}
ZONEODE_HD inline double reaction_rate_factor(const RateView& net, int r, double T9, double rho) {
  return with_partition_ratio(net, r, T9, reaction_rate_factor_fitted(net, r, T9, rho));
}

// Reaction r's rate factor at T9 [GK], rho [g/cm^3] with the fits' sum read from the table at
// interval j, weights w (rate_table_position and hermite_weights of reaclib_fit_T9(T9)), or from the
// fits (powers `fit`) where the table does not read r in j: tabulated_rate_factors' value for r, the
// same operations in the same order (a device thread per reaction; the CPU's loop below).
ZONEODE_HD inline double tabulated_rate_factor(const RateView& net, const RateTableView& table, int j,
                                               const HermiteWeights& w, int r, double T9, const ReaclibPowers& fit,
                                               double rho) {
  if (rate_table_direct(table, j, r)) return reaction_rate_factor(net, r, T9, fit, rho);
  const double lambda = table_exp(rate_table_log_lambda(table, j, w, r));
  return with_partition_ratio(net, r, T9, reaction_density_factor(net, r, rho) * lambda * net.identical_factor[r]);
}

// Every reaction's tabulated_rate_factor at T9 [GK], rho [g/cm^3] from net.fit_table (non-null), a
// reaction at a time (the serial device kernels' loop; the host's is tabulated_rate_factors below,
// the same bits); false (nothing written) below the table's T9, where the caller evaluates directly.
template <typename Array>
ZONEODE_HD inline bool tabulated_rate_factors_each(const RateView& net, double T9, double rho, Array rate_factor) {
  const RateTableView& table = *net.fit_table;
  int j = 0;
  double t = 0.0;
  if (!rate_table_position(table, reaclib_fit_T9(T9), j, t)) return false;
  const HermiteWeights weights = hermite_weights(t);
  const ReaclibPowers fit = reaclib_powers(reaclib_fit_T9(T9));
  for (int r = 0; r < net.reaction_count; ++r) rate_factor[r] = tabulated_rate_factor(net, table, j, weights, r, T9, fit, rho);
  return true;
}

#if ZONEODE_RATE_TABLE_ON_HOST
// Every reaction's reaction_rate_factor at T9 [GK], rho [g/cm^3] with the fits' sum read from
// net.fit_table (non-null; rate_table.hpp) where it tabulates the reaction, directly otherwise;
// false (nothing written) below the table's T9, where the caller evaluates all directly.
template <typename Array>
inline bool tabulated_rate_factors(const RateView& net, double T9, double rho, Array rate_factor) {
  const RateTableView& table = *net.fit_table;
  int j = 0;
  double t = 0.0;
  if (!rate_table_position(table, reaclib_fit_T9(T9), j, t)) return false;
  double rho_power[5] = {1.0, rho, 0.0, 0.0, 0.0};  // as reaction_density_factor multiplies
  for (int k = 2; k < 5; ++k) rho_power[k] = rho_power[k - 1] * rho;
  static_assert(max_reactants_per_reaction <= 4, "rate_table_factors takes powers of rho 0-4");
  if constexpr (std::is_same_v<Array, double*>) {  // the vector loop (rate_table.hpp): powers 0-4
    rate_table_factors_wide(table, j, t, rho_power, net.density_power, net.identical_factor, rate_factor);
  } else {
    rate_table_lambdas(table, j, t, rate_factor);
    for (int r = 0; r < net.reaction_count; ++r) {
      const int power = net.density_power[r];
      const double density_factor = power < 5 ? rho_power[power] : reaction_density_factor(net, r, rho);
      rate_factor[r] = density_factor * rate_factor[r] * net.identical_factor[r];
    }
  }
  if (net.pf_offsets != nullptr) {
    for (int r = 0; r < net.reaction_count; ++r) rate_factor[r] = with_partition_ratio(net, r, T9, rate_factor[r]);
  }
  for (int k = table.direct_offsets[j]; k < table.direct_offsets[j + 1]; ++k) {
    const int r = table.direct[k];
    rate_factor[r] = reaction_rate_factor(net, r, T9, rho);
  }
  return true;
}
#endif

// Electron fraction Ye = sum_i Z_i Y_i [mol/g].
template <typename Abundances>
ZONEODE_HD inline double electron_fraction(const StepView& net, const Abundances& Y) {
  double ye = 0.0;
  for (int i = 0; i < net.species_count; ++i) ye += net.species_Z[i] * Y[i];
  return ye;
}

// sum_i Z_i^2 Y_i [mol/g], for weak screening.
template <typename Abundances>
ZONEODE_HD inline double charge_squared_sum(const StepView& net, const Abundances& Y) {
  double sum = 0.0;
  for (int i = 0; i < net.species_count; ++i) sum += net.species_Z[i] * net.species_Z[i] * Y[i];
  return sum;
}

// The plasma that screening sees at one flux evaluation: T9 [GK], rho [g/cm^3], Ye and (weak
// screening only) sum Z^2 Y of the abundances the fluxes are evaluated at.
ZONEODE_HD inline ScreeningPlasma make_screening_plasma(double T9, double rho, double ye, double z2_sum) {
  ScreeningPlasma plasma;
  plasma.temperature = T9 * 1e9;
  plasma.density = rho;
  plasma.ye = ye;
  plasma.z2_sum = z2_sum;
  return plasma;
}
template <typename Abundances>
ZONEODE_HD inline ScreeningPlasma screening_plasma(const StepView& net, const Abundances& Y, double T9, double rho,
                                                   double ye) {
  const bool weak = net.screening == static_cast<int>(ScreeningKind::weak);
  return make_screening_plasma(T9, rho, ye, weak ? charge_squared_sum(net, Y) : 0.0);
}

// Reaction r's reactant nuclei: their charges z and mass numbers a; returns how many.
ZONEODE_HD inline int reactant_nuclei(const StepView& net, int r, double (&z)[max_reactants_per_reaction],
                                      double (&a)[max_reactants_per_reaction]) {
  const int count = net.reactant_count[r];
  const species_index_t* species = net.reactant_species + max_reactants_per_reaction * r;
  for (int k = 0; k < count; ++k) {
    z[k] = net.species_Z[species[k]];
    a[k] = net.species_A[species[k]];
  }
  return count;
}

// Reaction r's screening factor (exactly 1 with screening off or fewer than two nuclei in).
ZONEODE_HD inline double reaction_screening(const StepView& net, int r, const ScreeningPlasma& plasma) {
  if (net.screening == 0) return 1.0;
  double z[max_reactants_per_reaction], a[max_reactants_per_reaction];
  const int count = reactant_nuclei(net, r, z, a);
  return reaction_screening_factor(static_cast<ScreeningKind>(net.screening), count, z, a, plasma);
}

// flux_r = rate_factor_r * prod(Y_reactants) [* Ye for electron captures]   [mol/(g s)], the
// products in this order whatever the layout the reactants are read from: species(k) is the k-th.
template <typename Species, typename Abundances>
ZONEODE_HD inline double reaction_flux(double rate_factor, int reactants, const Species& species,
                                       bool electron_capture, const Abundances& Y, double ye) {
  double flux = rate_factor;
  for (int k = 0; k < reactants; ++k) flux *= Y[species(k)];
  if (electron_capture) flux *= ye;
  return flux;
}

// reaction_flux() without branches on the reactant count: the first `slots` reactant slots are
// all multiplied in, a reaction's unused slots naming an entry of Y that holds 1.0 (Y padded by
// the caller), as an electron capture's missing Ye is 1.0; x * 1.0 is exact, so the result is
// bitwise reaction_flux()'s. For GPU warps, where a loop over each reaction's own count diverges.
// slots: the network's most reactants (at most max_reactants_per_reaction), the same for every
// reaction.
template <typename Species, typename Abundances>
ZONEODE_HD inline double reaction_flux_slots(double rate_factor, int slots, const Species& species,
                                             bool electron_capture, const Abundances& Y, double ye) {
  double flux = rate_factor;
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#pragma unroll
#endif
  for (int k = 0; k < max_reactants_per_reaction; ++k) {
    if (k < slots) flux *= Y[species(k)];
  }
  flux *= electron_capture ? ye : 1.0;
  return flux;
}

template <typename Abundances>
ZONEODE_HD inline double reaction_flux(const StepView& net, int r, double rate_factor, const Abundances& Y,
                                       double ye) {
  const species_index_t* species = net.reactant_species + max_reactants_per_reaction * r;
  return reaction_flux(
      rate_factor, net.reactant_count[r], [species](int k) { return species[k]; },
      (net.reaction_flags[r] & reaction_flag_electron_capture) != 0, Y, ye);
}

// The same with screening: rate_factor * exp(H) in place of rate_factor.
template <typename Abundances>
ZONEODE_HD inline double reaction_flux(const StepView& net, int r, double rate_factor, const Abundances& Y, double ye,
                                       const ScreeningPlasma& plasma) {
  return reaction_flux(net, r, rate_factor * reaction_screening(net, r, plasma), Y, ye);
}

// One term of a F+ or F- sum: stoichiometric factor x flux of its reaction.
template <typename Fluxes>
ZONEODE_HD inline double flux_term(reaction_index_t reaction, stoich_factor_t factor, const Fluxes& flux) {
  return factor * flux[reaction];
}

// Term k of a CSR list.
template <typename Fluxes>
ZONEODE_HD inline double flux_term(const reaction_index_t* reaction, const stoich_factor_t* factor, int k,
                                   const Fluxes& flux) {
  return flux_term(reaction[k], factor[k], flux);
}

// The sum of one CSR row (row i of offsets) of terms, in order.
template <typename Fluxes>
ZONEODE_HD inline double term_sum(const std::int32_t* offsets, const reaction_index_t* reaction,
                                  const stoich_factor_t* factor, int i, const Fluxes& flux) {
  double sum = 0.0;
  for (int k = offsets[i]; k < offsets[i + 1]; ++k) sum += flux_term(reaction, factor, k, flux);
  return sum;
}

// F+_i: creation terms of species i in CSR order.
template <typename Fluxes>
ZONEODE_HD inline double creation_sum(const StepView& net, int i, const Fluxes& flux) {
  return term_sum(net.creation_offsets, net.creation_reaction, net.creation_factor, i, flux);
}

// F-_i: destruction terms of species i in CSR order.
template <typename Fluxes>
ZONEODE_HD inline double destruction_sum(const StepView& net, int i, const Fluxes& flux) {
  return term_sum(net.destruction_offsets, net.destruction_reaction, net.destruction_factor, i, flux);
}

// sum_i A_i Y_i: the mass-fraction sum, 1 for a normalised composition.
template <typename Abundances>
ZONEODE_HD inline double mass_fraction_sum(const StepView& net, const Abundances& Y) {
  double sum = 0.0;
  for (int i = 0; i < net.species_count; ++i) sum += net.species_A[i] * Y[i];
  return sum;
}

// sum_r flux_r Q_r [MeV mol/(g s)]; times N_A * (erg/MeV) it is the energy generation rate [erg/(g s)].
template <typename Fluxes>
ZONEODE_HD inline double energy_release_rate(const StepView& net, const Fluxes& flux) {
  double sum = 0.0;
  for (int r = 0; r < net.reaction_count; ++r) sum += flux[r] * net.q_value_MeV[r];
  return sum;
}

}  // namespace zoneode
