// The physics a network read from a file must obey, beyond the structural invariants of
// validate_network: the generator's and the analytic networks obey it by construction (tests).
#pragma once

#include <string>
#include <vector>

#include "network/network.hpp"

namespace zoneode {

// Largest |Q| per baryon of a reaction [MeV]: binding energies are at most 8.8 MeV per nucleon,
// so no nuclear reaction releases or takes more than about that per baryon it moves.
inline constexpr double most_q_per_baryon_MeV = 10.0;

// Throws std::runtime_error "SOURCE:LINE: ..." (LINE from reaction_lines[r], the line that defines
// reaction r, when given) for
//   - a network without reactions;
//   - a reaction whose baryon number (sum of A) differs between its sides;
//   - a reaction whose charge (sum of Z) differs, unless it is weak: an electron capture (one
//     charge less out) or a reaction with a weak ('w') set, which may change it by one;
//   - |Q| above most_q_per_baryon_MeV times its baryon number;
//   - two reactions with the same reactants, products and electron-capture flag sharing a set
//     label and reverse flag: REACLIB makes such sets one reaction, and as two the rate is counted
//     twice (a reaction repeated by an edit or a concatenation).
void check_network_physics(const Network& network, const std::string& source, const std::vector<int>& reaction_lines);

}  // namespace zoneode
