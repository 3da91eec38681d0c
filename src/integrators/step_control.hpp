// Step control for one zone, shared by every backend and method: the step size, accept or reject,
// the checks that fail a zone (non-finite state, mass drift, max_steps, step underflow), and the
// bookkeeping (steps, rejections, drift, the energy integral, the time reached).
//
// It takes the per-attempt reductions (error norm, finiteness, mass sum, energy release rates) as
// inputs, so a backend computes them its own way (serially on the CPU; across a team of threads in
// a kernel, where every thread may run the same controller on the same reduced values) and no
// backend repeats the schedule. Use:
//     StepControl control(settings, initial_mass, zone_input_valid(...));
//     while (control.begin_attempt()) {
//       ... compute the proposed state over control.step() and its AttemptReductions ...
//       if (control.end_attempt(reductions) == StepVerdict::accepted) Y <- proposed * control.scale();
//     }
//     result = control.finish(mass_fraction_sum(final Y));
#pragma once

#include <cmath>
#include <cstdint>

#include "common/constants.hpp"
#include "common/portability.hpp"
#include "integrators/settings.hpp"

namespace zoneode {

// The reductions of one attempted step, over the proposed state.
struct AttemptReductions {
  double error_norm = 0.0;          // adaptive: max scaled local error (INFINITY if any is not finite)
  bool finite = true;               // every proposed abundance is finite
  double mass = 0.0;                // sum A Y of the proposed state
  double release_rate_start = 0.0;  // sum_r flux_r Q_r at the attempt's start state [MeV mol/(g s)]
  double release_rate_mid = 0.0;    // adaptive: the same at the half-step state
};

enum class StepVerdict : std::int32_t {
  retry,     // rejected (adaptive): attempt again with the smaller step()
  accepted,  // the proposed state, times scale(), is the zone's new state
  stopped,   // the proposed state failed a check: keep the old state; begin_attempt() returns false
};

// A zone may be integrated if T9, rho and the initial mass are finite and positive and every
// abundance is finite.
ZONEODE_HD inline bool zone_input_valid(double T9, double rho, bool abundances_finite, double initial_mass) {
  return T9 > 0.0 && is_finite(T9) && rho > 0.0 && is_finite(rho) && abundances_finite && initial_mass > 0.0;
}

// The adaptive error norm's combination: the max of non-negative scaled errors, INFINITY as soon
// as one is not finite. Order-independent, so serial and parallel reductions agree exactly.
ZONEODE_HD inline double combine_error(double a, double b) {
  if (!is_finite(a) || !is_finite(b)) return INFINITY;
  return b > a ? b : a;
}

class StepControl {
 public:
  ZONEODE_HD StepControl(const IntegratorSettings& settings, double initial_mass, bool input_valid)
      : settings_(settings), initial_mass_(initial_mass), t_(settings.start_time) {
    if (!input_valid) {
      status_ = zone_bad_input;
      done_ = true;
    }
    dt_ = settings.dt_initial > 0.0 ? settings.dt_initial : settings.dt_fraction * t_;
  }

  ZONEODE_HD bool running() const { return !done_; }

  // Chooses the next attempt's step; false when the zone is done (end reached, or failed).
  ZONEODE_HD bool begin_attempt() {
    if (done_ || !(t_ < settings_.end_time)) return false;
    if (settings_.schedule == StepSchedule::geometric) {
      if (steps_ >= settings_.max_steps) return stop(zone_max_steps);
      double dt = settings_.dt_fraction * t_;
      last_ = t_ + dt >= settings_.end_time;
      if (last_) dt = settings_.end_time - t_;
      step_ = dt;
    } else {
      if (steps_ + rejected_ >= settings_.max_steps) return stop(zone_max_steps);
      if (dt_ < 1e-15 * t_) return stop(zone_step_underflow);
      last_ = t_ + dt_ >= settings_.end_time;
      step_ = last_ ? settings_.end_time - t_ : dt_;
    }
    return true;
  }

  // The attempt's step [s]; the adaptive schedule's half steps are 0.5 * step().
  ZONEODE_HD double step() const { return step_; }

  ZONEODE_HD StepVerdict end_attempt(const AttemptReductions& r) { return end_attempt(r, 1); }

