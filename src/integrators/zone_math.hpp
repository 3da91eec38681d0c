// The per-zone maths, written once for the CPU backend and every GPU kernel.
//
// Units: T9 in GK, rho in g/cm^3, abundances Y in mol/g (X = A Y), time in s, fluxes in mol/(g s).
// A reaction r with n reactants has flux
//     flux_r = rho^(n-1) * lambda_r(T9) * prod(Y_reactants) / prod(n_identical!)      (REACLIB)
// with one more factor rho*Ye for electron captures. dY_i/dt = F+_i - F-_i where F+_i (F-_i) sums
// stoichiometric factor * flux over the reactions creating (destroying) species i.
//
// Kernels differ in which thread evaluates which reaction or species and where the arrays live;
// they call these functions for the arithmetic so that every backend does the same operations.
#pragma once

#include <cmath>

#include "common/portability.hpp"
#include "network/compact.hpp"

namespace zoneode {

// lambda(T9) of one REACLIB set.
ZONEODE_HD inline double reaclib_set_lambda(const double* a, double T9) {
  const double T9_13 = cbrt(T9);
  const double T9_53 = T9 * T9_13 * T9_13;
  return exp(a[0] + a[1] / T9 + a[2] / T9_13 + a[3] * T9_13 + a[4] * T9 + a[5] * T9_53 +
             a[6] * log(T9));
}

// Everything of reaction r's flux that does not depend on abundances:
// rho^(n-1) [* rho for electron captures] * sum of sets' lambda / prod(n_identical!).
// Computed once per zone, since T and rho are constant over one burn.
ZONEODE_HD inline double reaction_rate_factor(const NetworkView& net, int r, double T9, double rho) {
  double lambda = 0.0;
  for (int s = net.set_offsets[r]; s < net.set_offsets[r + 1]; ++s) {
    lambda += reaclib_set_lambda(net.set_coefficients + 7 * s, T9);
  }
  int density_power = net.reactant_count[r] - 1;
  if (net.reaction_flags[r] & reaction_flag_electron_capture) density_power += 1;
  double density_factor = 1.0;
  for (int k = 0; k < density_power; ++k) density_factor *= rho;
  return density_factor * lambda * net.identical_factor[r];
}

// Electron fraction Ye = sum_i Z_i Y_i [mol/g].
ZONEODE_HD inline double electron_fraction(const NetworkView& net, const double* Y) {
  double ye = 0.0;
  for (int i = 0; i < net.species_count; ++i) ye += net.species_Z[i] * Y[i];
  return ye;
}

// flux_r = rate_factor_r * prod(Y_reactants) [* Ye for electron captures]   [mol/(g s)]
ZONEODE_HD inline double reaction_flux(const NetworkView& net, int r, double rate_factor,
                                       const double* Y, double ye) {
  double flux = rate_factor;
  const int count = net.reactant_count[r];
  for (int k = 0; k < count; ++k) flux *= Y[net.reactant_species[max_reactants * r + k]];
  if (net.reaction_flags[r] & reaction_flag_electron_capture) flux *= ye;
  return flux;
}

// F+_i: creation terms of species i in CSR order.
ZONEODE_HD inline double creation_sum(const NetworkView& net, int i, const double* flux) {
  double sum = 0.0;
  for (int k = net.creation_offsets[i]; k < net.creation_offsets[i + 1]; ++k) {
    sum += net.creation_factor[k] * flux[net.creation_reaction[k]];
  }
  return sum;
}

// F-_i: destruction terms of species i in CSR order.
ZONEODE_HD inline double destruction_sum(const NetworkView& net, int i, const double* flux) {
  double sum = 0.0;
  for (int k = net.destruction_offsets[i]; k < net.destruction_offsets[i + 1]; ++k) {
    sum += net.destruction_factor[k] * flux[net.destruction_reaction[k]];
  }
  return sum;
}

// The explicit asymptotic update of one species over dt (Guidry et al.): where destruction would
// remove more than the species holds in one step (F- dt > Y), the stiff limit
//     Y <- (Y + F+ dt) / (1 + F- dt / Y)
// which is forward Euler on dY/dt = F+ - k Y with k = F-/Y taken implicitly; forward Euler
// otherwise. The result never drops below `floor` [mol/g].
ZONEODE_HD inline double asymptotic_update(double y, double fplus, double fminus, double dt,
                                           double floor) {
  double next;
  if (fminus * dt > y) {
    next = (y + fplus * dt) / (1.0 + fminus * dt / y);
  } else {
    next = y + (fplus - fminus) * dt;
  }
  return next > floor ? next : floor;
}

// sum_i A_i Y_i: the mass-fraction sum, 1 for a normalised composition.
ZONEODE_HD inline double mass_fraction_sum(const NetworkView& net, const double* Y) {
  double sum = 0.0;
  for (int i = 0; i < net.species_count; ++i) sum += net.species_A[i] * Y[i];
  return sum;
}

// sum_r flux_r Q_r [MeV mol/(g s)]; times N_A * (erg/MeV) it is the energy generation rate [erg/(g s)].
ZONEODE_HD inline double energy_release_rate(const NetworkView& net, const double* flux) {
  double sum = 0.0;
  for (int r = 0; r < net.reaction_count; ++r) sum += flux[r] * net.q_value_MeV[r];
  return sum;
}

}  // namespace zoneode
