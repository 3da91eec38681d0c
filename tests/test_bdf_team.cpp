// bdf run by a team of threads (kernels/bdf/bdf_team.hpp), on the CPU, the team emulated serially
// (emulated_team.hpp). Checks that
// - the team's result is the same bits whatever the thread order within a phase (the barriers are
//   where they must be);
// - it takes the serial bdf's path (the same accepted and rejected steps, RHS evaluations,
//   Jacobians and factorisations) on at least 7 of 8 zones per case and agrees with it there within
//   1e-10 (only the reductions' rounding differs);
// - where a zone's path differs, the difference is no larger than the serial method's own for rtol
//   one ulp away, or 10 rtol.
// The serial path holds because bdf rounds its step factors to a grid (bdf.hpp,
// quantize_step_factor): with the team's growth factor left unrounded (a planted fault, tried by
// hand) 0-1 of 8 zones per case keep the serial path and every case fails; with it, 8 of 8 on every
// case, within 5.2e-12 since the serial method's species sums round as the team's (1.4e-11 with
// them in list order; 7e-11 before the Newton weight of 2026-12-07).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bdf/bdf_team.hpp"
#include "emulated_team.hpp"
#include "implicit_testing.hpp"
#include "integrators/implicit_schedule.hpp"
#include "integrators/method_data.hpp"
#include "network/analytic.hpp"
#include "network/compact.hpp"
#include "network/generator.hpp"
#include "network/reaclib.hpp"
#include "team_testing.hpp"

namespace zoneode {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct Outcome {
  std::vector<double> Y;
  ZoneResult result;
};

IntegratorSettings bdf_settings(double end_time, double rtol) {
  IntegratorSettings s;
  s.method = IntegrationMethod::bdf;
  s.schedule = StepSchedule::adaptive;
  s.start_time = 1e-10;
  s.end_time = end_time;
  s.dt_initial = 1e-10;
  s.rtol = rtol;
  s.atol = 1e-12;
  return s;
}

template <bool PHYSICS = false, bool HEATING = false>
Outcome run_team(const MethodNetwork& network, const ImplicitScheduleView& schedule, const IntegratorSettings& s,
                 const TeamTestZone& zone, const EmulatedTeam& team) {
  const int n = network.step.species_count;
  const ImplicitTeamSplit split = implicit_team_split(network.implicit.layout, n);
  // NaN: a read before a write shows
  std::vector<double> hot(split.hot, NAN), cold(split.cold, NAN),
      history(bdf_team::history_doubles(n, HEATING && network.step.self_heating != 0), NAN);
  const ImplicitTeamArrays w = implicit_team_arrays(network.implicit.layout, n, hot.data(), cold.data());
  std::copy(zone.Y.begin(), zone.Y.end(), w.Y);
  Outcome out;
  out.result = bdf_team::integrate_zone<PHYSICS, HEATING>(team, network, schedule, s, zone.T9, zone.rho, w,
                                                          history.data(),
                                                          implicit_team::LuColumns{network.implicit.lu.columns});
  out.Y.assign(w.Y, w.Y + n);
  return out;
}

Outcome run_serial(const MethodNetwork& network, const IntegratorSettings& s, const TeamTestZone& zone) {
  std::vector<double> workspace(bdf::workspace_doubles(network), NAN);
  Outcome out{zone.Y, {}};
  bdf::integrate_zone(network, s, zone.T9, zone.rho, out.Y.data(), workspace.data(), out.result);
  return out;
}

bool same_path(const ZoneResult& a, const ZoneResult& b) {
  return a.status == b.status && a.steps == b.steps && a.rejected_steps == b.rejected_steps &&
         a.rhs_evaluations == b.rhs_evaluations && a.jacobian_evaluations == b.jacobian_evaluations &&
         a.factorizations == b.factorizations;
}

// The largest relative difference over abundances above atol in either.
double worst_difference(const std::vector<double>& a, const std::vector<double>& b, double atol) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::fmax(std::fabs(a[i]), std::fabs(b[i])) <= atol) continue;
    worst = std::fmax(worst, std::fabs(a[i] - b[i]) / std::fmax(std::fabs(a[i]), std::fabs(b[i])));
  }
  return worst;
}

struct CaseSummary {
  int zones = 0, same = 0;
  double worst_same = 0.0;
};

