// Self-heating with T9 a variable of the implicit method's state (integrators/implicit.hpp,
// physics/self_heating.hpp), against truths that do not come from the integrator:
//   (a) a T-independent decay a -> b releasing Q: Y_a(t) is exp(-k t), and T follows from energy
//       conservation, int_{T0}^{T} c_v dT = Q N_A (Y_a0 - Y_a(t)), solved here by Gauss-Legendre
//       quadrature of the EOS's c_v and Newton's method;
//   (b) a burn whose rates depend on T through every REACLIB term (a -> b, b + b -> c, screened or
//       not), against a classical RK4 reference with T in the state on 80,000 fixed steps
//       (checked against 40,000: the reference's own error is below 1e-11);
//   (c) the step count with heating within 3x of the same burn without;
// and a slow decay with a large release, where only T's own error estimate limits the step.
// The explicit methods (qss2, asymptotic) against the same truths, as their order allows.
// T9 and every abundance within 10 rtol at rtol 1e-4 .. 1e-8. The operator-split update that
// preceded this (T jumps by dE / c_v after each step) was 0.06% off at rtol 1e-8 in (a). Planted
// faults, tried by hand: the Jacobian's T column, T row or dg/dT9 corner set to zero each fail
// (a) or (b) (Rodas3 is not a W-method: its order needs the exact Jacobian).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "integrators/implicit.hpp"
#include "integrators/method_data.hpp"
#include "integrators/methods.hpp"
#include "network/compact.hpp"
#include "physics/eos.hpp"
#include "physics/self_heating.hpp"
#include "physics_testing.hpp"

