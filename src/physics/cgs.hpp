// CGS physical constants for the physics terms (screening, equation of state, neutrinos), CODATA
// 2018 (exact where defined), each with its unit. Host/device: constexpr doubles only.
#pragma once

#include "common/constants.hpp"

namespace zoneode::cgs {

inline constexpr double pi = 3.14159265358979323846;
inline constexpr double boltzmann = 1.380649e-16;              // k_B [erg/K]
inline constexpr double elementary_charge = 4.80320471257e-10; // e [statC = esu]
inline constexpr double hbar = 1.054571817e-27;               // [erg s]
inline constexpr double avogadro = constants::avogadro;       // N_A [1/mol]
inline constexpr double atomic_mass_unit = 1.66053906660e-24; // m_u [g]
inline constexpr double speed_of_light = 2.99792458e10;       // c [cm/s]
inline constexpr double electron_mass = 9.1093837015e-28;     // m_e [g]
inline constexpr double radiation_constant = 7.565733250e-15; // a = 4 sigma / c [erg/(cm^3 K^4)]
inline constexpr double gas_constant = boltzmann * avogadro;  // R = k_B N_A [erg/(mol K)]
inline constexpr double mev_to_erg = constants::mev_to_erg;   // [erg/MeV]
inline constexpr double kelvin_per_gk = 1e9;                  // T = 1e9 T9 [K]
inline constexpr double fine_structure = 7.2973525693e-3;     // alpha [1]
inline constexpr double electron_mass_mev = constants::electron_mass_mev;  // m_e c^2 [MeV]

}  // namespace zoneode::cgs