template <bool PHYSICS = false>
CaseSummary check_network(const Network& raw, double end_time, double rtol, int zone_count,
                          const PhysicsOptions& physics = {}) {
  const CompactNetwork compact(raw, physics);
  const MethodData data(IntegrationMethod::bdf, compact);
  const ImplicitSchedule schedule(*data.implicit(), 256);
  const MethodNetwork& network = data.view();
  const IntegratorSettings s = bdf_settings(end_time, rtol);
  IntegratorSettings nudged = s;
  nudged.rtol = std::nextafter(rtol, 1.0);
  CaseSummary summary;
  for (const TeamTestZone& zone : team_test_zones(raw, zone_count, 0.3, 4.0)) {
    SCOPED_TRACE(raw.name + " rtol " + std::to_string(rtol) + " T9 " + std::to_string(zone.T9));
    const Outcome serial = run_serial(network, s, zone);
    EXPECT_EQ(serial.result.status, zone_ok);
    const Outcome first = run_team<PHYSICS>(network, schedule.view(), s, zone, {256, 32, Order::forward});
    for (const EmulatedTeam team : {EmulatedTeam{256, 32, Order::reverse}, EmulatedTeam{256, 32, Order::by_thread_descending}}) {
      const Outcome other = run_team<PHYSICS>(network, schedule.view(), s, zone, team);
      for (std::size_t i = 0; i < first.Y.size(); ++i)
        EXPECT_TRUE(same_bits(first.Y[i], other.Y[i])) << "species " << i << ": the order within a phase matters";
      EXPECT_TRUE(same_path(first.result, other.result));
    }
    ++summary.zones;
    EXPECT_EQ(first.result.status, serial.result.status);
    const double difference = worst_difference(serial.Y, first.Y, s.atol);
    if (same_path(first.result, serial.result)) {
      ++summary.same;
      summary.worst_same = std::fmax(summary.worst_same, difference);
      // 1e-11: the serial method's species sums round as the team's (species_rates_in_lanes); with
      // them in list order the team was up to 1.4e-11 away on these cases.
      EXPECT_LE(difference, 1e-11) << "the same path, yet more than rounding apart";
      EXPECT_LE(std::fabs(first.result.energy_generation_rate - serial.result.energy_generation_rate),
                1e-10 * std::fabs(serial.result.energy_generation_rate));
    } else {
      const double own = worst_difference(serial.Y, run_serial(network, nudged, zone).Y, s.atol);
      std::printf("    %s T9 %.2f: another path (steps %lld/%lld, LU %lld/%lld), %.3g apart; the serial's own 1-ulp: %.3g\n",
                  raw.name.c_str(), zone.T9, static_cast<long long>(first.result.steps),
                  static_cast<long long>(serial.result.steps), static_cast<long long>(first.result.factorizations),
                  static_cast<long long>(serial.result.factorizations), difference, own);
      EXPECT_LE(difference, std::fmax(10 * own, 10 * rtol)) << "another path, and further than rtol allows";
    }
  }
  std::printf("    %s rtol %g: %d of %d zones on the serial path, within %.3g there\n", raw.name.c_str(), rtol,
              summary.same, summary.zones, summary.worst_same);
  EXPECT_GE(8 * summary.same, 7 * summary.zones) << "fewer than 7 of 8 zones on the serial path";
  return summary;
}

TEST(BdfTeam, TakesTheSerialPathOnGeneratedNetworks) {
  for (double rtol : {1e-6, 1e-8}) {
    check_network(with_electron_captures(generate_network(generator_preset("s16"))), 1e-3, rtol, 8);
    check_network(with_electron_captures(generate_network(generator_preset("default"))), 1e-4, rtol, 8);
  }
  // A linear chain (its Jacobian constant: one evaluation, reused by every step).
  check_network(decay_chain_network({3.0, 0.7, 0.05}), 20.0, 1e-6, 8);
}

TEST(BdfTeam, TakesTheSerialPathWithScreening) {
  const Network network = with_electron_captures(generate_network(generator_preset("default")));
  PhysicsOptions weak, strong;
  weak.screening = ScreeningKind::weak;
  strong.screening = ScreeningKind::chugunov2007;
  for (const PhysicsOptions& physics : {weak, strong}) {
    SCOPED_TRACE("screening " + std::to_string(static_cast<int>(physics.screening)));
    check_network<true>(network, 1e-4, 1e-6, 8, physics);
  }
  check_network<true>(network, 1e-4, 1e-6, 8);  // the physics instantiation with every option off
}

// rp-z12 from the test data (../shared/reaclib), else the rp-z24 slice the project ships.
TEST(BdfTeam, TakesTheSerialPathOnTheReaclibSlice) {
  const std::string dir = ZONEODE_REACLIB_DATA;
  std::string path = dir + "/rp-z12.reaclib", list = dir + "/rp-z12.nuclides";
  if (!std::ifstream(path) || !std::ifstream(list)) {
    path = std::string(ZONEODE_SOURCE_DIR) + "/inputs/networks/rp-z24.reaclib";
    list = std::string(ZONEODE_SOURCE_DIR) + "/inputs/networks/rp-z24.nuclides";
  }
  check_network(read_reaclib(path, read_nuclide_list(list)), 1e-3, 1e-6, 8);
}

