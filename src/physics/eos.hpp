// The equation of state self-heating uses: the specific heat at constant volume c_v(T, rho, Y) of
//   - ideal ions:        c_v = 3/2 k_B N_A sum_i Y_i            (= 3/2 R / mu_ion)
//   - radiation:         c_v = 4 a T^3 / rho
//   - electrons:         between the non-degenerate limit 3/2 k_B N_A Ye and the degenerate
//                        (Sommerfeld) limit N_A Ye pi^2 k_B^2 T E_F / (p_F c)^2 (E_F the Fermi
//                        energy with rest mass, p_F from n_e = p_F^3 / (3 pi^2 hbar^3), valid at
//                        any p_F), joined harmonically: 1/c_v = 1/c_nondeg + 1/c_deg, which tends
//                        to whichever is smaller.
// Not modelled: Coulomb corrections of the ions, e+e- pairs and relativistic non-degenerate
// electrons (k T >~ m_e c^2, T9 >~ 6, where the electrons' c_v tends to 3 k_B and pairs add
// more), ionisation. Where the study's decks run (T9 0.1-10, rho 1e2-1e9 g/cm^3) this is within
// a factor of about 2 of a full EOS for the electron part at the hottest, lowest-density corner and
// much closer elsewhere; inputs/README.md ("Physics") gives the measured differences.
// Host/device.
#pragma once

#include <cmath>

#include "common/portability.hpp"
#include "physics/cgs.hpp"

namespace zoneode {

// Ideal ions [erg/(g K)]; ion_sum = sum_i Y_i [mol/g].
ZONEODE_HD inline double ion_specific_heat(double ion_sum) { return 1.5 * cgs::gas_constant * ion_sum; }

// Radiation [erg/(g K)] at T [K], rho [g/cm^3].
ZONEODE_HD inline double radiation_specific_heat(double temperature, double density) {
  return 4.0 * cgs::radiation_constant * temperature * temperature * temperature / density;
}

// Degenerate electrons' Sommerfeld specific heat [erg/(g K)] (ye = sum Z Y [mol/g]).
ZONEODE_HD inline double degenerate_electron_specific_heat(double temperature, double density, double ye) {
  const double n_e = density * cgs::avogadro * ye;                                          // [1/cm^3]
  const double p_F = cgs::hbar * cbrt(3.0 * cgs::pi * cgs::pi * n_e);                       // [g cm/s]
  const double mc = cgs::electron_mass * cgs::speed_of_light;
  const double E_F = cgs::speed_of_light * sqrt(p_F * p_F + mc * mc);                       // [erg], with m_e c^2
  const double pc = p_F * cgs::speed_of_light;
  const double kB = cgs::boltzmann;
  return cgs::avogadro * ye * cgs::pi * cgs::pi * kB * kB * temperature * E_F / (pc * pc);
}

// Electrons [erg/(g K)]: the harmonic join of the two limits.
ZONEODE_HD inline double electron_specific_heat(double temperature, double density, double ye) {
  if (ye <= 0.0) return 0.0;
  const double nondegenerate = 1.5 * cgs::gas_constant * ye;
  const double degenerate = degenerate_electron_specific_heat(temperature, density, ye);
  return 1.0 / (1.0 / nondegenerate + 1.0 / degenerate);
}

// The total c_v [erg/(g K)].
ZONEODE_HD inline double specific_heat(double temperature, double density, double ion_sum, double ye) {
  return ion_specific_heat(ion_sum) + radiation_specific_heat(temperature, density) +
         electron_specific_heat(temperature, density, ye);
}

}  // namespace zoneode
