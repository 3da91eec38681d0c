// What every integration method shares: its settings, the per-zone status codes and the per-zone
// result. Device-side header: plain structs, no containers.
#pragma once

#include <cstdint>

#include "common/choices.hpp"

namespace zoneode {

enum class StepSchedule : std::int32_t {
  geometric = 0,  // the study's schedule: dt = dt_fraction * t from start_time to end_time
  adaptive = 1,   // step doubling with a local error bound (rtol, atol); see inputs/README.md
};

struct IntegratorSettings {
  IntegrationMethod method = IntegrationMethod::asymptotic;
  StepSchedule schedule = StepSchedule::geometric;
  double start_time = 1e-12;       // [s] first time of the schedule (t0 > 0)
  double end_time = 1e-6;          // [s]
  double dt_fraction = 0.01;       // geometric: dt = dt_fraction * t
  double rtol = 1e-4;              // adaptive: relative local error bound
  double atol = 1e-20;             // adaptive: absolute local error bound [mol/g] (chosen by validation/atol_sweep.py)
  double dt_initial = 0.0;         // adaptive: first dt [s]; 0 means dt_fraction * start_time
  double max_dt_growth = 2.0;      // adaptive: dt may grow at most by this factor per step
  std::int64_t max_steps = 1000000;
  double abundance_floor = 1e-30;  // [mol/g]
  double max_mass_drift = 1e-2;    // |sum A Y - initial| / initial beyond which the zone fails
  bool renormalize = false;        // rescale Y to the initial mass sum after every step
};

enum ZoneStatus : std::int32_t {
  zone_ok = 0,
  zone_non_finite = 1,       // an abundance became NaN or infinite
  zone_mass_drift = 2,       // the mass-fraction sum drifted beyond max_mass_drift
  zone_max_steps = 3,        // max_steps reached before end_time
  zone_step_underflow = 4,   // adaptive dt fell below 1e-15 t
  zone_bad_input = 5,        // T9, rho or Y not finite / not positive
  zone_status_count          // the number of codes above
};

// A short name for a status code ("ok", "non_finite", ...); "unknown" outside the range.
const char* zone_status_name(int status);

struct ZoneResult {
  ZoneStatus status = zone_ok;
  std::int64_t steps = 0;             // accepted integrator steps
  std::int64_t rejected_steps = 0;    // adaptive rejections
  double time_reached = 0.0;          // [s] time of the returned state
  double energy_generation_rate = 0;  // [erg/(g s)] released energy / burn time (mean over the burn)
  double max_mass_drift = 0;          // largest |sum A Y - initial| / initial of accepted states (before renormalising)
  double mass_fraction_sum = 0;       // sum A Y of the returned state
  double final_T9 = 0;                // [GK] T9 of the returned state (changes only with physics.self_heating)
  // Work of the implicit and qss2 methods (0 for the asymptotic one, whose flux evaluations are
  // 1 per geometric step and 2 per adaptive attempt).
  std::int64_t rhs_evaluations = 0;       // right-hand side (flux) evaluations
  std::int64_t jacobian_evaluations = 0;  // analytic Jacobian evaluations
  std::int64_t factorizations = 0;        // sparse LU factorisations
};

}  // namespace zoneode
