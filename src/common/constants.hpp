// Physical constants (CODATA 2018 exact where defined) with their units.
#pragma once

namespace zoneode::constants {

inline constexpr double avogadro = 6.02214076e23;            // N_A [1/mol]
inline constexpr double mev_to_erg = 1.602176634e-6;         // [erg/MeV]
inline constexpr double boltzmann_mev_per_gk = 8.617333262e-2;  // k_B [MeV/GK], so kT = 0.08617 T9 MeV
inline constexpr double neutron_mass_excess_mev = 8.0713181;  // Delta_n [MeV] (AME2020)
inline constexpr double hydrogen_mass_excess_mev = 7.2889734; // Delta(1H) [MeV] (AME2020)
inline constexpr double electron_mass_mev = 0.51099895;       // m_e c^2 [MeV]
inline constexpr double atomic_mass_unit_mev = 931.49410242;  // u c^2 [MeV]

// Detailed-balance prefactor for a capture a + b -> c and its photodisintegration:
// lambda_rev / N_A<sigma v> = (m_u k T / (2 pi hbar^2))^(3/2) / N_A  =  9.8685e9 T9^(3/2) [mol/cm^3].
inline constexpr double detailed_balance_capture = 9.8685e9;
// exp(-Q / kT) = exp(-11.6045 Q[MeV] / T9)
inline constexpr double inverse_kT_per_mev = 1.0 / boltzmann_mev_per_gk;  // 11.6045 [GK/MeV]

}  // namespace zoneode::constants
