// Test helper for the implicit methods' tests: a generated network with electron captures, and the
// self-heated cases the team kernels (implicit, bdf) are checked on against their serial methods.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "network/generator.hpp"
#include "network/network.hpp"
#include "network/reaclib.hpp"
#include "physics/physics_options.hpp"
#include "team_testing.hpp"

namespace zoneode {

// A generated network with two reactions turned into electron captures (flux x rho Ye), so that
// the Ye slots are exercised even where a network has none.
inline Network with_electron_captures(Network network) {
  int made = 0;
  for (Reaction& reaction : network.reactions) {
    if (!reaction.electron_capture && reaction.reactants.size() == 1 && made < 2) {
      reaction.electron_capture = true;
      ++made;
    }
  }
  EXPECT_EQ(made, 2);
  return network;
}

// A self-heated case: eight zones of one network.
struct HeatedCase {
  Network network;
  PhysicsOptions physics;  // self_heating on, eos exact (the CPU setting that evaluates the fits directly, as a device)
  double end_time;         // [s]
  double T9_first, T9_step, rho_first, rho_factor;  // zone z at T9_first + T9_step z [GK], rho_first rho_factor^z [g/cm^3]
};

inline std::vector<TeamTestZone> heated_zones(const HeatedCase& c) {
  std::vector<TeamTestZone> zones = team_test_zones(c.network, 8, c.T9_step, c.rho_factor);
  for (std::size_t z = 0; z < zones.size(); ++z) {
    zones[z].T9 = c.T9_first + c.T9_step * static_cast<double>(z);
    zones[z].rho = c.rho_first * std::pow(c.rho_factor, static_cast<double>(z));
  }
  return zones;
}

// The cases: the default network with captures (He burning; also with weak screening, the Woodbury
// pair and T's column solved together) and the REACLIB rp slice (rp-z12, else rp-z24), hot and
// dense enough that T9 rises by percents over the burn, not so far that the burn runs away (a
// runaway to T9 2-6 makes the serial method's own result move by up to 4e-8 for T9 one ulp up, far
// beyond the rule's 1e-9: tried).
inline std::vector<std::pair<std::string, HeatedCase>> heated_cases() {
  PhysicsOptions heated;
  heated.self_heating = true;
  heated.eos = EosEvaluation::exact;
  PhysicsOptions heated_weak = heated;
  heated_weak.screening = ScreeningKind::weak;
  const std::string dir = ZONEODE_REACLIB_DATA;
  std::string path = dir + "/rp-z12.reaclib", list = dir + "/rp-z12.nuclides";
  if (!std::ifstream(path) || !std::ifstream(list)) {
    path = std::string(ZONEODE_SOURCE_DIR) + "/inputs/networks/rp-z24.reaclib";
    list = std::string(ZONEODE_SOURCE_DIR) + "/inputs/networks/rp-z24.nuclides";
  }
  const Network helium = with_electron_captures(generate_network(generator_preset("default")));
  const Network rp = read_reaclib(path, read_nuclide_list(list));
  // He burning to 1e-4 s at T9 1.50..1.64, rho 1e6..3.6e6: T9 rises by 1.0..14% (106..746 steps);
  // p 0.7, he4 0.3 through the rp slice to 1e-3 s at T9 1.00..1.07, rho 1e6..1.9e6: by 3.7..18%.
  return {{"default", {helium, heated, 1e-4, 1.5, 0.02, 1e6, 1.2}},
          {"default weak screening", {helium, heated_weak, 1e-4, 1.5, 0.02, 1e6, 1.2}},
          {"rp", {rp, heated, 1e-3, 1.0, 0.01, 1e6, 1.1}}};
}

}  // namespace zoneode