// Self-heating (T9 in the history, the bordered Newton matrix): the heated team against the serial
// bdf under the implicit GPU rule (kernels/README.md): the same path (steps, rejections, RHS,
// Jacobians, LUs) on at least 7 of 8 zones, every zone within 1e-3 x rtol on the abundances above
// atol and on T9, bitwise whatever the order within a phase. The cases of the implicit team's test
// (implicit_testing.hpp: He burning on the default network with captures, also weakly screened, and
// the rp slice), T9 rising by percents.
// atol 1e-14: at 1e-16 (the implicit team's heated test) the rp case's worst abundance is 2.9e-16,
// three atol, where the two roundings differ by 1e-9 relative (1e-3 rtol): inside the rule, but by
// 0.4%, on a value the error control weighs as ~atol.
IntegratorSettings bdf_heated_settings(double end_time) {
  IntegratorSettings s = bdf_settings(end_time, 1e-6);
  s.atol = 1e-14;
  return s;
}

HeatedComparison compare_heated(const HeatedCase& c, int target_tasks, bool check_orders) {
  const CompactNetwork compact(c.network, c.physics);
  const MethodData data(IntegrationMethod::bdf, compact);
  // the fits' table where the run reads tables (MethodData's; the GPU backend uploads the same)
  EXPECT_EQ(data.view().rates.fit_table != nullptr, c.physics.eos == EosEvaluation::table);
  const ImplicitSchedule schedule(*data.implicit(), target_tasks);
  const MethodNetwork& network = data.view();
  const IntegratorSettings s = bdf_heated_settings(c.end_time);
  HeatedComparison out;
  out.same_what = "on the serial path";
  for (const TeamTestZone& zone : heated_zones(c)) {
    const Outcome serial = run_serial(network, s, zone);
    const Outcome team = run_team<true, true>(network, schedule.view(), s, zone, {256, 32, Order::forward});
    out.add(serial.Y, serial.result, team.Y, team.result, zone.T9, s.atol, same_path(serial.result, team.result));
    if (check_orders) {
      for (const EmulatedTeam other : {EmulatedTeam{256, 32, Order::reverse}, EmulatedTeam{256, 32, Order::by_thread_descending}}) {
        const Outcome again = run_team<true, true>(network, schedule.view(), s, zone, other);
        out.add_other_order(team.Y, team.result, again.Y, again.result);
      }
    }
  }
  return out;
}

// The implicit team's heated cases, and the rp slice with every other option on too (strong
// screening, partition functions, neutrino losses): 8/8 on the serial path, within 5.3e-10 (an
// abundance of 2.0e-14, twice atol; the other cases within 2.4e-12).
std::vector<std::pair<std::string, HeatedCase>> bdf_heated_cases(EosEvaluation eos = EosEvaluation::exact) {
  std::vector<std::pair<std::string, HeatedCase>> cases = heated_cases(eos);
  for (const auto& [name, c] : heated_cases(eos)) {
    if (name != "rp") continue;
    HeatedCase every = c;
    every.physics.screening = ScreeningKind::chugunov2007;
    every.physics.partition_functions = true;
    every.physics.neutrino_losses = true;
    cases.push_back({"rp every option", every});
  }
  return cases;
}

TEST(BdfTeam, SelfHeatingTakesTheSerialPathUnderTheGpuRule) {
  for (const auto& [name, c] : bdf_heated_cases()) {
    for (int target : {256, 7}) {
      // The sanitizer build checks memory on the weakly screened case (the Woodbury pair and T's
      // column solved together) at the device's task target only (team_testing.hpp).
      if (sanitized_build && (target != 256 || name != "default weak screening")) continue;
      const HeatedComparison r = compare_heated(c, target, target == 256);
      expect_heated_rule(r, bdf_heated_settings(c.end_time).rtol,
                         name + " target " + std::to_string(target) + ": " + r.describe());
    }
  }
}

// With physics.eos: table a self-heated run reads the e-/e+ gas and the REACLIB fits from tables on
// either backend (the GPU backend uploads the host's): the team reads the fits' table a reaction at
// a time (implicit_team::team_rate_factors, temperature_border), the serial method with its vector
// loops, and the team keeps the serial path within the rule on the implicit team's three heated
// cases. Not asserted: the rp slice with every option on (bdf_heated_cases' fourth), also 8/8 on the
// serial path but 1.5e-9 apart on one abundance of 2.0e-14 (two atol; 5.3e-10 with the exact gas
// and the fits: the team's sums round differently, and that species is the case's most sensitive).
TEST(BdfTeam, SelfHeatingWithTheTablesTakesTheSerialPathUnderTheGpuRule) {
  for (const auto& [name, c] : heated_cases(EosEvaluation::table)) {
    if (sanitized_build && name != "rp") continue;
    const HeatedComparison r = compare_heated(c, 256, !sanitized_build);
    expect_heated_rule(r, bdf_heated_settings(c.end_time).rtol, name + " (tables): " + r.describe());
  }
}

