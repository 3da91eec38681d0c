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
};

// Presets at the sizes of the study: "default" (~100 species, ~1,000 terms), "s16", "s150",
// "s365". Throws std::invalid_argument naming the valid presets otherwise.
struct GeneratorPreset {
  std::string_view name;
  GeneratorSettings settings;
};
inline constexpr GeneratorPreset generator_presets[] = {
    {"default", {100, 1000, 1}}, {"s16", {16, 150, 1}}, {"s150", {150, 5400, 1}}, {"s365", {365, 13000, 1}}};
GeneratorSettings generator_preset(std::string_view name);

// Mass excess [MeV] from the mass formula the generator uses for Q values.
double generator_mass_excess(int Z, int A);

// Ground-state spin degeneracy 2J+1 the generator assumes in detailed balance.
double generator_spin_degeneracy(int Z, int A);

Network generate_network(const GeneratorSettings& settings);

}  // namespace zoneode
