#include "network/compact.hpp"

#include <map>
#include <stdexcept>

namespace zoneode {

CompactNetwork::CompactNetwork(const Network& network)
    : species_count_(network.species_count()), reaction_count_(network.reaction_count()) {
  validate_network(network, "network '" + network.name + "'");
  const int S = species_count_;
  const int R = reaction_count_;

  set_offsets.assign(1, 0);
  reactant_count.resize(R);
  reactant_species.assign(static_cast<std::size_t>(max_reactants) * R, 0);
  identical_factor.resize(R);
  reaction_flags.resize(R);
  q_value_MeV.resize(R);
  // Per-species (reaction, multiplicity) lists, in reaction order: the CSR rows.
  std::vector<std::vector<std::pair<int, int>>> creates(S), destroys(S);
  for (int r = 0; r < R; ++r) {
    const Reaction& reaction = network.reactions[r];
    for (const auto& set : reaction.sets) set_coefficients.insert(set_coefficients.end(), set.a.begin(), set.a.end());
    set_offsets.push_back(static_cast<std::int32_t>(set_coefficients.size() / 7));
    reactant_count[r] = static_cast<std::uint8_t>(reaction.reactants.size());
    std::map<int, int> reactant_multiplicity, product_multiplicity;
    for (std::size_t k = 0; k < reaction.reactants.size(); ++k) {
      reactant_species[max_reactants * r + k] = static_cast<species_index_t>(reaction.reactants[k]);
      ++reactant_multiplicity[reaction.reactants[k]];
    }
    for (int p : reaction.products) ++product_multiplicity[p];
    double factorials = 1.0;
    for (const auto& [species, count] : reactant_multiplicity)
      for (int k = 2; k <= count; ++k) factorials *= k;
    identical_factor[r] = 1.0 / factorials;
    reaction_flags[r] = reaction.electron_capture ? reaction_flag_electron_capture : 0;
    q_value_MeV[r] = reaction.Q_MeV;
    for (const auto& [species, count] : reactant_multiplicity) destroys[species].push_back({r, count});
    for (const auto& [species, count] : product_multiplicity) creates[species].push_back({r, count});
  }
  auto build = [](const std::vector<std::vector<std::pair<int, int>>>& rows, std::vector<std::int32_t>& offsets,
                  std::vector<reaction_index_t>& reactions, std::vector<stoich_factor_t>& factors) {
    offsets.assign(1, 0);
    for (const auto& row : rows) {
      for (const auto& [reaction, count] : row) {
        reactions.push_back(static_cast<reaction_index_t>(reaction));
        factors.push_back(static_cast<stoich_factor_t>(count));
      }
      offsets.push_back(static_cast<std::int32_t>(reactions.size()));
    }
  };
  build(creates, creation_offsets, creation_reaction, creation_factor);
  build(destroys, destruction_offsets, destruction_reaction, destruction_factor);
  species_A.resize(S);
  species_Z.resize(S);
  for (int i = 0; i < S; ++i) {
    species_A[i] = network.species[i].A;
    species_Z[i] = network.species[i].Z;
  }
}

NetworkView CompactNetwork::view() const {
  NetworkView v;
  v.species_count = species_count_;
  v.reaction_count = reaction_count_;
  v.set_offsets = set_offsets.data();
  v.set_coefficients = set_coefficients.data();
  v.reactant_count = reactant_count.data();
  v.reactant_species = reactant_species.data();
  v.identical_factor = identical_factor.data();
  v.reaction_flags = reaction_flags.data();
  v.q_value_MeV = q_value_MeV.data();
  v.creation_offsets = creation_offsets.data();
  v.creation_reaction = creation_reaction.data();
  v.creation_factor = creation_factor.data();
  v.destruction_offsets = destruction_offsets.data();
  v.destruction_reaction = destruction_reaction.data();
  v.destruction_factor = destruction_factor.data();
  v.species_A = species_A.data();
  v.species_Z = species_Z.data();
  return v;
}

std::int64_t CompactNetwork::bytes() const {
  auto size = [](const auto& v) { return static_cast<std::int64_t>(v.size() * sizeof(v[0])); };
  return size(set_offsets) + size(set_coefficients) + size(reactant_count) + size(reactant_species) +
         size(identical_factor) + size(reaction_flags) + size(q_value_MeV) + size(creation_offsets) +
         size(creation_reaction) + size(creation_factor) + size(destruction_offsets) +
         size(destruction_reaction) + size(destruction_factor) + size(species_A) + size(species_Z);
}

}  // namespace zoneode
