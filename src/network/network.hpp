// The reaction network as built on the host: species, reactions and their REACLIB rate sets.
//
// Every source of networks (the generator, the REACLIB reader, the network file, the analytic test
// networks) produces this structure; compact.hpp turns it into the flat CSR form that the
// integrators and kernels read.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zoneode {

struct Species {
  std::string name;                 // lower case, REACLIB style: n, p, d, he4, c12, ...
  int Z = 0;                        // protons
  int A = 0;                        // baryons
  double mass_excess_MeV = 0.0;     // [MeV]; NaN where the source gives none (REACLIB files)
};

// One REACLIB set: lambda(T9) = exp(a0 + a1/T9 + a2 T9^-1/3 + a3 T9^1/3 + a4 T9 + a5 T9^5/3 + a6 ln T9)
struct RateSet {
  std::array<double, 7> a{};
  std::string label = "zone";       // the REACLIB set label, 4 characters at most
  char resonance = 'n';             // 'n' non-resonant, 'r' resonant, 'w' weak, 's' spontaneous
  bool reverse = false;             // 'v' in REACLIB: a rate from detailed balance
};

inline constexpr int max_reactants = 4;  // REACLIB chapter 10 has four
inline constexpr int max_products = 4;   // REACLIB chapters 7 and 11 have four

struct Reaction {
  std::vector<int> reactants;       // species indices; identical reactants repeated (1..4)
  std::vector<int> products;        // species indices; multiplicity by repetition (1..4)
  std::vector<RateSet> sets;        // the rate is the sum of these sets (at least one)
  double Q_MeV = 0.0;               // energy released per reaction [MeV]
  bool electron_capture = false;    // REACLIB tabulates electron captures per unit rho*Ye [mol/cm^3]
};

struct Network {
  std::string name;
  std::vector<Species> species;
  std::vector<Reaction> reactions;

  int species_count() const { return static_cast<int>(species.size()); }
  int reaction_count() const { return static_cast<int>(reactions.size()); }
  // Index of the named species, or -1.
  int find_species(std::string_view name) const;
  // "c12 + he4 -> o16" style text for messages.
  std::string describe(const Reaction& reaction) const;
};

// Number of F+ and F- terms: one per distinct product (creation) and distinct reactant
// (destruction) of every reaction, as in the compact structure.
struct TermCounts {
  std::int64_t creation = 0;
  std::int64_t destruction = 0;
  std::int64_t total() const { return creation + destruction; }
};
TermCounts count_terms(const Network& network);

// Checks the invariants every consumer relies on (indices in range, 1..4 reactants and products,
// at least one set, finite coefficients, unique species names) and throws std::runtime_error naming
// the reaction otherwise. `where` prefixes the message (a file name, "generator").
void validate_network(const Network& network, const std::string& where);

// Sum of the sets' lambda(T9), evaluated on the host in the same way as the device code.
double reaction_lambda(const Reaction& reaction, double T9);

// A stable 64-bit hash (FNV-1a) of the network's species and reactions, bit for bit, so that
// outputs can record which network produced them.
std::uint64_t network_hash(const Network& network);

}  // namespace zoneode