// Planted faults of the heated team, each of which must fail the rule on some case: the corner
// dg/dT9 dropped from the Schur complement (the Newton matrix only: modified Newton still
// converges, to other iteration counts), and the rate factors left at the step's T9 instead of the
// iterate's (another right-hand side).
TEST(BdfTeam, ThePlantedSelfHeatingFaultsAreCaught) {
  if (sanitized_build) GTEST_SKIP() << "sanitizer build: the release build runs the planted faults";
  for (const TeamHeatingFault fault :
       {TeamHeatingFault::corner_dropped, TeamHeatingFault::stage_rates_at_step_T9}) {
    int caught = 0;
    for (const auto& [name, c] : heated_cases()) {
      if (caught > 0) break;
      team_heating_fault_for_tests() = fault;
      const HeatedComparison r = compare_heated(c, 256, false);
      team_heating_fault_for_tests() = TeamHeatingFault::none;
      const bool passes = r.passes(bdf_heated_settings(c.end_time).rtol);
      std::printf("  fault %d, %s: %s -> %s\n", static_cast<int>(fault), name.c_str(), r.describe().c_str(),
                  passes ? "passes" : "FAILS the rule");
      caught += passes ? 0 : 1;
    }
    EXPECT_GT(caught, 0) << "fault " << static_cast<int>(fault) << " passes every case";
  }
}

// The serial bdf's right-hand side (species_rates_in_lanes, jacobian.hpp) rounds as the team's
// species_rates_team: bitwise, on s150 (three species of ~690 terms) and rp-z12 with fluxes spread
// over 40 decades; the list-order sum (species_rates) differs, and so does a planted other tree.
TEST(BdfTeam, SerialSpeciesRatesRoundAsTheTeams) {
  std::vector<Network> networks{with_electron_captures(generate_network(generator_preset("s150")))};
  const std::string dir = ZONEODE_REACLIB_DATA;
  if (std::ifstream(dir + "/rp-z12.reaclib") && std::ifstream(dir + "/rp-z12.nuclides"))
    networks.push_back(read_reaclib(dir + "/rp-z12.reaclib", read_nuclide_list(dir + "/rp-z12.nuclides")));
  for (const Network& raw : networks) {
    const CompactNetwork compact(raw, {});
    const StepView net = compact.step_view();
    std::mt19937_64 random(7);
    std::uniform_real_distribution<double> exponent(-30.0, 10.0);
    std::vector<double> flux(net.reaction_count);
    for (double& f : flux) f = std::pow(10.0, exponent(random));
    const int n = net.species_count;
    std::vector<double> team_rates(n, NAN), serial(n, NAN), list_order(n, NAN);
    implicit_team::species_rates_team(EmulatedTeam{256, 32, Order::reverse}, net, flux.data(),
                                      [&](int i, double value) { team_rates[i] = value; });
    species_rates_in_lanes(net, flux.data(), serial.data());
    species_rates(net, flux.data(), list_order.data());
    int list_differs = 0, planted_differs = 0;
    for (int i = 0; i < n; ++i) {
      EXPECT_TRUE(same_bits(team_rates[i], serial[i])) << raw.name << " species " << i;
      list_differs += !same_bits(list_order[i], serial[i]);
      // Planted: the lanes added in another tree, ((v0 + v2) + (v1 + v3)) + ...
      double v[2][8] = {};
      for (int lane = 0; lane < species_sum_lanes; ++lane) {
        double part[2] = {0.0, 0.0};
        species_rate_lane_part(net, i, lane, species_sum_lanes, flux.data(), part);
        v[0][lane] = part[0];
        v[1][lane] = part[1];
      }
      double planted[2];
      for (int s = 0; s < 2; ++s)
        planted[s] = ((v[s][0] + v[s][2]) + (v[s][1] + v[s][3])) + ((v[s][4] + v[s][6]) + (v[s][5] + v[s][7]));
      planted_differs += !same_bits(planted[0] - planted[1], serial[i]);
    }
    std::printf("    %s: %d species, the list order differs on %d, the planted tree on %d\n", raw.name.c_str(), n,
                list_differs, planted_differs);
    EXPECT_GT(list_differs, 0) << "the check cannot tell the orders apart";
    EXPECT_GT(planted_differs, 0) << "the planted tree is not caught";
  }
}

}  // namespace
}  // namespace zoneode
