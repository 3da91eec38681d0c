// Non-owning views of the compact network's two blocks (compact.hpp): raw pointers and counts,
// trivially copyable into a kernel argument. Device-side header: no standard containers.
#pragma once

#include <cstdint>

namespace zoneode {

using reaction_index_t = std::uint16_t;  // reactions per network <= 65535
using species_index_t = std::uint16_t;   // species per network <= 65535
using stoich_factor_t = std::uint8_t;    // multiplicity of a species in one reaction (1..4)

inline constexpr int max_reactants_per_reaction = 4;  // REACLIB chapter 10 has four

enum ReactionFlags : std::uint8_t {
  reaction_flag_electron_capture = 1u << 0,  // flux carries an extra rho*Ye
};

struct RateTableView;  // network/rate_table_lookup.hpp
struct ElectronGasTableView;  // physics/eos_table.hpp

// Read once per zone: everything of a reaction's rate that depends on T9 and rho only.
struct RateView {
  int reaction_count = 0;
  // reaction r sums sets set_offsets[r] .. set_offsets[r+1]-1; set s has coefficients [7s, 7s+7)
  const std::int32_t* set_offsets = nullptr;
  const double* set_coefficients = nullptr;
  const double* identical_factor = nullptr;   // 1 / prod(n_identical!) per reaction
  const std::uint8_t* density_power = nullptr;  // reactants - 1, plus 1 for electron captures
  // Partition functions of reverse rates (physics/partition_functions.hpp); null when off.
  // Reaction r's factor has terms pf_offsets[r] .. pf_offsets[r+1]-1: table row pf_row[k] (log10 G
  // at the pf_points temperatures pf_grid, row-major in pf_log10_G) to the power pf_power[k].
  int pf_points = 0;
  const double* pf_grid = nullptr;
  const double* pf_log10_G = nullptr;
  const std::int32_t* pf_offsets = nullptr;
  const std::int32_t* pf_row = nullptr;
  const signed char* pf_power = nullptr;
  // The fits tabulated in T9 (network/rate_table.hpp; read with rate_table_lookup.hpp): set with
  // self-heating and physics.eos: table, by the CPU backend (host memory) and the GPU backend (its
  // device copy, read by the implicit and bdf kernels); null (the fits evaluated directly) otherwise.
  const RateTableView* fit_table = nullptr;
};

// Read at every step.
struct StepView {
  int species_count = 0;
  int reaction_count = 0;
  // reactants of r: reactant_species[max_reactants_per_reaction*r + k] for k < reactant_count[r]
  const std::uint8_t* reactant_count = nullptr;
  const species_index_t* reactant_species = nullptr;
  const std::uint8_t* reaction_flags = nullptr;
  const double* q_value_MeV = nullptr;
  // F+ terms of species i: k in creation_offsets[i] .. creation_offsets[i+1]-1
  const std::int32_t* creation_offsets = nullptr;
  const reaction_index_t* creation_reaction = nullptr;
  const stoich_factor_t* creation_factor = nullptr;
  // F- terms of species i, likewise
  const std::int32_t* destruction_offsets = nullptr;
  const reaction_index_t* destruction_reaction = nullptr;
  const stoich_factor_t* destruction_factor = nullptr;
  const double* species_A = nullptr;  // mass number, for mass fractions X = A Y
  const double* species_Z = nullptr;  // charge, for Ye = sum Z Y
  int screening = 0;     // ScreeningKind (physics/screening.hpp): 0 none
  int self_heating = 0;  // 1: T9 follows dU/dt = eps (physics/self_heating.hpp)
  // Self-heating's e-/e+ gas table (physics/eos_table.hpp) where this view's reader must find it:
  // set by the GPU backend to its device copy (physics.eos: table); null on the host, whose methods
  // read the host's own table (physics/eos.hpp), and with physics.eos: exact (the exact gas).
  const ElectronGasTableView* eos_table = nullptr;
};

}  // namespace zoneode
