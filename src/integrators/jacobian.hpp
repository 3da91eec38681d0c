// The analytic Jacobian J = d(dY/dt)/dY of one zone, from the same sparse network structure as the
// right-hand side (network/rates.hpp), and the energy row d(sum_r Q_r flux_r)/dY.
//
// Every flux is flux_r = rate_factor_r * prod_k Y[s_k] [* Ye for electron captures], so its
// derivatives are "slots": for reactant k, rate_factor_r * prod_{k' != k} Y[s_k'] [* Ye]; for an
// electron capture one more slot, rate_factor_r * prod_k Y[s_k] = d flux_r / d Ye, which reaches
// every charged species m through dYe/dY_m = Z_m (captures follow the current Ye as the RHS does).
// A host-built term list (implicit_structure.hpp) then adds coefficient x slot into each Jacobian
// entry, coefficient = net stoichiometry nu_ir (creation minus destruction factor), for reactant
// slots. The Ye slots make J = J_sparse + u Z^T with u_i = sum over captures of nu_ir d flux_r/d Ye:
// a rank-one part, kept as the vector u ("Ye column") so that captures do not fill the pattern
// with dense rows (the solver applies it by Sherman-Morrison, implicit.hpp). Entries are stored
// compactly (only the pattern's entries).
// Screening (physics/screening.hpp) multiplies each slot by its reaction's factor exp(h) at Y, and
// h itself depends on Y through ye = sum Z Y and z2 = sum Z^2 Y: screening_jacobian_columns() adds
// that part as two more rank-one terms (one joins the Ye column).
// Host/device: raw pointers, fixed-order sums (bitwise reproducible), no allocation.
#pragma once

#include <cstdint>

#include "common/portability.hpp"
#include "network/rates.hpp"

