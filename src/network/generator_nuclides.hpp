// The generator's species: particle-bound nuclides in a band around the valley of beta stability.
#pragma once

#include <vector>

namespace zoneode::generator_detail {

struct Nuclide {
  int Z;
  int A;
};

// `count` nuclides: n, p, he4, then the rest by Z, then A. `band` scales the width of each
// element's row of isotopes (1: the presets' rows; below 1 narrower rows reach higher Z). Throws
// std::invalid_argument for count < 3 or more than fit up to Z = 118.
std::vector<Nuclide> select_nuclides(int count, double band = 1.0);

}  // namespace zoneode::generator_detail
