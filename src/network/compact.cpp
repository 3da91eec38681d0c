#include "network/compact.hpp"

#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>

#include "common/errors.hpp"
#include "common/numbers.hpp"
#include "physics/neutrinos.hpp"
#include "physics/partition_table.hpp"

namespace zoneode {

CompactNetwork::CompactNetwork(const Network& network, const PhysicsOptions& physics)
    : species_count_(network.species_count()), reaction_count_(network.reaction_count()), physics_(physics) {
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
  if (physics.partition_functions) add_partition_functions(network);
  if (physics.neutrino_losses) add_neutrino_losses(network);
  pack_blocks();
}

void CompactNetwork::add_partition_functions(const Network& network) {
  pf_table = physics_.partition_table.empty() ? default_partition_table_path() : physics_.partition_table;
  const PartitionTable table = read_partition_table(pf_table);
  pf_grid = table.grid_T9;
  std::vector<bool> untabulated(network.species.size(), false);
  std::map<int, int> row_of_species;  // tabulated species -> row, in order of first use
  pf_offsets.assign(1, 0);
  for (const Reaction& reaction : network.reactions) {
    if (reaction.sets.front().reverse) {  // one reverse flag per reaction: it is part of the REACLIB key
      std::map<int, int> power;
      for (int p : reaction.products) ++power[p];
      for (int q : reaction.reactants) --power[q];
      for (const auto& [species, n] : power) {
        const std::vector<double>* G = table.find(network.species[species].name);
        if (n == 0) continue;
        if (!G) {  // untabulated: G = 1, named below
          untabulated[species] = true;
          continue;
        }
        auto [it, added] = row_of_species.emplace(species, static_cast<int>(row_of_species.size()));
        if (added)
          for (double g : *G) pf_log10_G.push_back(std::log10(g));
        pf_row.push_back(it->second);
        pf_power.push_back(static_cast<signed char>(n));
      }
    }
    pf_offsets.push_back(static_cast<std::int32_t>(pf_row.size()));
  }
  for (std::size_t i = 0; i < untabulated.size(); ++i)
    if (untabulated[i]) pf_untabulated.push_back(network.species[i].name);
  for (const auto& [species, row] : row_of_species) {  // species order
    const std::string& name = network.species[species].name;
    if (const double last_T9 = table.tabulated_to_T9(name); last_T9 < table.grid_T9.back())
      pf_held.push_back(name + " (T9 > " + format_number(last_T9) + ")");
  }
  if (!pf_untabulated.empty() && physics_.partition_missing == PartitionMissing::refuse) {
    throw InputError("physics.partition_missing: refuse: the partition-function table '" + pf_table + "' has no G for " +
                     std::to_string(pf_untabulated.size()) + " nuclide(s) of reverse rates: " +
                     partition_untabulated_list() +
                     "; expected every one tabulated (add them to a table named by physics.partition_table, or set "
                     "physics.partition_missing: unity to take G = 1 for them)");
  }
}

std::string CompactNetwork::partition_untabulated_list() const { return comma_list(pf_untabulated); }

void CompactNetwork::add_neutrino_losses(const Network& network) {
  neutrino_share.assign(reaction_count_, 0.0);
  q_without_neutrino_loss_MeV = q_value_MeV;
  for (int r = 0; r < reaction_count_; ++r) {
    const Reaction& reaction = network.reactions[r];
    int charge_in = 0, charge_out = 0;
    for (int q : reaction.reactants) charge_in += network.species[q].Z;
    for (int p : reaction.products) charge_out += network.species[p].Z;
    // Weak: an electron capture, or a reaction whose total charge changes by one (beta+ / beta-).
    const WeakKind kind = reaction.electron_capture        ? WeakKind::electron_capture
                          : charge_out == charge_in - 1 ? WeakKind::beta_plus
                          : charge_out == charge_in + 1 ? WeakKind::beta_minus
                                                        : WeakKind::none;
    // A one-nucleus decay names its parent (8B's measured mean: physics/neutrinos.hpp).
    const bool decay = reaction.reactants.size() == 1;
    const Species* parent = decay ? &network.species[reaction.reactants.front()] : nullptr;
    neutrino_share[r] = zoneode::neutrino_share(kind, reaction.Q_MeV, charge_out, parent ? parent->Z : 0,
                                                parent ? parent->A : 0);
    q_value_MeV[r] = reaction.Q_MeV * (1.0 - neutrino_share[r]);
  }
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
  if (physics_.partition_functions) {  // appended only when on: the block is otherwise unchanged
    rate_offsets_.pf_grid = rates.add(pf_grid);
    rate_offsets_.pf_log10_G = rates.add(pf_log10_G);
    rate_offsets_.pf_offsets = rates.add(pf_offsets);
    rate_offsets_.pf_row = rates.add(pf_row);
    rate_offsets_.pf_power = rates.add(pf_power);
  }
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
  if (physics_.partition_functions) {
    v.pf_points = static_cast<int>(pf_grid.size());
    v.pf_grid = at<double>(block, rate_offsets_.pf_grid);
    v.pf_log10_G = at<double>(block, rate_offsets_.pf_log10_G);
    v.pf_offsets = at<std::int32_t>(block, rate_offsets_.pf_offsets);
    v.pf_row = at<std::int32_t>(block, rate_offsets_.pf_row);
    v.pf_power = at<signed char>(block, rate_offsets_.pf_power);
  }
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
  v.screening = static_cast<int>(physics_.screening);
  v.self_heating = physics_.self_heating ? 1 : 0;
  return v;
}

}  // namespace zoneode