namespace zoneode {

struct JacobianView {
  int slot_count = 0;
  const std::int32_t* slot_offsets = nullptr;  // reaction r's slots: [slot_offsets[r], slot_offsets[r+1])
  int term_count = 0;                          // J[term_entry[t]] += term_coefficient[t] * slot[term_slot[t]]
  const std::int32_t* term_slot = nullptr;
  const std::int32_t* term_entry = nullptr;
  const double* term_coefficient = nullptr;
  int entry_count = 0;                          // distinct (row, column) entries of J
  const std::int32_t* entry_row = nullptr;      // species index
  const std::int32_t* entry_column = nullptr;   // species index
  int ye_term_count = 0;                        // u[ye_term_species[t]] += ye_term_coefficient[t] * slot[ye_term_slot[t]]
  const std::int32_t* ye_term_slot = nullptr;
  const std::int32_t* ye_term_species = nullptr;
  const double* ye_term_coefficient = nullptr;   // nu_ir
  int energy_term_count = 0;                    // energy_row[species] += coefficient * slot[slot]
  const std::int32_t* energy_term_slot = nullptr;
  const std::int32_t* energy_term_species = nullptr;
  const double* energy_term_coefficient = nullptr;  // Q_r [MeV], or Q_r Z_m for a Ye slot
};

// The flux derivatives ("slots") of reaction r at abundances Y, whose electron fraction is ye;
// rate: its rate factor (screened where screening is on).
template <typename Abundances, typename Slots>
ZONEODE_HD inline void reaction_flux_derivative_slots(const StepView& net, const JacobianView& jac, int r, double rate,
                                                      const Abundances& Y, double ye, Slots slot) {
  const int count = net.reactant_count[r];
  const species_index_t* reactants = net.reactant_species + max_reactants_per_reaction * r;
  const bool capture = (net.reaction_flags[r] & reaction_flag_electron_capture) != 0;
  const int first = jac.slot_offsets[r];
  for (int k = 0; k < count; ++k) {
    double value = capture ? rate * ye : rate;
    for (int other = 0; other < count; ++other) {
      if (other != k) value *= Y[reactants[other]];
    }
    slot[first + k] = value;
  }
  if (capture) {
    double value = rate;
    for (int k = 0; k < count; ++k) value *= Y[reactants[k]];
    slot[first + count] = value;
  }
}

// The flux derivatives ("slots") of every reaction at abundances Y; `plasma` (null: unscreened)
// gives the screening at Y.
template <typename Rates, typename Abundances, typename Slots>
ZONEODE_HD inline void flux_derivative_slots(const StepView& net, const JacobianView& jac, const Rates& rate_factor,
                                             const Abundances& Y, Slots slot, const ScreeningPlasma* plasma) {
  const double ye = electron_fraction(net, Y);
  for (int r = 0; r < net.reaction_count; ++r) {
    const double rate = plasma ? rate_factor[r] * reaction_screening(net, r, *plasma) : rate_factor[r];
    reaction_flux_derivative_slots(net, jac, r, rate, Y, ye, slot);
  }
}

template <typename Rates, typename Abundances, typename Slots>
ZONEODE_HD inline void flux_derivative_slots(const StepView& net, const JacobianView& jac, const Rates& rate_factor,
                                             const Abundances& Y, Slots slot) {
  flux_derivative_slots(net, jac, rate_factor, Y, slot, static_cast<const ScreeningPlasma*>(nullptr));
}

// At the zone's T9 [GK] and rho [g/cm^3], screened when the network's screening is on.
template <typename Rates, typename Abundances, typename Slots>
ZONEODE_HD inline void flux_derivative_slots(const StepView& net, const JacobianView& jac, const Rates& rate_factor,
                                             const Abundances& Y, Slots slot, double T9, double rho) {
  if (net.screening == 0) return flux_derivative_slots(net, jac, rate_factor, Y, slot);
  const ScreeningPlasma plasma = screening_plasma(net, Y, T9, rho, electron_fraction(net, Y));
  flux_derivative_slots(net, jac, rate_factor, Y, slot, &plasma);
}

// J's sparse entries (jac.entry_count values), the Ye column u (species_count values; J = sparse
// entries + u Z^T) and the energy row (species_count values, d(sum_r Q_r flux_r)/dY
// [MeV mol/(g s) per mol/g], Ye dependence included) from the slots.
template <typename Slots, typename Entries, typename YeColumn, typename EnergyRow>
ZONEODE_HD inline void jacobian_from_slots(int species_count, const JacobianView& jac, const Slots& slot,
                                           Entries entry, YeColumn ye_column, EnergyRow energy_row) {
  for (int e = 0; e < jac.entry_count; ++e) entry[e] = 0.0;
  for (int t = 0; t < jac.term_count; ++t) entry[jac.term_entry[t]] += jac.term_coefficient[t] * slot[jac.term_slot[t]];
  for (int i = 0; i < species_count; ++i) ye_column[i] = 0.0;
  for (int t = 0; t < jac.ye_term_count; ++t) {
    ye_column[jac.ye_term_species[t]] += jac.ye_term_coefficient[t] * slot[jac.ye_term_slot[t]];
  }
  for (int i = 0; i < species_count; ++i) energy_row[i] = 0.0;
  for (int t = 0; t < jac.energy_term_count; ++t) {
    energy_row[jac.energy_term_species[t]] += jac.energy_term_coefficient[t] * slot[jac.energy_term_slot[t]];
  }
}

// dY_i/dt = F+_i - F-_i from fluxes.
template <typename Fluxes, typename Out>
ZONEODE_HD inline void species_rates(const StepView& net, const Fluxes& flux, Out dydt) {
  for (int i = 0; i < net.species_count; ++i) dydt[i] = creation_sum(net, i, flux) - destruction_sum(net, i, flux);
}

// The team kernels' species sums (kernels/implicit/implicit_team.hpp, species_rates_team): species
// i's F+ and F- terms over species_sum_lanes lanes, lane l adding every lanes-th term from the l-th
// (v[0] += F+ terms, v[1] += F- terms), so that the heaviest species (s150's neutron: 686 terms)
// does not hold the team's phase back by one thread's whole list.
inline constexpr int species_sum_lanes = 8;
template <typename Fluxes>
ZONEODE_HD inline void species_rate_lane_part(const StepView& net, int i, int lane, int lanes, const Fluxes& flux,
                                              double (&v)[2]) {
  for (int k = net.creation_offsets[i] + lane; k < net.creation_offsets[i + 1]; k += lanes)
    v[0] += flux_term(net.creation_reaction, net.creation_factor, k, flux);
  for (int k = net.destruction_offsets[i] + lane; k < net.destruction_offsets[i + 1]; k += lanes)
    v[1] += flux_term(net.destruction_reaction, net.destruction_factor, k, flux);
}

// One list's terms [begin, end) as species_sum_lanes = 8 lanes add them (lane l: terms begin + l,
// begin + l + 8, ... in order, from 0) and the team's tree then adds the lanes, ((v0 + v1) + (v2 +
// v3)) + ((v4 + v5) + (v6 + v7)): eight independent sums in one pass (a lane without terms adds 0).
// The same bits as species_rate_lane_part lane by lane, which as eight loops per list made the
// serial bdf ~10% slower on s150 (one pass: 2% faster than the list order).
template <typename Fluxes>
ZONEODE_HD inline double lane_tree_sum(const reaction_index_t* reaction, const stoich_factor_t* factor, int begin,
                                       int end, const Fluxes& flux) {
  static_assert(species_sum_lanes == 8, "written out for eight lanes");
  double v0 = 0.0, v1 = 0.0, v2 = 0.0, v3 = 0.0, v4 = 0.0, v5 = 0.0, v6 = 0.0, v7 = 0.0;
  int k = begin;
  for (; k + 8 <= end; k += 8) {
    v0 += flux_term(reaction, factor, k, flux);
    v1 += flux_term(reaction, factor, k + 1, flux);
    v2 += flux_term(reaction, factor, k + 2, flux);
    v3 += flux_term(reaction, factor, k + 3, flux);
    v4 += flux_term(reaction, factor, k + 4, flux);
    v5 += flux_term(reaction, factor, k + 5, flux);
    v6 += flux_term(reaction, factor, k + 6, flux);
    v7 += flux_term(reaction, factor, k + 7, flux);
  }
  if (k < end) v0 += flux_term(reaction, factor, k, flux);
  if (k + 1 < end) v1 += flux_term(reaction, factor, k + 1, flux);
  if (k + 2 < end) v2 += flux_term(reaction, factor, k + 2, flux);
  if (k + 3 < end) v3 += flux_term(reaction, factor, k + 3, flux);
  if (k + 4 < end) v4 += flux_term(reaction, factor, k + 4, flux);
  if (k + 5 < end) v5 += flux_term(reaction, factor, k + 5, flux);
  if (k + 6 < end) v6 += flux_term(reaction, factor, k + 6, flux);
  return ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7));
}

