#include "network/compact.hpp"

#include <cstring>
#include <map>
#include <stdexcept>

#include "common/errors.hpp"

namespace zoneode {

CompactNetwork::CompactNetwork(const Network& network)
    : species_count_(network.species_count()), reaction_count_(network.reaction_count()) {
  validate_network(network, "network '" + excerpt(network.name) + "'");
  const int S = species_count_;
  const int R = reaction_count_;

  static_assert(max_reactants == max_reactants_per_reaction);
  set_offsets.assign(1, 0);
  density_power.resize(R);
  reactant_count.resize(R);
  reactant_species.assign(static_cast<std::size_t>(max_reactants_per_reaction) * R, 0);
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
      reactant_species[max_reactants_per_reaction * r + k] = static_cast<species_index_t>(reaction.reactants[k]);
      ++reactant_multiplicity[reaction.reactants[k]];
    }
    for (int p : reaction.products) ++product_multiplicity[p];
    double factorials = 1.0;
    for (const auto& [species, count] : reactant_multiplicity)
      for (int k = 2; k <= count; ++k) factorials *= k;
    identical_factor[r] = 1.0 / factorials;
    reaction_flags[r] = reaction.electron_capture ? reaction_flag_electron_capture : 0;
    density_power[r] = static_cast<std::uint8_t>(reaction.reactants.size() - 1 + (reaction.electron_capture ? 1 : 0));
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
  pack_blocks();
}

namespace {

// Appends arrays to one block at 8-byte-aligned offsets.
class BlockPacker {
 public:
  template <typename T>
  std::size_t add(const std::vector<T>& array) {
    const std::size_t offset = (bytes_.size() + 7) / 8 * 8;
    bytes_.resize(offset + array.size() * sizeof(T));
    if (!array.empty()) std::memcpy(bytes_.data() + offset, array.data(), array.size() * sizeof(T));
    return offset;
  }
  std::int64_t finish(std::vector<double>& storage) const {
    storage.assign((bytes_.size() + 7) / 8, 0.0);
    if (!bytes_.empty()) std::memcpy(storage.data(), bytes_.data(), bytes_.size());
    return static_cast<std::int64_t>(bytes_.size());
  }

 private:
  std::vector<std::byte> bytes_;
};

template <typename T>
const T* at(const std::byte* block, std::size_t offset) {
  return reinterpret_cast<const T*>(block + offset);
}

}  // namespace

void CompactNetwork::pack_blocks() {
  BlockPacker rates;
  rate_offsets_.set_coefficients = rates.add(set_coefficients);
  rate_offsets_.identical_factor = rates.add(identical_factor);
  rate_offsets_.set_offsets = rates.add(set_offsets);
  rate_offsets_.density_power = rates.add(density_power);
  rate_bytes_ = rates.finish(rate_storage_);
  BlockPacker step;
  step_offsets_.q_value_MeV = step.add(q_value_MeV);
  step_offsets_.species_A = step.add(species_A);
  step_offsets_.species_Z = step.add(species_Z);
  step_offsets_.creation_offsets = step.add(creation_offsets);
  step_offsets_.destruction_offsets = step.add(destruction_offsets);
  step_offsets_.reactant_species = step.add(reactant_species);
  step_offsets_.creation_reaction = step.add(creation_reaction);
  step_offsets_.destruction_reaction = step.add(destruction_reaction);
  step_offsets_.reactant_count = step.add(reactant_count);
  step_offsets_.reaction_flags = step.add(reaction_flags);
  step_offsets_.creation_factor = step.add(creation_factor);
  step_offsets_.destruction_factor = step.add(destruction_factor);
  step_bytes_ = step.finish(step_storage_);
}

RateView CompactNetwork::rate_view_at(const std::byte* block) const {
  RateView v;
  v.reaction_count = reaction_count_;
  v.set_offsets = at<std::int32_t>(block, rate_offsets_.set_offsets);
  v.set_coefficients = at<double>(block, rate_offsets_.set_coefficients);
  v.identical_factor = at<double>(block, rate_offsets_.identical_factor);
  v.density_power = at<std::uint8_t>(block, rate_offsets_.density_power);
  return v;
}

StepView CompactNetwork::step_view_at(const std::byte* block) const {
  StepView v;
  v.species_count = species_count_;
  v.reaction_count = reaction_count_;
  v.reactant_count = at<std::uint8_t>(block, step_offsets_.reactant_count);
  v.reactant_species = at<species_index_t>(block, step_offsets_.reactant_species);
  v.reaction_flags = at<std::uint8_t>(block, step_offsets_.reaction_flags);
  v.q_value_MeV = at<double>(block, step_offsets_.q_value_MeV);
  v.creation_offsets = at<std::int32_t>(block, step_offsets_.creation_offsets);
  v.creation_reaction = at<reaction_index_t>(block, step_offsets_.creation_reaction);
  v.creation_factor = at<stoich_factor_t>(block, step_offsets_.creation_factor);
  v.destruction_offsets = at<std::int32_t>(block, step_offsets_.destruction_offsets);
  v.destruction_reaction = at<reaction_index_t>(block, step_offsets_.destruction_reaction);
  v.destruction_factor = at<stoich_factor_t>(block, step_offsets_.destruction_factor);
  v.species_A = at<double>(block, step_offsets_.species_A);
  v.species_Z = at<double>(block, step_offsets_.species_Z);
  return v;
}

}  // namespace zoneode
