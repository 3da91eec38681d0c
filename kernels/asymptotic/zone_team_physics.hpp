// The physics options (src/physics/, inputs/README.md "Physics") in a team integrator: the pieces
// that integrate_zone_team (zone_team.hpp) and any other team integrator call at their hooks.
//
// - Screening, at every flux evaluation: team_screened_rate_factors() gives the rate factors the
//   fluxes use, rate_factor * exp(H) at the plasma of the abundances the fluxes are evaluated at
//   (T9, rho, the team's Ye and, for weak screening, one more reduction: sum Z^2 Y).
// - Self-heating, after every accepted step: team_self_heating() heats T9 by the step's released
//   energy over c_v of the new state (reduced sums of Y and Z Y) and evaluates every rate factor
//   again at the new T9.
// The options are run-time flags of the step view (net.screening, net.self_heating), the same on
// every thread: each hook is one uniform branch per flux evaluation or step. The hooks exist only in
// a team integrator's PHYSICS instantiation, which the host launches when an option is on (the
// LaunchPlan's `physics`): inlined, the options' code (Chugunov's cube roots, cosine and exp; the
// rate factors' exp, log and pow) raised every kernel's register allocation with the options off
// too (gfx90a baseline 126 -> 186 VGPRs and 4 -> 2 waves per SIMD, final 71 VGPRs spilled; sm_90
// baseline 78 -> 128 registers, final 268 B of spill stores), and out of line (noinline) it did
// as much on sm_90 (a call keeps the caller's live registers) and nothing on Debian's hipcc 5.2,
// which inlines anyway. So the kernels without options are the ones they were, bit for bit.
//
// Arithmetic: the serial reference's (network/rates.hpp, physics/), so that CPU and GPU differ only
// in the order of the reduced sums and the device's exp/log/cbrt.
#pragma once

#include "runtime/gpu_runtime.hpp"
#include "integrators/step_control.hpp"
#include "network/rates.hpp"
#include "physics/self_heating.hpp"

namespace zoneode::gpu {

// This thread's part of sum Z_i^2 Y_i, over the species it owns in strided order.
template <typename Team, typename Abundances>
__device__ inline double charge_squared_part(const Team& team, const StepView& net, const Abundances& Y) {
  double part = 0.0;
  for (int i = team.rank(); i < net.species_count; i += Team::size) part += net.species_Z[i] * net.species_Z[i] * Y[i];
  return part;
}

// The rate factors for fluxes at abundances Y (complete: after a barrier) with electron fraction ye
// (the team's): rate_factor itself with screening off or without PHYSICS (no work); with it on, rate_factor[r] x
// exp(H_r) written into `screened` and `screened` returned. Pass the flux array as `screened`:
// team_fluxes() then overwrites each entry with its flux, and since both loops give reaction r to
// thread r mod Team::size, each thread reads only what it wrote (no barrier). The flux is then
// (rate_factor x exp(H)) x prod Y [x Ye], the operations of the CPU's screened reaction_flux() in
// its order. Every thread must call this (weak screening reduces). `screened` must be free: no
// thread still reads it (true of the flux array after any barrier that follows its last reader).
template <bool PHYSICS, typename Team, typename Abundances, typename Array>
__device__ inline Array team_screened_rate_factors(const Team& team, const StepView& net, const Array& rate_factor,
                                                   const Abundances& Y, double T9, double rho, double ye,
                                                   Array screened) {
  if constexpr (!PHYSICS) {
    return rate_factor;
  } else {
    if (net.screening == static_cast<int>(ScreeningKind::none)) return rate_factor;
    const bool weak = net.screening == static_cast<int>(ScreeningKind::weak);
    const double z2_sum = weak ? team.sum(charge_squared_part(team, net, Y)) : 0.0;  // uniform: all threads or none
    const ScreeningPlasma plasma = make_screening_plasma(T9, rho, ye, z2_sum);
    for (int r = team.rank(); r < net.reaction_count; r += Team::size)
      screened[r] = rate_factor[r] * reaction_screening(net, r, plasma);
    return screened;
  }
}

// After an accepted step with self-heating on: T9 [GK] heated by `energy` [MeV mol/g] released in
// the step (step_released_energy()) at density rho, c_v from the team's sums of Y and Z Y over the
// new state Y, and every rate factor evaluated again at the new T9 (threads over reactions, as the
// first evaluation). Every thread computes the same T9 from the same reduced sums (no broadcast)
// and returns it. Y: each thread reads its own species in strided order, so Y must be complete
// for those (its own writes, or any barrier after the writers). Ends with a barrier.
template <typename Team, typename Abundances, typename Array>
__device__ inline double team_self_heating(const Team& team, const RateView& rates, const StepView& net, double T9,
                                           double rho, const Abundances& Y, double energy, Array rate_factor) {
  double sums[2] = {0.0, 0.0};  // sum Y, sum Z Y
  for (int i = team.rank(); i < net.species_count; i += Team::size) {
    sums[0] += Y[i];
    sums[1] += net.species_Z[i] * Y[i];
  }
  team.template reduce<2>(sums);
  const double heated = heated_temperature_from_sums(T9, rho, sums[0], sums[1], energy);
  for (int r = team.rank(); r < rates.reaction_count; r += Team::size)
    rate_factor[r] = reaction_rate_factor(rates, r, heated, rho);
  team.sync();
  return heated;
}

}  // namespace zoneode::gpu
