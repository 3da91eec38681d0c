// Q values from the nuclides' masses (issue 39, item 2).
//
// REACLIB's header Q values are the library's, set by each rate's evaluator: they need not be
// differences of any one set of masses, and then energy is not conserved around a reaction cycle
// (a network at equilibrium still releases energy). With Q_r = sum of the reactants' atomic mass
// excesses - sum of the products', the release sum_r Q_r flux_r equals -sum_i Delta_i dY_i/dt,
// so it vanishes wherever the composition is steady. Atomic masses carry the electrons, so one
// formula serves every REACLIB chapter, weak ones included: for beta+ it gives the atomic-mass
// difference (Q_EC), which is REACLIB's own convention and the one physics/neutrinos.hpp expects.
//
// Masses: the species' own mass excess where the source gives one (a network file), else the
// ground state in NUBASE2020 (inputs/data/masses/nubase2020_masses.txt).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "network/network.hpp"

namespace zoneode {

enum class QValueSource : int { masses = 0, header = 1 };
inline constexpr QValueSource q_value_sources[] = {QValueSource::masses, QValueSource::header};
std::string_view q_value_source_name(QValueSource source);  // its deck spelling: "masses"

struct MassTable {
  std::string source;                               // the file read
  std::map<std::pair<int, int>, double> excess_MeV;  // (Z, A) -> atomic mass excess [MeV]
  std::map<std::pair<int, int>, bool> estimated;     // (Z, A) -> from systematics ('#' in NUBASE)
  const double* find(int Z, int A) const;
};

// The table shipped in inputs/data/masses.
std::string default_mass_table_path();
// Reads a table of "Z A mass_excess_keV estimated" lines ('#' comments); errors name file and line.
MassTable read_mass_table(const std::string& path);

// sum of the reactants' mass excesses - sum of the products' [MeV] (each side summed in order,
// then differenced, so that a reverse reaction's Q is bitwise the negative of its forward's).
double mass_q_value(const Network& network, const Reaction& reaction);

// Species without a mass excess (NaN: REACLIB gives none) take the table's; a nuclide the table
// lacks is an InputError naming `where` and every such nuclide.
void fill_missing_masses(Network& network, const MassTable& table, const std::string& where);

// q_values: masses replaces every reaction's Q by mass_q_value() (after fill_missing_masses()
// from the default table); header keeps the source's Q values.
void apply_q_values(Network& network, QValueSource source, const std::string& where);

// One reaction's header Q beside its mass-derived Q, for `zoneode network info`.
struct QValueDisagreement {
  int reaction = 0;
  double header_MeV = 0.0;
  double mass_MeV = 0.0;
  double difference_MeV() const { return header_MeV - mass_MeV; }
};
// Every reaction of `header_network` (Q as its source gave them, masses filled), largest
// |difference| first (ties in reaction order).
std::vector<QValueDisagreement> q_value_disagreements(const Network& header_network);

}  // namespace zoneode
