// Test helper for the team kernels' CPU emulations (test_asymptotic_team.cpp, test_implicit_team.cpp):
// a few zones spread in T9 and rho with a composition the network has.
#pragma once

#include <cmath>
#include <vector>

#include "network/network.hpp"

// CI's sanitizer build (ASan + UBSan) runs the team emulations 10-20x slower. There a reduced set
// of cases (each test says which) checks memory and undefined behaviour as well as the full set,
// which the release build runs.
#if defined(__SANITIZE_ADDRESS__)
#define ZONEODE_TESTS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZONEODE_TESTS_SANITIZED 1
#endif
#endif

namespace zoneode {

#if defined(ZONEODE_TESTS_SANITIZED)
inline constexpr bool sanitized_build = true;
#else
inline constexpr bool sanitized_build = false;
#endif

struct TeamTestZone {
  double T9, rho;
  std::vector<double> Y;
};

// Zone z at T9 1 + T9_step z [GK] and rho 1e5 rho_factor^z [g/cm^3]: quick.yaml's he4 0.9, c12 0.1;
// p 0.7, he4 0.3 where the network has protons and no c12; an analytic network all in its first species.
inline std::vector<TeamTestZone> team_test_zones(const Network& network, int count, double T9_step, double rho_factor) {
  std::vector<TeamTestZone> zones;
  const int he4 = network.find_species("he4"), c12 = network.find_species("c12"), p = network.find_species("p");
  for (int z = 0; z < count; ++z) {
    TeamTestZone zone{1.0 + T9_step * z, 1e5 * std::pow(rho_factor, z), std::vector<double>(network.species_count(), 0.0)};
    if (he4 < 0) {
      zone.Y[0] = 1.0 / network.species[0].A;
    } else if (p >= 0 && c12 < 0) {
      zone.Y[p] = 0.7;
      zone.Y[he4] = 0.3 / 4;
    } else {
      zone.Y[he4] = 0.9 / 4;
      zone.Y[c12] = 0.1 / 12;
    }
    zones.push_back(zone);
  }
  return zones;
}

}  // namespace zoneode
