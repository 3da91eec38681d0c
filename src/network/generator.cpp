// The network generator: a physically plausible REACLIB-style network of a requested size.
//
// The network is a deterministic function of (species, flux_terms, seed), bit for bit on every
// platform: the random numbers come from our own xoshiro256** (integer operations only, no std::
// distributions), and every coefficient is built from + - * / and sqrt, which IEEE 754 rounds
// exactly, plus our own log and cube root written with those operations (libm's log, exp and cbrt
// may differ by an ulp between platforms). No FMA contraction (-ffp-contract=off in the build,
// and the pragma in generator_arithmetic.hpp), and no two random draws in one expression (the
// order in which function arguments are evaluated is unspecified and differs between GCC and Clang).
//
// What it builds:
//   nuclides   n, p, he4, then for Z = 2, 3, ... a band of particle-bound isotopes around the
//              valley of beta stability, widening with Z (x isotope_band), until the species target
//              is reached;
//   masses     AME2020 mass excesses where measured (Z <= 20 and the alpha nuclei to 56Ni), a
//              semi-empirical mass formula elsewhere;
//   reactions  for every target: (n,g), (p,g), (a,g) captures and (a,n), (a,p), (p,n) exchanges
//              written in their exothermic direction, each with its reverse from detailed
//              balance; beta-, beta+, electron capture and beta-delayed n and p emission; the
//              triple alpha and four heavy-ion fusions (without reverse rates, see
//              add_special_reactions);
//   selection  decays, triple alpha, fusions and the alpha chain always; then one strong link per
//              nuclide; then the rest in a seeded random order until the term target is met (or
//              the candidates run out).
//
// Files: generator_arithmetic (deterministic log, cube root, random numbers), generator_masses,
// generator_nuclides (species), generator_rates (rate sets), generator_channels (candidate
// reactions), generator_presets; this file selects candidates and assembles the network.
#include "network/generator_arithmetic.hpp"
#include "network/generator.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/numbers.hpp"
#include "network/generator_channels.hpp"
#include "network/generator_nuclides.hpp"
#include "network/nuclides.hpp"

namespace zoneode {

namespace {

using namespace generator_detail;

// Picks candidates: the mandatory ones; then, for every nuclide (in species order) that no chosen
// strong pair touches yet, its first strong pair in the seeded order; then the rest in that order
// while they fit under the term target (a greedy fill that skips what would overshoot, so the
// total ends at or just below the target). If the candidates cannot reach the target, all are used.
void select_candidates(std::vector<Candidate>& candidates, int species_count, std::int64_t target, std::uint64_t seed) {
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < candidates.size(); ++k)
    if (!candidates[k].mandatory) order.push_back(k);
  Rng rng(stream_seed(seed, 0xfeedfacecafebeefull));
  for (std::size_t k = order.size(); k > 1; --k) std::swap(order[k - 1], order[rng.below(k)]);

  std::int64_t total = 0;
  std::vector<bool> linked(species_count, false);
  auto take = [&](Candidate& c) {
    c.selected = true;
    total += c.terms;
    if (c.strong_pair)
      for (int i : c.species) linked[i] = true;
  };
  for (Candidate& c : candidates)
    if (c.mandatory) take(c);
  for (int i = 3; i < species_count; ++i) {  // n, p, he4 are linked through everything else
    if (linked[i]) continue;
    for (std::size_t k : order) {
      Candidate& c = candidates[k];
      if (!c.selected && c.strong_pair && std::binary_search(c.species.begin(), c.species.end(), i)) {
        take(c);
        break;
      }
    }
  }
  for (std::size_t k : order) {
    Candidate& c = candidates[k];
    if (!c.selected && total + c.terms <= target) take(c);
  }
}

}  // namespace

Network generate_network(const GeneratorSettings& settings) {
  if (settings.flux_terms < 1) throw std::invalid_argument("generator: flux_terms must be >= 1, got " + std::to_string(settings.flux_terms));
  if (!(settings.isotope_band >= 0.25 && settings.isotope_band <= 16.0))
    throw std::invalid_argument("generator: isotope_band must be in [0.25, 16], got " + format_number_17g(settings.isotope_band));
  Network network;
  network.name = "generated-" + std::to_string(settings.species) + "-" + std::to_string(settings.flux_terms) + "-seed" +
                 std::to_string(settings.seed);
  if (settings.isotope_band != 1.0) network.name += "-band" + format_number_17g(settings.isotope_band);
  for (const Nuclide& nuclide : select_nuclides(settings.species, settings.isotope_band)) {
    network.species.push_back({nuclide_name(nuclide.Z, nuclide.A), nuclide.Z, nuclide.A,
                               generator_mass_excess(nuclide.Z, nuclide.A)});
  }
  std::vector<Candidate> candidates = reaction_candidates(network.species, settings.seed);
  select_candidates(candidates, settings.species, settings.flux_terms, settings.seed);
  for (Candidate& c : candidates)
    if (c.selected)
      for (Reaction& r : c.reactions) network.reactions.push_back(std::move(r));
  validate_network(network, "generator");
  return network;
}

}  // namespace zoneode
