// Test helpers for the physics options' integration tests (test_physics_integration.cpp,
// test_self_heating.cpp): small hand-made networks and one zone's burn with any method.
#pragma once

#include <array>
#include <utility>
#include <vector>

#include "integrators/method_data.hpp"
#include "integrators/methods.hpp"
#include "network/compact.hpp"
#include "network/network.hpp"

namespace zoneode {

inline Species species(const char* name, int Z, int A) { return Species{name, Z, A, 0.0}; }

// One set with lambda = exp(a0 + a4 T9).
inline RateSet rate_set(double a0, double a4 = 0.0, bool reverse = false) {
  RateSet set;
  set.a = {a0, 0, 0, 0, a4, 0, 0};
  set.reverse = reverse;
  return set;
}

// One set with all seven REACLIB coefficients.
inline RateSet fit_set(const std::array<double, 7>& a) {
  RateSet set;
  set.a = a;
  return set;
}

inline Network network_of(std::vector<Species> nuclides, std::vector<Reaction> reactions) {
  Network network;
  network.name = "physics-test";
  network.species = std::move(nuclides);
  network.reactions = std::move(reactions);
  return network;
}

struct Burned {
  std::vector<double> Y;
  ZoneResult result;
  double T9 = 0.0;  // where the burn ended (result.final_T9)
};

// One zone from Y at T9 [GK], rho [g/cm^3] with settings.method.
inline Burned burn(const CompactNetwork& compact, const IntegratorSettings& settings, std::vector<double> Y, double T9,
                   double rho) {
  Burned out;
  out.T9 = T9;
  const MethodData method(settings.method, compact);  // the implicit structure when implicit
  std::vector<double> work(method.workspace_doubles());
  integrate_zone(method.view(), settings, T9, rho, Y.data(), work.data(), out.result);
  out.T9 = out.result.final_T9;
  out.Y = std::move(Y);
  return out;
}

}  // namespace zoneode
