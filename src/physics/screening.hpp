// Electron-ion plasma screening of charged-particle reactions: the factor exp(H) that multiplies a
// rate whose reactants are two nuclei (Z1, A1) and (Z2, A2) in a plasma at T, rho.
//
// - weak: Salpeter (1954) weak screening, H = Z1 Z2 e^2 / (k T lambda_D), with the Debye length of
//   ions and non-degenerate electrons: lambda_D^-2 = 4 pi e^2 rho N_A zeta / (k T), zeta =
//   sum_i (Z_i^2 + Z_i) Y_i. That is Clayton's H = 0.188 Z1 Z2 zeta^1/2 rho^1/2 T6^-3/2. Valid for
//   H << 1 only; electron degeneracy (which weakens electron screening) is not included.
// - chugunov2007: Chugunov, DeWitt & Yakovlev (2007, PhRvD 76, 025028) fit of the OCP enhancement,
//   valid from weak to strong coupling (Gamma up to ~600) with quantum corrections, extended to a
//   mixture as Yakovlev et al. (2006) eq. 10 (Z^2 -> Z1 Z2, n_i -> n_e / ztilde^3, m_i -> 2 mu12),
//   written as AMReX Microphysics (screen.H) and pynucastro (screening/screen.py) do, with their
//   smooth clips at T/T_p = 0.1..0.2 and Gamma = 590..600 and h <= 300. Needs n_e only.
// Reactions of three or more nuclei are screened pair by pair: (a, b), then (a+b, c), ... (as
// Microphysics and pynucastro screen triple alpha: (he4, he4) then (he4, be8)).
// Host/device: no containers, no exceptions.
#pragma once

#include <cmath>

#include "common/portability.hpp"
#include "physics/cgs.hpp"

namespace zoneode {

enum class ScreeningKind : int { none = 0, weak = 1, chugunov2007 = 2 };

// What screening needs of the zone at one flux evaluation.
struct ScreeningPlasma {
  double temperature = 0.0;  // [K]
  double density = 0.0;      // [g/cm^3]
  double ye = 0.0;           // sum_i Z_i Y_i [mol/g]
  double z2_sum = 0.0;       // sum_i Z_i^2 Y_i [mol/g]
};

// Salpeter weak-screening exponent H for charges z1, z2.
ZONEODE_HD inline double weak_screening_exponent(double z1, double z2, const ScreeningPlasma& plasma) {
  const double kT = cgs::boltzmann * plasma.temperature;
  const double e2 = cgs::elementary_charge * cgs::elementary_charge;
  const double zeta = plasma.z2_sum + plasma.ye;  // sum (Z^2 + Z) Y [mol/g]
  const double inverse_debye = sqrt(4.0 * cgs::pi * e2 * plasma.density * cgs::avogadro * zeta / kT);  // [1/cm]
  return z1 * z2 * e2 * inverse_debye / kT;
}

// Half-cosine blend from y = limit to y = x between limit and start (pynucastro's smooth_clip).
ZONEODE_HD inline double screening_smooth_clip(double x, double limit, double start) {
  const double lower = limit < start ? limit : x;
  const double upper = limit < start ? x : limit;
  const double low_end = limit < start ? limit : start;
  const double high_end = limit < start ? start : limit;
  if (x < low_end) return lower;
  if (x > high_end) return upper;
  const double f = 0.5 * (1.0 - cos(cgs::pi * (x - low_end) / (start - limit)));
  return (1.0 - f) * lower + f * upper;
}

// Chugunov et al. (2007) exponent h for the pair (z1, a1), (z2, a2).
ZONEODE_HD inline double chugunov2007_screening_exponent(double z1, double a1, double z2, double a2,
                                                         const ScreeningPlasma& plasma) {
  const double e = cgs::elementary_charge;
  const double n_e = plasma.density * cgs::avogadro * plasma.ye;                   // [1/cm^3]
  const double gamma_e_factor = e * e / cgs::boltzmann * cbrt(4.0 * cgs::pi / 3.0 * n_e);  // Gamma_e T [K]
  const double ztilde = 0.5 * (cbrt(z1) + cbrt(z2));
  const double mu12 = a1 * a2 / (a1 + a2);
  const double n_i = n_e / (ztilde * ztilde * ztilde);
  const double m_i = 2.0 * mu12 * cgs::atomic_mass_unit;                          // [g]
  const double T_p = cgs::hbar / cgs::boltzmann * e * sqrt(4.0 * cgs::pi * z1 * z2 * n_i / m_i);  // ion plasma T [K]
  // The fit holds down to T ~ 0.1 T_p (below: pycnonuclear, nearly T-independent).
  const double T_norm = screening_smooth_clip(plasma.temperature / T_p, 0.1, 0.2);
  double Gamma = gamma_e_factor * z1 * z2 / (ztilde * T_norm * T_p);  // Yakovlev et al. 2006 eq. 10
  Gamma = screening_smooth_clip(Gamma, 600.0, 590.0);                 // the fit's range
  const double zeta = cbrt(4.0 / (3.0 * cgs::pi * cgs::pi * T_norm * T_norm));  // Chugunov 2007 eq. 3
  const double fit_alpha = 0.022, fit_beta = 0.41 - 0.6 / Gamma, fit_gamma = 0.06 + 2.2 / Gamma;  // eq. 21
  const double poly = 1.0 + zeta * (fit_alpha + zeta * (fit_beta + fit_gamma * zeta));
  const double g = Gamma / cbrt(poly);  // Gamma tilde
  const double A1 = 2.7822, A2 = 98.34, A3 = sqrt(3.0) - A1 / sqrt(A2);
  const double B1 = -1.7476, B2 = 66.07, B3 = 1.12, B4 = 65.0;
  const double h = g * sqrt(g) * (A1 / sqrt(A2 + g) + A3 / (1.0 + g)) + B1 * g * g / (B2 + g) +
                   B3 * g * g / (B4 + g * g);  // eq. 19
  return h < 300.0 ? h : 300.0;
}

// exp(H) for one pair, by kind.
ZONEODE_HD inline double pair_screening_factor(ScreeningKind kind, double z1, double a1, double z2, double a2,
                                               const ScreeningPlasma& plasma) {
  if (z1 <= 0.0 || z2 <= 0.0) return 1.0;  // neutrons are not screened
  switch (kind) {
    case ScreeningKind::weak: return exp(weak_screening_exponent(z1, z2, plasma));
    case ScreeningKind::chugunov2007: return exp(chugunov2007_screening_exponent(z1, a1, z2, a2, plasma));
    case ScreeningKind::none: break;
  }
  return 1.0;
}

// The factor of a reaction whose reactants have charges z[k] and masses a[k] (k < count): pairs
// (0, 1), (0+1, 2), ... multiplied.
ZONEODE_HD inline double reaction_screening_factor(ScreeningKind kind, int count, const double* z, const double* a,
                                                   const ScreeningPlasma& plasma) {
  if (kind == ScreeningKind::none || count < 2) return 1.0;
  double factor = 1.0, z_compound = z[0], a_compound = a[0];
  for (int k = 1; k < count; ++k) {
    factor *= pair_screening_factor(kind, z_compound, a_compound, z[k], a[k], plasma);
    z_compound += z[k];
    a_compound += a[k];
  }
  return factor;
}

}  // namespace zoneode