namespace zoneode {
namespace {

constexpr double start_time = 1e-6;  // [s]
constexpr double burn_time = 0.2;    // [s]

IntegratorSettings implicit_adaptive(double rtol) {
  IntegratorSettings s;
  s.method = IntegrationMethod::implicit;
  s.schedule = StepSchedule::adaptive;
  s.start_time = start_time;
  s.end_time = start_time + burn_time;
  s.rtol = rtol;
  s.atol = 1e-25;
  return s;
}

const double rtols[] = {1e-4, 1e-5, 1e-6, 1e-7, 1e-8};

// ---- (a) T-independent decay: T from energy conservation ----

// int_{T9a}^{T9b} c_v dT [erg/g], 8-point Gauss-Legendre on 32 panels (c_v is smooth in T).
double heat_content(double T9a, double T9b, double rho, double ion_sum, double ye) {
  static const double x[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363};
  static const double w[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763};
  const int panels = 32;
  const double width = (T9b - T9a) / panels;
  double sum = 0.0;
  for (int p = 0; p < panels; ++p) {
    const double middle = T9a + (p + 0.5) * width;
    for (int k = 0; k < 4; ++k) {
      for (double sign : {-1.0, 1.0}) {
        const double T9 = middle + sign * 0.5 * width * x[k];
        sum += w[k] * 0.5 * width * specific_heat(T9 * 1e9, rho, ion_sum, ye);
      }
    }
  }
  return sum * 1e9;  // per GK -> per K
}

// The T9 at which the zone holds `energy` [erg/g] more than at T9_0 (Newton on heat_content).
double temperature_holding(double energy, double T9_0, double rho, double ion_sum, double ye) {
  double T9 = T9_0;
  for (int iteration = 0; iteration < 50; ++iteration) {
    const double excess = heat_content(T9_0, T9, rho, ion_sum, ye) - energy;
    const double step = excess / (specific_heat(T9 * 1e9, rho, ion_sum, ye) * 1e9);
    T9 -= step;
    if (std::fabs(step) < 1e-15 * T9) break;
  }
  return T9;
}

TEST(SelfHeating, TIndependentDecayFollowsEnergyConservationWithin10Rtol) {
  const double k = 10.0, Q = 3.0, rho = 1e6, T9_0 = 1.0, Y0 = 1.0 / 12.0;  // [1/s], [MeV], [g/cm^3], [GK], [mol/g]
  Reaction decay{{0}, {1}, {fit_set({std::log(k), 0, 0, 0, 0, 0, 0})}, Q, false};
  PhysicsOptions on;
  on.self_heating = true;
  const CompactNetwork compact(network_of({species("c12", 6, 12), species("c12m", 6, 12)}, {decay}), on);
  const double Y_ref = Y0 * std::exp(-k * burn_time);
  const double released = Q * cgs::mev_to_erg * cgs::avogadro * (Y0 - Y_ref);  // [erg/g]
  const double T9_ref = temperature_holding(released, T9_0, rho, Y0, 6.0 * Y0);
  ASSERT_GT(T9_ref, 1.5 * T9_0);  // a real heating, not a rounding
  for (double rtol : rtols) {
    const Burned out = burn(compact, implicit_adaptive(rtol), {Y0, 0.0}, T9_0, rho);
    ASSERT_EQ(out.result.status, zone_ok) << rtol;
    EXPECT_LT(std::fabs(out.T9 - T9_ref) / T9_ref, 10 * rtol) << "rtol " << rtol << " T9 " << out.T9 << " vs " << T9_ref;
    EXPECT_LT(std::fabs(out.Y[0] - Y_ref) / Y_ref, 10 * rtol) << rtol;
    EXPECT_LT(std::fabs(out.Y[1] - (Y0 - Y_ref)) / Y0, 10 * rtol) << rtol;
    std::printf("rtol %.0e: T9 error %.2e, Y_a error %.2e (relative), %lld steps\n", rtol,
                std::fabs(out.T9 - T9_ref) / T9_ref, std::fabs(out.Y[0] - Y_ref) / Y_ref,
                static_cast<long long>(out.result.steps));
  }
}

// ---- (b) T-dependent burn against an RK4 reference with T in the state ----

struct Burn {
  CompactNetwork compact;
  double rho = 1e6;
  double T9_0 = 1.0;
  std::vector<double> Y0{1.0 / 12.0, 0.0, 0.0};
};

Network t_dependent_network() {
  // a -> b (Q 2 MeV) with every term of the fit; b + b -> c (Q 4 MeV), density- and T-dependent.
  Reaction first{{0}, {1}, {fit_set({3.0, -1.0, -0.5, 0.3, 0.2, -0.05, 1.5})}, 2.0, false};
  Reaction second{{1, 1}, {2}, {fit_set({-12.0, 0, 0, 0, 2.0, 0, 0})}, 4.0, false};
  return network_of({species("c12", 6, 12), species("c12m", 6, 12), species("mg24", 12, 24)}, {first, second});
}

// d(Y, T9)/dt from the library's rates and fluxes, the EOS's c_v: the ODE (dU/dt = eps, U's
// composition term included: physics/self_heating.hpp), not its integrator.
void reference_rhs(const CompactNetwork& compact, double rho, const std::vector<double>& state, std::vector<double>& out) {
  const RateView rates = compact.rate_view();
  const StepView net = compact.step_view();
  const int n = net.species_count;
  const double T9 = state[n];
  std::vector<double> factor(net.reaction_count), flux(net.reaction_count);
  for (int r = 0; r < net.reaction_count; ++r) factor[r] = reaction_rate_factor(rates, r, T9, rho);
  zone_fluxes(net, factor.data(), state.data(), flux.data(), T9, rho);
  species_rates(net, flux.data(), out.data());
  double ions = 0.0, ye = 0.0;
  for (int i = 0; i < n; ++i) {
    ions += state[i];
    ye += net.species_Z[i] * state[i];
  }
  const double eps = energy_release_rate(net, flux.data()) * cgs::avogadro * cgs::mev_to_erg;  // [erg/(g s)]
  // dU/dt = eps with U's composition term: the ideal ions' 3/2 R T per mol of ions. These networks
  // keep sum Z Y (a -> b and b + b -> c conserve charge), so the electrons' term is 0 (sum Z dY/dt
  // is rounding here).
  double ion_rate = 0.0;
  for (int i = 0; i < n; ++i) ion_rate += out[i];
  const double ion_power = 1.5 * cgs::gas_constant * T9 * 1e9 * ion_rate;  // [erg/(g s)]
  out[n] = (eps - ion_power) / specific_heat(T9 * 1e9, rho, ions, ye) / 1e9;
}

std::vector<double> rk4_reference(const CompactNetwork& compact, double rho, std::vector<double> state, int steps) {
  const std::size_t size = state.size();
  std::vector<double> k1(size), k2(size), k3(size), k4(size), argument(size);
  const double h = burn_time / steps;
  auto axpy = [&](const std::vector<double>& k, double factor) {
    for (std::size_t i = 0; i < size; ++i) argument[i] = state[i] + factor * k[i];
  };
  for (int s = 0; s < steps; ++s) {
    reference_rhs(compact, rho, state, k1);
    axpy(k1, 0.5 * h);
    reference_rhs(compact, rho, argument, k2);
    axpy(k2, 0.5 * h);
    reference_rhs(compact, rho, argument, k3);
    axpy(k3, h);
    reference_rhs(compact, rho, argument, k4);
    for (std::size_t i = 0; i < size; ++i) state[i] += h / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  return state;
}

void expect_burn_matches_reference(ScreeningKind screening) {
  PhysicsOptions on;
  on.self_heating = true;
  on.screening = screening;
  const CompactNetwork compact(t_dependent_network(), on);
  const double rho = 1e6, T9_0 = 1.0;
  std::vector<double> initial{1.0 / 12.0, 0.0, 0.0, T9_0};
  const std::vector<double> coarse = rk4_reference(compact, rho, initial, 40000);
  const std::vector<double> reference = rk4_reference(compact, rho, initial, 80000);
  for (std::size_t i = 0; i < reference.size(); ++i) {
    ASSERT_LT(std::fabs(coarse[i] - reference[i]), 1e-11 * std::fabs(reference[i])) << "reference not converged " << i;
  }
  const double T9_ref = reference[3];
  ASSERT_GT(T9_ref, 1.5 * T9_0);
  for (double rtol : rtols) {
    const Burned out = burn(compact, implicit_adaptive(rtol), {initial[0], initial[1], initial[2]}, T9_0, rho);
    ASSERT_EQ(out.result.status, zone_ok) << rtol;
    EXPECT_LT(std::fabs(out.T9 - T9_ref) / T9_ref, 10 * rtol) << "rtol " << rtol << " T9 " << out.T9 << " vs " << T9_ref;
    double worst = 0.0;
    for (int i = 0; i < 3; ++i) worst = std::fmax(worst, std::fabs(out.Y[i] - reference[i]) / reference[i]);
    std::printf("rtol %.0e: T9 %.6f error %.2e, worst abundance error %.2e (relative), %lld steps\n", rtol, out.T9,
                std::fabs(out.T9 - T9_ref) / T9_ref, worst, static_cast<long long>(out.result.steps));
    for (int i = 0; i < 3; ++i) {
      EXPECT_LT(std::fabs(out.Y[i] - reference[i]) / reference[i], 10 * rtol)
          << "rtol " << rtol << " species " << i << ": " << out.Y[i] << " vs " << reference[i];
    }
  }
}

TEST(SelfHeating, TDependentBurnMatchesAnRk4ReferenceWithin10Rtol) { expect_burn_matches_reference(ScreeningKind::none); }

TEST(SelfHeating, ScreenedTDependentBurnMatchesAnRk4ReferenceWithin10Rtol) {
  expect_burn_matches_reference(ScreeningKind::chugunov2007);
}

// ---- (c) cost ----

TEST(SelfHeating, StepsWithHeatingWithin3xOfTheSameBurnWithout) {
  PhysicsOptions on;
  on.self_heating = true;
  const CompactNetwork heated(t_dependent_network(), on), fixed(t_dependent_network());
  for (double rtol : rtols) {
    const Burned with = burn(heated, implicit_adaptive(rtol), {1.0 / 12.0, 0.0, 0.0}, 1.0, 1e6);
    const Burned without = burn(fixed, implicit_adaptive(rtol), {1.0 / 12.0, 0.0, 0.0}, 1.0, 1e6);
    ASSERT_EQ(with.result.status, zone_ok);
    ASSERT_EQ(without.result.status, zone_ok);
    std::printf("rtol %.0e: steps %lld with heating (T9 1 -> %.4f), %lld without; rejected %lld, %lld\n", rtol,
                static_cast<long long>(with.result.steps), with.T9, static_cast<long long>(without.result.steps),
                static_cast<long long>(with.result.rejected_steps),
                static_cast<long long>(without.result.rejected_steps));
    EXPECT_LE(with.result.steps, 3 * without.result.steps) << rtol;
  }
}

// ---- the explicit methods: T9 in the predictor-corrector and the error estimate ----

struct ExplicitErrors {
  double decay_T9 = 0, decay_Y = 0;  // (a), relative
  double burn_T9 = 0, burn_Y = 0;    // (b), relative, worst species
  std::int64_t steps_heated = 0, steps_fixed = 0;
};

ExplicitErrors explicit_errors(IntegrationMethod method, double rtol) {
  PhysicsOptions on;
  on.self_heating = true;
  const double k = 10.0, Q = 3.0, rho = 1e6, T9_0 = 1.0, Y0 = 1.0 / 12.0;
  Reaction decay{{0}, {1}, {fit_set({std::log(k), 0, 0, 0, 0, 0, 0})}, Q, false};
  const CompactNetwork toy(network_of({species("c12", 6, 12), species("c12m", 6, 12)}, {decay}), on);
  const CompactNetwork heated(t_dependent_network(), on), fixed(t_dependent_network());
  const double Y_ref = Y0 * std::exp(-k * burn_time);
  const double T9_ref =
      temperature_holding(Q * cgs::mev_to_erg * cgs::avogadro * (Y0 - Y_ref), T9_0, rho, Y0, 6.0 * Y0);
  const std::vector<double> reference = rk4_reference(heated, rho, {Y0, 0.0, 0.0, T9_0}, 40000);
  IntegratorSettings s = implicit_adaptive(rtol);
  s.method = method;
  const Burned a = burn(toy, s, {Y0, 0.0}, T9_0, rho);
  const Burned b = burn(heated, s, {Y0, 0.0, 0.0}, T9_0, rho);
  const Burned c = burn(fixed, s, {Y0, 0.0, 0.0}, T9_0, rho);
  EXPECT_EQ(a.result.status, zone_ok);
  EXPECT_EQ(b.result.status, zone_ok);
  EXPECT_EQ(c.result.status, zone_ok);
  ExplicitErrors e;
  e.decay_T9 = std::fabs(a.T9 - T9_ref) / T9_ref;
  e.decay_Y = std::fabs(a.Y[0] - Y_ref) / Y_ref;
  e.burn_T9 = std::fabs(b.T9 - reference[3]) / reference[3];
  for (int i = 0; i < 3; ++i) e.burn_Y = std::fmax(e.burn_Y, std::fabs(b.Y[i] - reference[i]) / reference[i]);
  e.steps_heated = b.result.steps;
  e.steps_fixed = c.result.steps;
  std::printf("rtol %.0e: (a) T9 %.2e, Y %.2e; (b) T9 %.2e, Y %.2e; steps %lld heated, %lld fixed T\n", rtol,
              e.decay_T9, e.decay_Y, e.burn_T9, e.burn_Y, static_cast<long long>(e.steps_heated),
              static_cast<long long>(e.steps_fixed));
  return e;
}

// A slow decay a -> b (1% of a over the burn, b as abundant as a) releasing so much (100 MeV) that T9
// rises 1 -> 1.30 (1.37 with the former, smaller c_v): the abundances' error estimates allow long steps, so only T9's own estimate
// keeps its error down (the operator split was 1.5% off at rtol 1e-4 and 0.09% at 1e-8 with the
// asymptotic method). The relative error of the final T9 against energy conservation.
double slow_decay_T9_error(IntegrationMethod method, double rtol) {
  PhysicsOptions on;
  on.self_heating = true;
  const double k = 0.05, Q = 100.0, rho = 1e6, T9_0 = 1.0, Y0 = 1.0 / 24.0;  // [1/s], [MeV], [g/cm^3], [GK], [mol/g]
  Reaction decay{{0}, {1}, {fit_set({std::log(k), 0, 0, 0, 0, 0, 0})}, Q, false};
  const CompactNetwork toy(network_of({species("c12", 6, 12), species("c12m", 6, 12)}, {decay}), on);
  const double Y_ref = Y0 * std::exp(-k * burn_time);
  const double T9_ref =
      temperature_holding(Q * cgs::mev_to_erg * cgs::avogadro * (Y0 - Y_ref), T9_0, rho, 2 * Y0, 12.0 * Y0);
  EXPECT_GT(T9_ref, 1.25 * T9_0);  // a heating large enough to matter
  IntegratorSettings s = implicit_adaptive(rtol);
  s.method = method;
  const Burned out = burn(toy, s, {Y0, Y0}, T9_0, rho);
  EXPECT_EQ(out.result.status, zone_ok);
  const double error = std::fabs(out.T9 - T9_ref) / T9_ref;
  std::printf("slow decay, rtol %.0e: T9 error %.2e in %lld steps\n", rtol, error,
              static_cast<long long>(out.result.steps));
  return error;
}

TEST(SelfHeating, ImplicitSlowDecayWithLargeReleaseKeepsT9WithinTenRtol) {
  for (double rtol : rtols) EXPECT_LT(slow_decay_T9_error(IntegrationMethod::implicit, rtol), 10 * rtol) << rtol;
}

// qss2 is second order with an error estimate whose global error follows rtol (qss2.hpp): T9 and
// the abundances within 10 rtol, as the implicit method.
TEST(SelfHeating, Qss2CarriesT9WithinTenRtol) {
  for (double rtol : rtols) {
    const ExplicitErrors e = explicit_errors(IntegrationMethod::qss2, rtol);
    EXPECT_LT(e.decay_T9, 10 * rtol) << rtol;
    EXPECT_LT(e.decay_Y, 10 * rtol) << rtol;
    EXPECT_LT(e.burn_T9, 10 * rtol) << rtol;
    EXPECT_LT(e.burn_Y, 10 * rtol) << rtol;
    EXPECT_LE(e.steps_heated, 3 * e.steps_fixed) << rtol;
    EXPECT_LT(slow_decay_T9_error(IntegrationMethod::qss2, rtol), 10 * rtol) << rtol;
  }
}

// The asymptotic method is first order (its step doubling holds the local error near rtol, the
// global error near rtol^(1/2)): its abundances do not reach 10 rtol even where T plays no part
// (the decay's Y_a). T9 must be no less accurate than the method's own abundances there, within
// rtol^(1/2) where only T's estimate bounds the step (the slow decay; measured 0.12 rtol^(1/2) with
// Euler's T9, 0.002 rtol^(1/2) since T9 is the energy balance's over each step),
// converging at that rate, and cost at most 3x the steps.
TEST(SelfHeating, AsymptoticCarriesT9AsAccuratelyAsItsAbundances) {
  double previous = 0.0;
  for (double rtol : rtols) {
    const ExplicitErrors e = explicit_errors(IntegrationMethod::asymptotic, rtol);
    EXPECT_LE(e.decay_T9, e.decay_Y) << rtol;
    EXPECT_LE(e.burn_T9, e.burn_Y) << rtol;
    EXPECT_LE(e.steps_heated, 3 * e.steps_fixed) << rtol;
    const double slow = slow_decay_T9_error(IntegrationMethod::asymptotic, rtol);
    EXPECT_LT(slow, std::sqrt(rtol)) << rtol;
    if (previous > 0) EXPECT_GT(previous / slow, 2.5) << rtol;  // ~sqrt(10) per decade
    previous = slow;
  }
}

// ---- the Jacobian's temperature pieces against differences of what they differentiate ----

TEST(SelfHeating, RateFactorTemperatureDerivativeIsTheFitsDerivative) {
  const CompactNetwork compact(t_dependent_network());
  const RateView rates = compact.rate_view();
  for (double T9 : {0.3, 1.0, 2.7, 6.0}) {
    for (int r = 0; r < rates.reaction_count; ++r) {
      const double h = 1e-4 * T9;
      // Richardson-extrapolated central difference: error O(h^4), ~1e-13 relative here.
      const double d1 = (reaction_rate_factor(rates, r, T9 + h, 1e6) - reaction_rate_factor(rates, r, T9 - h, 1e6)) / (2 * h);
      const double d2 =
          (reaction_rate_factor(rates, r, T9 + 2 * h, 1e6) - reaction_rate_factor(rates, r, T9 - 2 * h, 1e6)) / (4 * h);
      const double difference = (4 * d1 - d2) / 3;
      EXPECT_NEAR(reaction_rate_factor_dT9(rates, r, T9, 1e6), difference, 1e-8 * std::fabs(difference)) << T9 << " " << r;
    }
  }
}

}  // namespace
}  // namespace zoneode

