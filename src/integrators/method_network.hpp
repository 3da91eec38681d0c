// What a method's zone integrator reads of the network: plain views, the same on the host and
// on a device (the arrays behind them live where the backend put them).
#pragma once

#include <cstdint>

#include "integrators/jacobian.hpp"
#include "integrators/sparse_lu.hpp"
#include "network/views.hpp"

namespace zoneode {

// Where each array of one zone's implicit workspace starts (offsets in doubles) and the total.
struct ImplicitWorkspaceLayout {
  std::int64_t rate_factor = 0, flux = 0, slot = 0, jacobian = 0, matrix = 0, energy_row = 0, ye_column = 0,
               ye_solution = 0, rhs = 0, state = 0, stages = 0, solve = 0, total = 0;
  // With screening on (physics.screening), after `solve`: the screening column and its solution
  // (jacobian.hpp, screening_jacobian_columns); both 0 (unused) without.
  std::int64_t screening_column = 0, screening_solution = 0;
  // With self-heating on (physics.self_heating, T9 a variable of the state: implicit.hpp), after
  // those: the rate factors at a stage's T9 (reactions), T's column d(dY/dt)/dT9, its solution and
  // T's row d(dT9/dt)/dY (species each); all 0 (unused) without.
  std::int64_t stage_rate_factor = 0, temperature_column = 0, temperature_solution = 0, temperature_row = 0;
};

// The implicit method's per-network structure (views over ImplicitStructure's arrays).
struct ImplicitView {
  JacobianView jacobian;
  SparseLuView lu;
  const std::int32_t* entry_position = nullptr;  // J entry e -> position in the LU values
  ImplicitWorkspaceLayout layout;
};

// Every method reads rates and step views; a method with per-network structure of its own reads
// its part too (empty for the others).
struct MethodNetwork {
  RateView rates;
  StepView step;
  ImplicitView implicit;
};

}  // namespace zoneode
