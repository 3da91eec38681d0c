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

// Whether two sets of one reaction are one set given twice: the same label, resonance and reverse
// flags and every coefficient within a relative 1e-5 (a copy edited or rounded in its last digits:
// a0 differing in the 7th digit was summed into twice the rate). Distinct sets of one reaction
// (resonances, a non-resonant part) differ in their coefficients by far more. The one rule of both
// network readers.
bool same_rate_set(const RateSet& a, const RateSet& b);

// Throws std::runtime_error "SOURCE:LINE: ..." (LINE from reaction_lines[r], the line that defines
// reaction r, when given) for
//   - a network without reactions;
//   - a species name with a control byte (a NUL cut the name in the state files' species list);
//   - a mass excess beyond most_q_per_baryon_MeV per nucleon (NaN: not given, allowed);
//   - a reaction whose baryon number (sum of A) differs between its sides;
//   - a reaction whose charge (sum of Z) differs, unless it is weak: an electron capture (one
//     charge less out) or a reaction with a weak ('w') set, which may change it by one;
//   - |Q| above most_q_per_baryon_MeV times its baryon number;
//   - a reaction with both forward and reverse (detailed-balance) sets: the reverse flag is one per
//     reaction (REACLIB's key), so such a reaction took the first set's flag for all of them and
//     its result depended on the order of the set lines;
//   - a set repeated within one reaction (same_rate_set);
//   - two reactions with the same reactants, products and electron-capture flag sharing a set
//     label and reverse flag: REACLIB makes such sets one reaction, and as two the rate is counted
//     twice (a reaction repeated by an edit or a concatenation).
void check_network_physics(const Network& network, const std::string& source, const std::vector<int>& reaction_lines);

}  // namespace zoneode