// dY_i/dt = F+_i - F-_i rounded as the team kernels round it (species_rates_team: the lanes of
// species_rate_lane_part, their parts added in the team's tree, then the difference). bdf's serial
// method evaluates its right-hand side so, so that its team kernel on a GPU takes the CPU's rounding
// there: in the list order the team emulated on the CPU was 4.5e-3 x rtol from the serial method on
// s150 at rtol 1e-8, with this 3.5e-4 (validation/README.md, "The Newton test's atol").
template <typename Fluxes, typename Out>
ZONEODE_HD inline void species_rates_in_lanes(const StepView& net, const Fluxes& flux, Out dydt) {
  for (int i = 0; i < net.species_count; ++i) {
    const double plus = lane_tree_sum(net.creation_reaction, net.creation_factor, net.creation_offsets[i],
                                      net.creation_offsets[i + 1], flux);
    const double minus = lane_tree_sum(net.destruction_reaction, net.destruction_factor, net.destruction_offsets[i],
                                       net.destruction_offsets[i + 1], flux);
    dydt[i] = plus - minus;
  }
}

// Screening's composition dependence. flux_r = exp(h_r) g_r(Y) with h_r a function of ye and z2,
// so d flux_r / dY_m = exp(h_r) dg_r/dY_m (the slots) + flux_r (dh_r/dye Z_m + dh_r/dz2 Z_m^2).
// Weak screening's two slopes are equal and chugunov2007's dh/dz2 is 0, so q_r = flux_r dh_r/dye
// carries both: J gains c Z^T, added to the Ye column, and for weak screening also c (Z^2)^T, the
// screening column, with c_i = sum_r nu_ir q_r (species_rates of q); the energy row gains
// (sum_r Q_r q_r) (Z_m [+ Z_m^2 for weak]). flux: the screened fluxes at Y on entry, q on return.
template <typename Abundances, typename Fluxes, typename YeColumn, typename Column, typename EnergyRow>
ZONEODE_HD inline void screening_jacobian_columns(const StepView& net, double T9, double rho, const Abundances& Y,
                                                  Fluxes flux, YeColumn ye_column, Column screening_column,
                                                  EnergyRow energy_row) {
  const ScreeningKind kind = static_cast<ScreeningKind>(net.screening);
  const ScreeningPlasma plasma = screening_plasma(net, Y, T9, rho, electron_fraction(net, Y));
  for (int r = 0; r < net.reaction_count; ++r) {
    double z[max_reactants_per_reaction], a[max_reactants_per_reaction];
    const int count = reactant_nuclei(net, r, z, a);
    flux[r] *= reaction_screening_slopes(kind, count, z, a, plasma).d_ye;
  }
  species_rates(net, flux, screening_column);
  const double energy = energy_release_rate(net, flux);
  const bool weak = kind == ScreeningKind::weak;
  for (int i = 0; i < net.species_count; ++i) {
    const double Z = net.species_Z[i];
    ye_column[i] += screening_column[i];
    energy_row[i] += weak ? energy * (Z + Z * Z) : energy * Z;
  }
}

}  // namespace zoneode
