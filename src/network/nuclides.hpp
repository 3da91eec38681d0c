// Nuclide names in the REACLIB spelling: n, p, d, t, then element symbol + A (he4, c12, al26).
#pragma once

#include <string>
#include <string_view>

namespace zoneode {

inline constexpr int max_element_Z = 118;

// The name of (Z, A); throws std::invalid_argument for Z outside 0..118 or A < Z.
std::string nuclide_name(int Z, int A);

// Z and A of a name (upper-case letters accepted); false if it is not one. Every nuclide has one
// spelling: no leading zeros in A, and hydrogen only as p, d, t.
bool parse_nuclide_name(std::string_view name, int& Z, int& A);

}  // namespace zoneode
