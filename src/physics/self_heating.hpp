// Self-heating (deck `physics.self_heating`): the zone's temperature follows dT/dt = eps / c_v,
// eps the energy the network keeps (sum_r flux_r Q_r, neutrino losses taken off when they are on)
// and c_v from physics/eos.hpp at the state after the step.
//
// Treatment (operator splitting, first order in dt): each step is integrated at the temperature of
// its start, as without self-heating; after an accepted step T grows by the step's released energy
// over c_v, and the rate factors are evaluated again at the new T. The step-size control does not
// see T, so dt must resolve the heating time c_v T / eps (the geometric schedule's dt = 0.01 t
// does while eps changes little per step; the tests measure the first-order convergence).
// Host/device.
#pragma once

#include "common/portability.hpp"
#include "network/views.hpp"
#include "physics/cgs.hpp"
#include "physics/eos.hpp"

namespace zoneode {

inline constexpr double self_heating_min_T9 = 1e-3;  // [GK] an endothermic burn never cools below this

// T9 after releasing `energy` [MeV mol/g] (sum_r Q_r x the step's integrated flux) into a zone of
// density rho [g/cm^3] and abundances Y.
template <typename Abundances>
ZONEODE_HD inline double heated_temperature(const StepView& net, double T9, double rho, const Abundances& Y,
                                            double energy) {
  double ions = 0.0, ye = 0.0;
  for (int i = 0; i < net.species_count; ++i) {
    ions += Y[i];
    ye += net.species_Z[i] * Y[i];
  }
  const double cv = specific_heat(T9 * cgs::kelvin_per_gk, rho, ions, ye);   // [erg/(g K)]
  const double next = T9 + energy * cgs::avogadro * cgs::mev_to_erg / cv / cgs::kelvin_per_gk;
  return next > self_heating_min_T9 ? next : self_heating_min_T9;
}

}  // namespace zoneode
