// Which physics terms a run includes (deck section `physics`, inputs/README.md "Physics"); all
// off by default, which leaves the network and every result bit for bit as without them.
#pragma once

#include <string>
#include <string_view>

#include "physics/screening.hpp"

namespace zoneode {

inline constexpr ScreeningKind screening_kinds[] = {ScreeningKind::none, ScreeningKind::weak, ScreeningKind::chugunov2007};
inline std::string_view screening_kind_name(ScreeningKind kind) {
  switch (kind) {
    case ScreeningKind::none: return "none";
    case ScreeningKind::weak: return "weak";
    case ScreeningKind::chugunov2007: return "chugunov2007";
  }
  return "unknown";
}

struct PhysicsOptions {
  ScreeningKind screening = ScreeningKind::none;  // electron screening of charged-particle rates
  bool partition_functions = false;  // reverse ('v') REACLIB rates times G_products / G_reactants
  std::string partition_table;       // the table file; "" for the shipped one
  bool self_heating = false;         // T follows dT/dt = eps / c_v (physics/eos.hpp)
  bool neutrino_losses = false;      // weak reactions keep Q (1 - neutrino share) (physics/neutrinos.hpp)
  bool any() const {
    return screening != ScreeningKind::none || partition_functions || self_heating || neutrino_losses;
  }
};

}  // namespace zoneode
