#include "network/network_checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <tuple>

#include "common/errors.hpp"
#include "common/numbers.hpp"

namespace zoneode {

bool same_rate_set(const RateSet& a, const RateSet& b) {
  if (a.label != b.label || a.resonance != b.resonance || a.reverse != b.reverse) return false;
  constexpr double relative = 1e-5;
  for (std::size_t k = 0; k < a.a.size(); ++k) {
    const double scale = std::max(std::fabs(a.a[k]), std::fabs(b.a[k]));
    if (!(std::fabs(a.a[k] - b.a[k]) <= relative * scale)) return false;
  }
  return true;
}

void check_network_physics(const Network& network, const std::string& source, const std::vector<int>& reaction_lines) {
  auto at = [&](std::size_t r) {
    const bool known = r < reaction_lines.size() && reaction_lines[r] > 0;
    return known ? source + ":" + std::to_string(reaction_lines[r]) : source;
  };
  if (network.reactions.empty())
    throw std::runtime_error(source + ": the network has no reactions (" + std::to_string(network.species_count()) +
                             " species), expected at least one");
  for (const Species& species : network.species) {
    const std::string name = "species '" + excerpt(species.name) + "'";
    for (const char c : species.name)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        throw std::runtime_error(source + ": " + name +
                                 ": a control byte in the name, expected printable characters (state files list "
                                 "species by name)");
    const double most_excess = most_q_per_baryon_MeV * species.A;
    if (!std::isnan(species.mass_excess_MeV) && !(std::fabs(species.mass_excess_MeV) <= most_excess))
      throw std::runtime_error(source + ": " + name + ": mass excess " + format_number(species.mass_excess_MeV) +
                               " MeV, expected |mass excess| <= " + format_number(most_excess) + " MeV (" +
                               format_number(most_q_per_baryon_MeV) + " MeV per nucleon) or nan");
  }
  // Channel (sorted reactants, sorted products, electron capture) and set (label, reverse): the
  // first reaction that has it.
  using Channel = std::tuple<std::vector<int>, std::vector<int>, bool>;
  std::map<std::tuple<Channel, std::string, bool>, std::size_t> first_with;
  for (std::size_t r = 0; r < network.reactions.size(); ++r) {
    const Reaction& reaction = network.reactions[r];
    const std::string name = "reaction " + excerpt(network.describe(reaction));
    auto fail = [&](const std::string& what) { throw std::runtime_error(at(r) + ": " + name + ": " + what); };
    int baryons_in = 0, baryons_out = 0, charge_in = 0, charge_out = 0;
    for (int i : reaction.reactants) baryons_in += network.species[i].A, charge_in += network.species[i].Z;
    for (int i : reaction.products) baryons_out += network.species[i].A, charge_out += network.species[i].Z;
    if (baryons_in != baryons_out)
      fail("baryon number (sum of A) " + std::to_string(baryons_in) + " in, " + std::to_string(baryons_out) +
           " out, expected the same on both sides");
    const bool weak = reaction.electron_capture || std::any_of(reaction.sets.begin(), reaction.sets.end(),
                                                               [](const RateSet& set) { return set.resonance == 'w'; });
    const int change = charge_out - charge_in;
    if (reaction.electron_capture && change != -1)
      fail("an electron capture with charge (sum of Z) " + std::to_string(charge_in) + " in, " +
           std::to_string(charge_out) + " out, expected one less out");
    if (change != 0 && !(weak && std::abs(change) == 1))
      fail("charge (sum of Z) " + std::to_string(charge_in) + " in, " + std::to_string(charge_out) + " out, expected " +
           (weak ? "a change of at most 1 (a weak reaction)"
                 : "the same on both sides (or a weak set, 'w', changing it by 1)"));
    const double most_q = most_q_per_baryon_MeV * baryons_in;
    if (!(std::fabs(reaction.Q_MeV) <= most_q))
      fail("Q = " + format_number(reaction.Q_MeV) + " MeV, expected |Q| <= " + format_number(most_q) + " MeV (" +
           format_number(most_q_per_baryon_MeV) + " MeV per baryon: binding energies are at most 8.8 MeV per nucleon)");
    for (std::size_t k = 1; k < reaction.sets.size(); ++k) {
      if (reaction.sets[k].reverse != reaction.sets[0].reverse)
        fail("set " + std::to_string(k + 1) + " is " + (reaction.sets[k].reverse ? "reverse" : "forward") +
             " and set 1 " + (reaction.sets[0].reverse ? "reverse" : "forward") +
             ", expected one kind per reaction (a reverse, detailed-balance, set on a reaction of its own)");
      for (std::size_t j = 0; j < k; ++j)
        if (same_rate_set(reaction.sets[j], reaction.sets[k]))
          fail("set " + std::to_string(k + 1) + " repeats set " + std::to_string(j + 1) +
               " (same label, flags and coefficients within 1e-5), so its rate would count twice; expected each set once");
    }
    std::vector<int> reactants = reaction.reactants, products = reaction.products;
    std::sort(reactants.begin(), reactants.end());
    std::sort(products.begin(), products.end());
    const Channel channel{reactants, products, reaction.electron_capture};
    for (const RateSet& set : reaction.sets) {
      const auto [first, inserted] = first_with.emplace(std::make_tuple(channel, set.label, set.reverse), r);
      if (inserted || first->second == r) continue;
      fail("repeats reaction " + std::to_string(first->second + 1) + " (" + at(first->second) +
           "): the same reactants, products and set label '" + excerpt(set.label) + "'" +
           (set.reverse ? " (reverse)" : "") +
           ", so its rate would count twice; expected each reaction once (its sets on one reaction)");
    }
  }
}

}  // namespace zoneode
