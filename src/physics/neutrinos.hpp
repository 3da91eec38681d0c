// The share of a weak reaction's Q value that its neutrino carries away, so that the energy a
// zone keeps is Q (1 - share). A documented approximation, per reaction class:
//   - electron capture (REACLIB 'ec'/'bec', incl. pep): the neutrino takes everything, share 1;
//   - beta+ (total charge falls by one): positron endpoint E0 = Q - 2 m_e c^2 (REACLIB Q values are
//     atomic-mass differences); share = <E_nu> / Q with <E_nu> the mean neutrino energy of an
//     allowed spectrum, N(T) ~ F(Z, E) p E (E0 - T)^2, F the non-relativistic Fermi function
//     2 pi eta / (1 - exp(-2 pi eta)), eta = -/+ alpha Z E / p (Z the daughter's charge, the sum
//     of the products' charges for beta-delayed particle emission, whose breakup is taken at
//     threshold); share 1 when E0 <= 0 (capture only);
//   - beta- (charge rises by one): E0 = Q, same spectrum with the attractive F.
// Against Bahcall's mean solar-neutrino energies (pp 0.2668, 13N 0.7067, 15O 0.9965, 17F 0.9994
// MeV) this gives 0.2647, 0.7063, 0.9960, 0.9994 (tests/test_physics_neutrinos.cpp). Forbidden
// transitions, decays from excited states and the stellar (thermal, density-dependent) weak rates'
// own neutrino spectra are not modelled. Host/device (it is evaluated once per network, on the host).
#pragma once

#include <cmath>

#include "common/portability.hpp"
#include "physics/cgs.hpp"

namespace zoneode {

enum class WeakKind : int { none = 0, electron_capture = 1, beta_plus = 2, beta_minus = 3 };

// Mean neutrino energy [MeV] of an allowed beta spectrum with endpoint kinetic energy E0 [MeV] to
// a daughter of charge Z (positron: beta+). Midpoint rule on 4000 intervals (the spectrum is smooth).
ZONEODE_HD inline double mean_neutrino_energy(double E0_MeV, double daughter_Z, bool positron) {
  if (!(E0_MeV > 0.0)) return 0.0;
  const int intervals = 4000;
  const double me = cgs::electron_mass_mev;
  const double sign = positron ? -1.0 : 1.0;
  double weight_sum = 0.0, energy_sum = 0.0;
  for (int k = 0; k < intervals; ++k) {
    const double T = (k + 0.5) * E0_MeV / intervals;  // lepton kinetic energy [MeV]
    const double E = T / me + 1.0;                     // total energy [m_e c^2]
    const double p = sqrt(E * E - 1.0);                // momentum [m_e c]
    const double x = 2.0 * cgs::pi * sign * cgs::fine_structure * daughter_Z * E / p;
    const double fermi = fabs(x) > 1e-12 ? x / (1.0 - exp(-x)) : 1.0;
    const double nu = E0_MeV - T;
    const double weight = fermi * p * E * nu * nu;
    weight_sum += weight;
    energy_sum += weight * nu;
  }
  return energy_sum / weight_sum;
}

// The share of Q [MeV] carried off by the neutrino for a reaction of this kind.
ZONEODE_HD inline double neutrino_share(WeakKind kind, double Q_MeV, double daughter_Z) {
  switch (kind) {
    case WeakKind::none: return 0.0;
    case WeakKind::electron_capture: return 1.0;
    case WeakKind::beta_plus: {
      const double E0 = Q_MeV - 2.0 * cgs::electron_mass_mev;
      if (!(E0 > 0.0)) return 1.0;
      return mean_neutrino_energy(E0, daughter_Z, true) / Q_MeV;
    }
    case WeakKind::beta_minus:
      if (!(Q_MeV > 0.0)) return 0.0;
      return mean_neutrino_energy(Q_MeV, daughter_Z, false) / Q_MeV;
  }
  return 0.0;
}

}  // namespace zoneode
