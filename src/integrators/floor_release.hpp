// The energy the explicit methods count from species held at the abundance floor (issue 40).
//
// The asymptotic and qss2 updates never let an abundance fall below `abundance_floor` (they divide
// by Y). A species that a fast reaction consumes (a proton or an alpha particle in an o18 zone at
// rho 1e12) is then put back at the floor after every step while that reaction's flux, evaluated at
// the floor, is counted in full: its products and its energy come from nothing, at a rate that
// grows with the floor (1e-30 mol/g: 15 erg/(g s) where the burn itself makes 1e-9). The implicit
// methods integrate the energy with the abundances (its Jacobian row), so their count follows what
// the solve actually consumed. This is the diagnostic the run prints: the release rate of the
// reactions with a reactant held at the floor, at a zone's end state, beside the zone's own
// energy rate. Host only (the run calls it on the downloaded state; no kernel changes).
#pragma once

#include "network/rates.hpp"
#include "network/views.hpp"

namespace zoneode {

// A species held at the floor: at most twice it (a renormalised run scales the floored value by
// initial mass / mass, within max_mass_drift of 1).
inline bool held_at_floor(double y, double floor) { return y <= 2.0 * floor; }

// sum over reactions r with a reactant i held at the floor (held_at_floor) of flux_r Q_r [MeV mol/(g s)], with
// the rates at T9 [GK] and rho [g/cm^3] as the methods evaluate them (partition functions, and
// screening when the network has it on). 0 where no reactant is at the floor.
inline double floor_sustained_release_rate(const RateView& rates, const StepView& net, double T9, double rho,
                                           const double* Y, double floor) {
  double sum = 0.0;
  double ye = -1.0;  // computed at the first floored species
  ScreeningPlasma plasma;
  for (int i = 0; i < net.species_count; ++i) {
    if (!held_at_floor(Y[i], floor)) continue;
    if (ye < 0.0) {
      ye = electron_fraction(net, Y);
      plasma = screening_plasma(net, Y, T9, rho, ye);
    }
    // The reactions that consume i: its destruction terms; each reaction counted once, at its first
    // reactant held at the floor.
    for (int k = net.destruction_offsets[i]; k < net.destruction_offsets[i + 1]; ++k) {
      const int r = net.destruction_reaction[k];
      const species_index_t* species = net.reactant_species + max_reactants_per_reaction * r;
      int first = -1;
      for (int j = 0; j < net.reactant_count[r] && first < 0; ++j)
        if (held_at_floor(Y[species[j]], floor)) first = species[j];
      if (first != i) continue;
      const double rate_factor = reaction_rate_factor(rates, r, T9, rho);
      // Screened as the methods screen (a factor of exactly 1 with screening off).
      sum += reaction_flux(net, r, rate_factor, Y, ye, plasma) * net.q_value_MeV[r];
    }
  }
  return sum;
}

}  // namespace zoneode
