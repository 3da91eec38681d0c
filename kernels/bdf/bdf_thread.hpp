// bdf with one zone per thread (kernels/bdf/bdf_thread.hip): what is not device specific, so that
// the CPU tests prove it (tests/test_bdf_gpu_layout.cpp).
//
// The layout is the implicit method's (kernels/implicit/implicit_thread.hpp): thread slot s of
// `slots` owns a column of one interleaved array, value v at base[v * slots + s]; the slot holds
// bdf's workspace (the implicit workspace, then the history of backward differences) and a copy
// of its zone's abundances, so that the lanes of a wave touch consecutive doubles.
#pragma once

#include <cstdint>

#include "common/portability.hpp"
#include "common/strided.hpp"
#include "integrators/bdf.hpp"
#include "integrators/method_network.hpp"

namespace zoneode::gpu {

// Doubles of one thread slot: bdf's workspace (implicit layout + history, with T9's column where
// self-heating is on: bdf::workspace_doubles) and the zone's abundances.
ZONEODE_HD inline std::int64_t bdf_slot_doubles(const ImplicitWorkspaceLayout& layout, int species_count,
                                                bool self_heating = false) {
  return layout.total + static_cast<std::int64_t>(bdf::history_rows) * (species_count + 1 + (self_heating ? 1 : 0)) +
         species_count;
}

// Integrates one zone with bdf in thread slot `slot` of `slots` over the interleaved array `base`
// (slots x bdf_slot_doubles values): Y_zone (zone-major, species_count values) in and out.
ZONEODE_HD inline void bdf_integrate_zone_in_slot(const MethodNetwork& network, const IntegratorSettings& settings,
                                                  double* base, std::int64_t slots, std::int64_t slot, double T9,
                                                  double rho, double* Y_zone, ZoneResult& result) {
  const StridedArray<double> workspace{base + slot, slots};
  const int S = network.step.species_count;
  const StridedArray<double> Y =  // after the workspace
      workspace + (bdf_slot_doubles(network.implicit.layout, S, network.step.self_heating != 0) - S);
  for (int i = 0; i < S; ++i) Y[i] = Y_zone[i];
  bdf::integrate_zone(network, settings, T9, rho, Y, workspace, result);
  for (int i = 0; i < S; ++i) Y_zone[i] = Y[i];
}

}  // namespace zoneode::gpu
