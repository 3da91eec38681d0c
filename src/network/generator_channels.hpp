// The generator's candidate reactions: every capture, exchange (with its detailed-balance reverse),
// weak decay and fusion its species allow, before the selection picks some of them.
#pragma once

#include <cstdint>
#include <vector>

#include "network/network.hpp"

namespace zoneode::generator_detail {

// What the selection takes or leaves as a whole: one reaction, or a strong pair (forward and reverse).
struct Candidate {
  std::vector<Reaction> reactions;  // forward, then its reverse for strong pairs
  std::vector<int> species;         // every species it involves
  std::int64_t terms = 0;
  bool strong_pair = false;
  bool mandatory = false;
  bool selected = false;
};

// The candidates among `species` (n, p and he4 included), with rates drawn from `seed`.
std::vector<Candidate> reaction_candidates(const std::vector<Species>& species, std::uint64_t seed);

}  // namespace zoneode::generator_detail
