// A generator of physically plausible thermonuclear networks of a requested size.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "network/network.hpp"

namespace zoneode {

struct GeneratorSettings {
  int species = 100;             // target species count (n, p and he4 always included)
  int flux_terms = 1000;         // target F+ plus F- term count
  std::uint64_t seed = 1;        // the network is a deterministic function of these three
  // Width of each element's row of isotopes around the valley of stability, as a multiple of the
  // presets' rows (select_nuclides). Wider rows give each nuclide more bound neighbours and so more
  // reactions per species: s150r's 4 gives the study's network's reaction and term counts at 150
  // species (inputs/bench/README.md). 1 keeps the network of (species, flux_terms, seed) as before.
  double isotope_band = 1.0;
};

// Presets at the sizes of the study: "default" (~100 species, ~1,000 terms), "s16", "s150",
// "s365"; "s150r", 150 species with the study's network's reaction and term counts (1,613 and
// 5,379 against 1,604 and 5,419), so that it costs what that network costs per zone-step (s150,
// 1,555 reactions, is ~3% short of them and just under final's shared-memory step on sm_90:
// inputs/bench/README.md). Throws std::invalid_argument naming the valid presets otherwise.
struct GeneratorPreset {
  std::string_view name;
  GeneratorSettings settings;
};
inline constexpr GeneratorPreset generator_presets[] = {
    {"default", {100, 1000, 1}}, {"s16", {16, 150, 1}}, {"s150", {150, 5400, 1}}, {"s365", {365, 13000, 1}},
    {"s150r", {150, 5419, 1, 4.0}}};
GeneratorSettings generator_preset(std::string_view name);

// Mass excess [MeV] from the mass formula the generator uses for Q values.
double generator_mass_excess(int Z, int A);

// Ground-state spin degeneracy 2J+1 the generator assumes in detailed balance.
double generator_spin_degeneracy(int Z, int A);

Network generate_network(const GeneratorSettings& settings);

}  // namespace zoneode