  // estimate_order p: the adaptive error estimate scales as dt^(p+1), so the next dt follows
  // err^(-1/(p+1)). 1 for the asymptotic method's step doubling, 2 for the implicit method's
  // embedded solution (Rodas3).
  ZONEODE_HD StepVerdict end_attempt(const AttemptReductions& r, int estimate_order) {
    if (settings_.schedule == StepSchedule::geometric) {
      if (!check(r)) return StepVerdict::stopped;
      released_ += r.release_rate_start * step_;
      advance();
      return StepVerdict::accepted;
    }
    const double error = r.error_norm;
    const double factor =
        error > 0.0 ? 0.9 / (estimate_order == 2 ? cbrt(error) : sqrt(error)) : settings_.max_dt_growth;
    if (error <= 1.0) {
      if (!check(r)) return StepVerdict::stopped;
      released_ += 0.5 * step_ * (r.release_rate_start + r.release_rate_mid);
      advance();
      dt_ = step_ * fmin(settings_.max_dt_growth, fmax(0.2, factor));
      return StepVerdict::accepted;
    }
    ++rejected_;
    dt_ = step_ * fmax(0.2, fmin(0.9, factor));
    return StepVerdict::retry;
  }

  // Adaptive: overrides the step the next attempt tries (a method with its own step-size rule,
  // bdf.hpp, calls it after end_attempt); begin_attempt() still clamps it to end_time and stops
  // the zone when it underflows.
  ZONEODE_HD void set_next_step(double dt) { dt_ = dt; }

  // After an accepted attempt: 1, or initial mass / proposed mass when renormalising.
  ZONEODE_HD double scale() const { return scale_; }

  // The zone's result; final_mass is sum A Y of the state the zone ends with.
  ZONEODE_HD ZoneResult finish(double final_mass) const {
    ZoneResult result;
    result.status = status_;
    result.steps = steps_;
    result.rejected_steps = rejected_;
    result.time_reached = t_;
    // max(d_i) / c is max(d_i / c) bit for bit: division by c > 0 rounds monotonically.
    result.max_mass_drift = max_deviation_ > 0.0 ? max_deviation_ / initial_mass_ : 0.0;
    result.mass_fraction_sum = final_mass;
    const double burn_time = t_ - settings_.start_time;
    if (burn_time > 0.0) {
      result.energy_generation_rate = constants::avogadro * constants::mev_to_erg * released_ / burn_time;
    }
    return result;
  }

 private:
  ZONEODE_HD bool stop(ZoneStatus status) {
    status_ = status;
    done_ = true;
    return false;
  }
  // The checks of a proposed state; on success scale_ is set.
  //
  // The drift is that of the unrenormalised integration since start_time. When renormalising,
  // every step starts again from the initial mass, so the method's mass ratios (proposed /
  // initial) of the accepted steps are compounded in mass_ratio_: the mass the method would have
  // made without the rescaling. A per-step drift, reset by each rescaling, would stay small while
  // the abundances go wrong, and hide the failure. Without renormalising mass_ratio_ stays 1.
  ZONEODE_HD bool check(const AttemptReductions& r) {
    if (!r.finite) return stop(zone_non_finite);
    // The drift is |deviation| / initial mass. Its division is taken only near the bound: on a team
    // kernel every thread runs it after the step's last barrier, on the path to the next step
    // (~300 warp instructions per zone-step of the study's problem at 104 zones, the H100's ncu).
    // Below `certain` the check passes for certain: fl(m c (1 - 1e-14)) < m c exactly, so
    // deviation / c < m and its rounding is <= m (where m c is a normal number). Formed here, not
    // kept: a member costs every kernel a register pair (gfx90a's baseline lost a wave per SIMD).
    const double deviation = fabs(r.mass * mass_ratio_ - initial_mass_);
    const double certain = settings_.max_mass_drift * initial_mass_ * (1.0 - 1e-14);
    const bool surely_within = deviation <= certain && certain >= 2.2250738585072014e-308 && certain < INFINITY;
    if (!surely_within && !(deviation / initial_mass_ <= settings_.max_mass_drift)) return stop(zone_mass_drift);
    if (deviation > max_deviation_) max_deviation_ = deviation;
    if (settings_.renormalize) {  // otherwise scale_ and mass_ratio_ stay 1 (no division per step)
      scale_ = initial_mass_ / r.mass;
      mass_ratio_ /= scale_;
    }
    return true;
  }
  ZONEODE_HD void advance() {
    t_ = last_ ? settings_.end_time : t_ + step_;
    ++steps_;
    if (last_) done_ = true;
  }

  const IntegratorSettings& settings_;
  double initial_mass_;
  double t_;
  double dt_ = 0.0;    // adaptive: the step the next attempt tries
  double step_ = 0.0;  // the current attempt's step
  bool last_ = false;  // the current attempt ends at end_time
  bool done_ = false;
  ZoneStatus status_ = zone_ok;
  std::int64_t steps_ = 0;
  std::int64_t rejected_ = 0;
  double released_ = 0.0;  // integral of sum_r flux_r Q_r dt [MeV mol/g]
  double max_deviation_ = 0.0;  // the largest |mass deviation| of an accepted step [mol/g]
  double mass_ratio_ = 1.0;  // renormalising: the compounded mass ratio of the accepted steps
  double scale_ = 1.0;
};

}  // namespace zoneode
