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

// What a reverse rate takes for a nuclide the partition-function table lacks.
enum class PartitionMissing : int { unity = 0, refuse = 1 };
inline constexpr PartitionMissing partition_missing_choices[] = {PartitionMissing::unity, PartitionMissing::refuse};
inline std::string_view partition_missing_name(PartitionMissing choice) {
  switch (choice) {
    case PartitionMissing::unity: return "unity";
    case PartitionMissing::refuse: return "refuse";
  }
  return "unknown";
}

// How self-heating's electron-positron c_v is evaluated on the host (physics/eos_table.hpp): the
// table (default, ~100 ns a call) or the exact gas (3-35 us; what device code always evaluates, so
// a CPU run that a GPU run is compared with bit for bit takes it).
enum class EosEvaluation : int { table = 0, exact = 1 };
inline constexpr EosEvaluation eos_evaluation_choices[] = {EosEvaluation::table, EosEvaluation::exact};
inline std::string_view eos_evaluation_name(EosEvaluation choice) {
  switch (choice) {
    case EosEvaluation::table: return "table";
    case EosEvaluation::exact: return "exact";
  }
  return "unknown";
}

struct PhysicsOptions {
  ScreeningKind screening = ScreeningKind::none;  // electron screening of charged-particle rates
  bool partition_functions = false;  // reverse ('v') REACLIB rates times G_products / G_reactants
  std::string partition_table;       // the table file; "" for the shipped one
  // unity: G = 1 for untabulated nuclides, named in the run header and summary; refuse: an input error.
  PartitionMissing partition_missing = PartitionMissing::unity;
  bool self_heating = false;         // T follows dU/dt = eps (physics/self_heating.hpp)
  EosEvaluation eos = EosEvaluation::table;  // self-heating's e-/e+ c_v on the host
  bool neutrino_losses = false;      // weak reactions keep Q (1 - neutrino share) (physics/neutrinos.hpp)
  bool any() const {
    return screening != ScreeningKind::none || partition_functions || self_heating || neutrino_losses;
  }
};

}  // namespace zoneode
