// CGS physical constants for the physics terms (screening, equation of state, neutrinos), CODATA
// 2018 (exact where defined), each with its unit. Host/device: constexpr doubles only.
#pragma once

#include "common/constants.hpp"

namespace zoneode::cgs {

inline constexpr double pi = 3.14159265358979323846;
inline constexpr double boltzmann = 1.380649e-16;              // k_B [erg/K]
inline constexpr double planck = 6.62607015e-27;              // h [erg s], exact (SI 2019)
// e [statC = esu] = e [C] x c [cm/s] / 10, both exact: 4.80320471257026e-10
inline constexpr double elementary_charge = 1.602176634e-20 * 2.99792458e10;
inline constexpr double hbar = planck / (2.0 * pi);           // [erg s], exact: 1.0545718176461565e-27
inline constexpr double avogadro = constants::avogadro;       // N_A [1/mol]
inline constexpr double atomic_mass_unit = 1.66053906660e-24; // m_u [g]
inline constexpr double speed_of_light = 2.99792458e10;       // c [cm/s]
inline constexpr double electron_mass = 9.1093837015e-28;     // m_e [g]
// a = 4 sigma / c = 8 pi^5 k_B^4 / (15 h^3 c^3) [erg/(cm^3 K^4)], exact since k_B, h and c are:
// 7.5657332502800e-15 (CODATA 2018 prints 7.565733250e-15)
inline constexpr double radiation_constant =
    8.0 * pi * pi * pi * pi * pi * boltzmann * boltzmann * boltzmann * boltzmann /
    (15.0 * planck * planck * planck * speed_of_light * speed_of_light * speed_of_light);
inline constexpr double gas_constant = boltzmann * avogadro;  // R = k_B N_A [erg/(mol K)]
inline constexpr double mev_to_erg = constants::mev_to_erg;   // [erg/MeV]
inline constexpr double kelvin_per_gk = 1e9;                  // T = 1e9 T9 [K]
inline constexpr double fine_structure = 7.2973525693e-3;     // alpha [1]
inline constexpr double electron_mass_mev = constants::electron_mass_mev;  // m_e c^2 [MeV]

}  // namespace zoneode::cgs
