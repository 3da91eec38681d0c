// The compact network: the single structure every integrator and kernel reads.
//
// Per reaction: the rate sets (7 coefficients each), up to four reactants, the identical-reactant
// factor 1/n! and flags. Per species: two CSR term lists, one for creation (F+) and one for
// destruction (F-), each term a (reaction, stoichiometric factor) pair stored as uint16 + uint8 to
// keep the structure small enough to stage in LDS / shared memory.
#pragma once

#include <cstdint>
#include <vector>

#include "network/network.hpp"

namespace zoneode {

using reaction_index_t = std::uint16_t;  // reactions per network <= 65535
using species_index_t = std::uint16_t;   // species per network <= 65535
using stoich_factor_t = std::uint8_t;    // multiplicity of a species in one reaction (1..4)

enum ReactionFlags : std::uint8_t {
  reaction_flag_electron_capture = 1u << 0,  // flux carries an extra rho*Ye
};

// Non-owning view with raw pointers: trivially copyable to a kernel argument.
struct NetworkView {
  int species_count = 0;
  int reaction_count = 0;
  // reaction r sums sets set_offsets[r] .. set_offsets[r+1]-1; set s has coefficients [7s, 7s+7)
  const std::int32_t* set_offsets = nullptr;
  const double* set_coefficients = nullptr;
  // reactants of r: reactant_species[max_reactants*r + k] for k < reactant_count[r]
  const std::uint8_t* reactant_count = nullptr;
  const species_index_t* reactant_species = nullptr;
  const double* identical_factor = nullptr;  // 1 / prod(n_identical!) per reaction
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
};

class CompactNetwork {
 public:
  explicit CompactNetwork(const Network& network);

  NetworkView view() const;
  int species_count() const { return species_count_; }
  int reaction_count() const { return reaction_count_; }
  std::int64_t creation_terms() const { return static_cast<std::int64_t>(creation_reaction.size()); }
  std::int64_t destruction_terms() const { return static_cast<std::int64_t>(destruction_reaction.size()); }
  std::int64_t flux_terms() const { return creation_terms() + destruction_terms(); }
  std::int64_t set_count() const { return static_cast<std::int64_t>(set_offsets.back()); }
  // Bytes of the network data a kernel would stage (all arrays below).
  std::int64_t bytes() const;

  // Public so that GPU backends can copy them to the device as they are.
  std::vector<std::int32_t> set_offsets;
  std::vector<double> set_coefficients;
  std::vector<std::uint8_t> reactant_count;
  std::vector<species_index_t> reactant_species;
  std::vector<double> identical_factor;
  std::vector<std::uint8_t> reaction_flags;
  std::vector<double> q_value_MeV;
  std::vector<std::int32_t> creation_offsets;
  std::vector<reaction_index_t> creation_reaction;
  std::vector<stoich_factor_t> creation_factor;
  std::vector<std::int32_t> destruction_offsets;
  std::vector<reaction_index_t> destruction_reaction;
  std::vector<stoich_factor_t> destruction_factor;
  std::vector<double> species_A;
  std::vector<double> species_Z;

 private:
  int species_count_ = 0;
  int reaction_count_ = 0;
};

}  // namespace zoneode
