// The physics options (src/physics/, inputs/README.md "Physics") in a team integrator: the pieces
// that integrate_zone_team (zone_team.hpp) and any other team integrator call at their hooks.
//
// - Screening, at every flux evaluation: team_screened_rate_factors() gives the rate factors the
//   fluxes use, rate_factor * exp(H) at the plasma of the abundances the fluxes are evaluated at
//   (T9, rho, the team's Ye and, for weak screening, one more reduction: sum Z^2 Y).
// No self-heating: with it T9 is a variable of the integrated state (physics/self_heating.hpp),
// which the team integrators do not carry; the GPU backend sends implicit self-heating runs to the
// serial method and the deck refuses it with the explicit methods on the GPU (gpu_backend.hip).
// The option is a run-time flag of the step view (net.screening), the same on every thread: the
// hook is one uniform branch per flux evaluation. The hooks exist only in
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
#include "physics/screening.hpp"

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

}  // namespace zoneode::gpu
