// The share of a weak reaction's Q value that its neutrino carries away, so that the energy a
// zone keeps is Q (1 - share). A documented approximation, per reaction class:
//   - electron capture (REACLIB 'ec'/'bec', incl. pep): the neutrino takes everything, share 1,
//     except where a measured mean applies (7Be: a branch feeds an excited state);
//   - beta+ (total charge falls by one): positron endpoint E0 = Q - 2 m_e c^2 (REACLIB Q values are
//     atomic-mass differences); share = <E_nu> / Q with <E_nu> the mean neutrino energy of an
//     allowed spectrum, N(T) ~ F(Z, E) p E (E0 - T)^2, F the non-relativistic Fermi function
//     2 pi eta / (1 - exp(-2 pi eta)), eta = -/+ alpha Z E / p (Z the daughter's charge, the sum
//     of the products' charges for beta-delayed particle emission, whose breakup is taken at
//     threshold); share 1 when E0 <= 0 (capture only);
//   - beta- (charge rises by one): E0 = Q, same spectrum with the attractive F.
// Against Bahcall's mean solar-neutrino energies (pp 0.2668, 13N 0.7067, 15O 0.9965, 17F 0.9994
// MeV) this gives 0.2647, 0.7063, 0.9960, 0.9994 (tests/test_physics_neutrinos.cpp). Decays that feed
// a broad excited state of the daughter, or captures that partly feed an excited state, take the
// measured mean instead (measured_mean_neutrino_energy: 8B, 7Be). Other forbidden transitions and excited-state branches, decays
// from excited states and the stellar (thermal, density-dependent) weak rates' own neutrino spectra
// are not modelled. Host/device (it is evaluated once per network, on the host).
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

// The measured mean neutrino energy [MeV] of a beta decay that the allowed spectrum to the
// daughter's ground state does not describe, or 0 for every other parent (Z, A).
//   8B (Z 5, A 8): it decays to the broad 2+ state of 8Be (3.03 MeV, width 1.5 MeV), which breaks
//   into two alphas; the ground-state transition is second forbidden. Mean 6.735 +- 0.036 MeV:
//   Bahcall et al. 1996, Phys. Rev. C 54, 411 (the spectrum built from the measured alpha spectrum).
//   The allowed spectrum to the ground state gives 8.71 MeV; to a sharp level at 3.03 MeV, 7.19;
//   the width matters, so the measured mean is taken rather than a model of the line shape.
//   7Be (Z 4, A 7), electron capture: two lines, 0.862 MeV to the ground state of 7Li (89.6%) and
//   0.384 MeV to its 478 keV level (10.4%), whose gamma stays in the plasma. Mean 0.814 MeV:
//   Bahcall, Neutrino Astrophysics (1989), table 6.1 (the lines shifted by the solar interior's
//   thermal energies by about 1 keV, not modelled). A share of 1 gave 0.862.
ZONEODE_HD inline double measured_mean_neutrino_energy(int parent_Z, int parent_A) {
  if (parent_Z == 5 && parent_A == 8) return 6.735;
  if (parent_Z == 4 && parent_A == 7) return 0.814;
  return 0.0;
}

// The share of Q [MeV] carried off by the neutrino for a reaction of this kind; parent_Z and
// parent_A name the decaying nucleus of a one-nucleus decay (0 otherwise).
ZONEODE_HD inline double neutrino_share(WeakKind kind, double Q_MeV, double daughter_Z, int parent_Z = 0,
                                        int parent_A = 0) {
  if (kind != WeakKind::none) {
    const double measured = measured_mean_neutrino_energy(parent_Z, parent_A);
    if (measured > 0.0 && measured < Q_MeV) return measured / Q_MeV;
  }
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
