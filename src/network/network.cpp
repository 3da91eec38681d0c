#include "network/network.hpp"

#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "common/errors.hpp"
#include "common/fnv1a.hpp"
#include "network/rates.hpp"

namespace zoneode {

int Network::find_species(std::string_view name) const {
  for (int i = 0; i < species_count(); ++i) {
    if (species[i].name == name) return i;
  }
  return -1;
}

std::string Network::describe(const Reaction& reaction) const {
  std::string text;
  auto side = [&](const std::vector<int>& list) {
    for (std::size_t k = 0; k < list.size(); ++k) {
      if (k) text += " + ";
      const int index = list[k];
      text += (index >= 0 && index < species_count()) ? species[index].name : "?";
    }
  };
  side(reaction.reactants);
  text += " -> ";
  side(reaction.products);
  if (!reaction.sets.empty()) {
    text += " [" + reaction.sets.front().label + (reaction.sets.front().reverse ? ", reverse" : "") + "]";
  }
  return text;
}

namespace {
int distinct(const std::vector<int>& list) { return static_cast<int>(std::set<int>(list.begin(), list.end()).size()); }
}  // namespace

TermCounts count_terms(const Network& network) {
  TermCounts counts;
  for (const auto& reaction : network.reactions) {
    counts.creation += distinct(reaction.products);
    counts.destruction += distinct(reaction.reactants);
  }
  return counts;
}

void validate_network(const Network& network, const std::string& where) {
  auto fail = [&](const std::string& what) { throw std::runtime_error(where + ": " + what); };
  if (network.species.empty()) fail("the network has no species");
  if (network.species.size() > 65535) fail("more than 65535 species");
  if (network.reactions.size() > 65535) fail("more than 65535 reactions");
  std::set<std::string> names;
  for (const auto& s : network.species) {
    if (s.name.empty()) fail("a species has an empty name");
    if (!names.insert(s.name).second) fail("species '" + excerpt(s.name) + "' appears twice");
    if (s.A < 1 || s.Z < 0 || s.Z > s.A) fail("species '" + excerpt(s.name) + "' has Z=" + std::to_string(s.Z) + ", A=" + std::to_string(s.A));
  }
  for (std::size_t r = 0; r < network.reactions.size(); ++r) {
    const auto& reaction = network.reactions[r];
    const std::string name = "reaction " + std::to_string(r) + " (" + excerpt(network.describe(reaction)) + ")";
    if (reaction.reactants.empty() || reaction.reactants.size() > max_reactants)
      fail(name + " has " + std::to_string(reaction.reactants.size()) + " reactants, expected 1 to 4");
    if (reaction.products.empty() || reaction.products.size() > max_products)
      fail(name + " has " + std::to_string(reaction.products.size()) + " products, expected 1 to 4");
    for (int index : reaction.reactants)
      if (index < 0 || index >= network.species_count()) fail(name + " has a reactant index out of range");
    for (int index : reaction.products)
      if (index < 0 || index >= network.species_count()) fail(name + " has a product index out of range");
    if (reaction.sets.empty()) fail(name + " has no rate set");
    for (const auto& set : reaction.sets)
      for (double a : set.a)
        if (!std::isfinite(a)) fail(name + " has a non-finite rate coefficient");
    if (!std::isfinite(reaction.Q_MeV)) fail(name + " has a non-finite Q value");
  }
}

double reaction_lambda(const Reaction& reaction, double T9) {
  double lambda = 0.0;
  for (const auto& set : reaction.sets) lambda += reaclib_set_lambda(set.a.data(), reaclib_fit_T9(T9));
  return lambda;
}

std::uint64_t network_hash(const Network& network) {
  Fnv1a hash;
  auto integer = [&](std::int64_t v) { hash.add(v); };
  auto real = [&](double v) { hash.add(v); };
  auto text = [&](const std::string& s) { integer(static_cast<std::int64_t>(s.size())); hash.bytes(s.data(), s.size()); };
  integer(network.species_count());
  for (const auto& s : network.species) {
    text(s.name);
    integer(s.Z);
    integer(s.A);
    real(s.mass_excess_MeV);
  }
  integer(network.reaction_count());
  for (const auto& reaction : network.reactions) {
    integer(static_cast<std::int64_t>(reaction.reactants.size()));
    for (int i : reaction.reactants) integer(i);
    integer(static_cast<std::int64_t>(reaction.products.size()));
    for (int i : reaction.products) integer(i);
    real(reaction.Q_MeV);
    integer(reaction.electron_capture);
    integer(static_cast<std::int64_t>(reaction.sets.size()));
    for (const auto& set : reaction.sets) {
      for (double a : set.a) real(a);
      text(set.label);
      integer(set.resonance);
      integer(set.reverse);
    }
  }
  return hash.value;
}

}  // namespace zoneode
