// The integration methods behind one entry point. Every method NAME (common/methods.def) is a
// header integrators/NAME.hpp whose namespace NAME has the same two functions:
//
//   std::int64_t NAME::workspace_doubles(const MethodNetwork& network);
//       doubles of scratch one zone needs;
//   template <typename Abundances, typename Array>
//   ZONEODE_HD void NAME::integrate_zone(const MethodNetwork& network, const IntegratorSettings& settings,
//                                        double T9, double rho, Abundances Y, Array workspace,
//                                        ZoneResult& result);
//       integrates one zone from settings.start_time to end_time at fixed T9 [GK] and rho
//       [g/cm^3]; Y in and out [mol/g]; a failed zone keeps its last state that passed the checks,
//       result.status says why. Array: a pointer or a StridedArray over workspace_doubles() values.
//
// Host/device. Backends call integrate_zone() and workspace_doubles() below and never name a method.
#pragma once

#include <cstdint>

#include "common/portability.hpp"
#include "integrators/asymptotic.hpp"
#include "integrators/bdf.hpp"
#include "integrators/implicit.hpp"
#include "integrators/method_network.hpp"
#include "integrators/qss2.hpp"
#include "integrators/settings.hpp"

namespace zoneode {

inline std::int64_t workspace_doubles(IntegrationMethod method, const MethodNetwork& network) {
  switch (method) {
#define ZONEODE_CHOICE(name, summary) \
  case IntegrationMethod::name: return name::workspace_doubles(network);
#include "common/methods.def"
#undef ZONEODE_CHOICE
  }
  return 0;
}

// settings.method's integrate_zone.
template <typename Abundances, typename Array>
ZONEODE_HD inline void integrate_zone(const MethodNetwork& network, const IntegratorSettings& settings, double T9,
                                      double rho, Abundances Y, Array workspace, ZoneResult& result) {
  switch (settings.method) {
#define ZONEODE_CHOICE(name, summary) \
  case IntegrationMethod::name: name::integrate_zone(network, settings, T9, rho, Y, workspace, result); return;
#include "common/methods.def"
#undef ZONEODE_CHOICE
  }
}

}  // namespace zoneode
