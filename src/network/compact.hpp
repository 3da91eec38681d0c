// The compact network: the structure every integrator and kernel reads, in two contiguous blocks.
//
// - The rate block, read once per zone (T9 and rho are fixed over one burn): the REACLIB sets
//   (7 coefficients each), the identical-reactant factor 1/n! and the power of rho per reaction.
//   It is most of the bytes (s150: 105 KiB of 151 KiB) and need never be staged on chip.
// - The step block, read at every step: reactants, flags, Q values, the species' A and Z and two
//   CSR term lists per species, creation (F+) and destruction (F-), each term a (reaction,
//   stoichiometric factor) pair stored as uint16 + uint8. This is what a kernel stages in LDS /
//   shared memory; `network info` prints both sizes (s150's step block is 46 KiB).
// Each block is one byte array with 8-byte-aligned sub-arrays, so a backend copies or stages it
// whole and rebuilds the views over its own copy with rate_view_at / step_view_at.
//
// Physics options (physics/physics_options.hpp) add to the rate block the partition-function terms
// of reverse rates and their table rows, set the step view's screening and self-heating flags, and
// with neutrino losses replace each weak reaction's Q by Q (1 - neutrino share). With every option
// off the blocks are byte for byte those of a network without them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "network/network.hpp"
#include "network/views.hpp"
#include "physics/physics_options.hpp"

namespace zoneode {

class CompactNetwork {
 public:
  // Throws InputError for an unreadable or malformed partition-function table.
  explicit CompactNetwork(const Network& network, const PhysicsOptions& physics = {});
  const PhysicsOptions& physics() const { return physics_; }

  int species_count() const { return species_count_; }
  int reaction_count() const { return reaction_count_; }
  std::int64_t creation_terms() const { return static_cast<std::int64_t>(creation_reaction.size()); }
  std::int64_t destruction_terms() const { return static_cast<std::int64_t>(destruction_reaction.size()); }
  std::int64_t flux_terms() const { return creation_terms() + destruction_terms(); }
  std::int64_t set_count() const { return static_cast<std::int64_t>(set_offsets.back()); }

  // The two blocks (bytes) and views over them: here on the host, or over a copy elsewhere. Each
  // block's storage is padded to whole doubles, so a copy may move (bytes + 7) / 8 * 8 bytes.
  const std::byte* rate_block() const { return reinterpret_cast<const std::byte*>(rate_storage_.data()); }
  const std::byte* step_block() const { return reinterpret_cast<const std::byte*>(step_storage_.data()); }
  std::int64_t rate_block_bytes() const { return rate_bytes_; }
  std::int64_t step_block_bytes() const { return step_bytes_; }
  RateView rate_view_at(const std::byte* block) const;
  StepView step_view_at(const std::byte* block) const;
  RateView rate_view() const { return rate_view_at(rate_block()); }
  StepView step_view() const { return step_view_at(step_block()); }

  // The arrays as built (host form; the blocks hold copies), for inspection and tests.
  std::vector<std::int32_t> set_offsets;
  std::vector<double> set_coefficients;
  std::vector<double> identical_factor;
  std::vector<std::uint8_t> density_power;
  std::vector<std::uint8_t> reactant_count;
  std::vector<species_index_t> reactant_species;
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
  // Physics (empty when its option is off).
  std::vector<double> neutrino_share;   // per reaction: share of Q the neutrino takes (0: not weak)
  std::vector<double> q_without_neutrino_loss_MeV;  // per reaction: the network's Q
  std::vector<double> pf_grid;          // T9 [GK] of the partition-function table
  std::vector<double> pf_log10_G;       // rows of log10 G at pf_grid, one per tabulated species used
  std::vector<std::int32_t> pf_offsets; // per reaction: its terms [pf_offsets[r], pf_offsets[r+1])
  std::vector<std::int32_t> pf_row;
  std::vector<signed char> pf_power;    // +products - reactants multiplicity of the term's species
  // Species of reverse rates that the table lacks (in species order), taken as G = 1 under
  // physics.partition_missing: unity (the run names them); refuse makes them an input error.
  std::vector<std::string> pf_untabulated;
  // Species of reverse rates whose table row stops early ("held", e.g. no Rauscher 2003 row above
  // T9 10): "na19 (T9 > 10)", in species order; the run names them.
  std::vector<std::string> pf_held;
  std::string pf_table;                 // the table read
  std::string partition_untabulated_list() const;  // "p, he4, ..." of pf_untabulated

 private:
  // Byte offsets of each array inside its block.
  struct RateOffsets {
    std::size_t set_offsets, set_coefficients, identical_factor, density_power;
    std::size_t pf_grid, pf_log10_G, pf_offsets, pf_row, pf_power;
  };
  struct StepOffsets {
    std::size_t reactant_count, reactant_species, reaction_flags, q_value_MeV, creation_offsets,
        creation_reaction, creation_factor, destruction_offsets, destruction_reaction, destruction_factor,
        species_A, species_Z;
  };
  void pack_blocks();
  void add_partition_functions(const Network& network);
  void add_neutrino_losses(const Network& network);

  int species_count_ = 0;
  int reaction_count_ = 0;
  PhysicsOptions physics_;
  RateOffsets rate_offsets_{};
  StepOffsets step_offsets_{};
  std::int64_t rate_bytes_ = 0;
  std::int64_t step_bytes_ = 0;
  std::vector<double> rate_storage_;  // doubles: 8-byte alignment for every sub-array
  std::vector<double> step_storage_;
};

}  // namespace zoneode
