// The REACLIB fits tabulated in T9 for self-heating (network/rate_table.hpp, issue 39, item 4):
// every rate factor read through the table within 1e-10 (relative) of the direct evaluation over
// T9 0.01-10 (and above, where the fits are held at 10) on s16 and the shipped rp-z24 slice with
// partition functions, nearly every reaction read from the table where runs burn (T9 >= 0.5), the
// T-derivative likewise, table_exp against std::exp, and self-heated burns of every method with
// the table against the same burns evaluating the fits directly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <string>
#include <vector>

#include "common/choices.hpp"
#include "integrators/method_data.hpp"
#include "integrators/methods.hpp"
#include "network/compact.hpp"
#include "network/generator.hpp"
#include "network/q_values.hpp"
#include "network/rate_table.hpp"
#include "network/reaclib.hpp"
#include "physics/self_heating.hpp"
#include "physics_testing.hpp"

namespace zoneode {
namespace {

constexpr double table_tolerance = 1e-10;  // relative, tabulated vs direct rate factor

Network rp_z24() {
  const std::string path = std::string(ZONEODE_SOURCE_DIR) + "/inputs/networks/rp-z24.reaclib";
  const std::string list = std::string(ZONEODE_SOURCE_DIR) + "/inputs/networks/rp-z24.nuclides";
  Network network = read_reaclib(path, read_nuclide_list(list));
  apply_q_values(network, QValueSource::masses, path);
  return network;
}

struct TableCheck {
  double worst = 0.0;             // rate factors, relative
  double worst_slope = 0.0;       // d rate factor / d T9, relative to rate factor / T9
  double worst_direct_share = 0;  // the largest share of reactions read directly at T9 >= 0.5
};

// The rate factors (and their T9 derivatives) with the table against the direct evaluation at
// T9 log-spaced (off the nodes) from 0.01 to 30 and rho 1e6.
TableCheck check_table(const CompactNetwork& compact, double step = RateTable::default_step) {
  const RateView direct = compact.rate_view();
  const RateTable table(direct, RateTable::default_T9_min, step);
  RateView tabulated = direct;
  tabulated.fit_table = &table.view();
  const int R = direct.reaction_count;
  std::vector<double> a(R), b(R), slopes(R);
  TableCheck c;
  const int samples = 5000;
  for (int k = 0; k < samples; ++k) {
    const double T9 = 0.01 * std::exp(std::log(3000.0) * (k + 0.37) / samples);
    zone_rate_factors(tabulated, T9, 1e6, a.data());
    zone_rate_factors(direct, T9, 1e6, b.data());
    for (int r = 0; r < R; ++r) c.worst = std::max(c.worst, std::fabs(a[r] / b[r] - 1.0));
    if (k % 20 == 0) {
      if (tabulated_rate_factor_slopes(tabulated, T9, 1e6, slopes.data())) {
        for (int r = 0; r < R; ++r) {
          const double db = reaction_rate_factor_dT9(direct, r, T9, 1e6);
          c.worst_slope = std::max(c.worst_slope, std::fabs(slopes[r] - db) / (b[r] / T9));
        }
      }
    }
    if (T9 >= 0.5 && T9 <= 10.0) {
      int j = 0;
      double t = 0.0;
      EXPECT_TRUE(rate_table_position(table.view(), T9, j, t));
      const int direct_count = table.view().direct_offsets[j + 1] - table.view().direct_offsets[j];
      c.worst_direct_share = std::max(c.worst_direct_share, static_cast<double>(direct_count) / R);
    }
  }
  std::printf("  %d reactions, %d intervals, %.1f MiB: worst %.2e (build %.2e), slope %.2e, read directly at "
              "T9 0.5-10 <= %.1f%%\n",
              R, table.view().intervals, table.bytes() / 1048576.0, c.worst, table.build_error(), c.worst_slope,
              100.0 * c.worst_direct_share);
  return c;
}

TEST(RateTable, S16RateFactorsWithin1e10OfTheFits) {
  PhysicsOptions on;
  on.self_heating = true;
  const CompactNetwork compact(generate_network(generator_preset("s16")), on);
  const TableCheck c = check_table(compact);
  EXPECT_LE(c.worst, table_tolerance);
  EXPECT_LE(c.worst_slope, 1e-8);
  EXPECT_EQ(c.worst_direct_share, 0.0);
}

TEST(RateTable, RpZ24WithPartitionFunctionsWithin1e10OfTheFits) {
  PhysicsOptions on;
  on.self_heating = true;
  on.partition_functions = true;
  const CompactNetwork compact(rp_z24(), on);
  const TableCheck c = check_table(compact);
  EXPECT_LE(c.worst, table_tolerance);
  EXPECT_LE(c.worst_slope, 1e-8);
  // A few sets run away near T9 10 or change too fast at low T9 for the grid: read directly in those
  // intervals only (1.8%; 3.2% when a reaction was read only on its longest run of good intervals).
  EXPECT_LE(c.worst_direct_share, 0.025);
}

// A grid 4x coarser passes its own check only by reading most reactions directly: the share test
// above is what catches a table that no longer interpolates (so would a wrong derivative).
TEST(RateTable, ACoarseGridFallsBackToTheFitsInsteadOfErring) {
  PhysicsOptions on;
  on.self_heating = true;
  const CompactNetwork compact(rp_z24(), on);
  const TableCheck c = check_table(compact, 4 * RateTable::default_step);
  EXPECT_LE(c.worst, table_tolerance);
  EXPECT_GT(c.worst_direct_share, 0.05);
}

TEST(RateTable, TableExpWithinFewUlpOfExp) {
  double worst = 0.0;
  for (int k = 0; k <= 200000; ++k) {
    const double x = -700.0 + 1400.0 * k / 200000.0 + 1e-7 * (k % 7);
    worst = std::max(worst, std::fabs(table_exp(x) / std::exp(x) - 1.0));
  }
  std::printf("  table_exp: worst %.2e relative over [-700, 700]\n", worst);
  EXPECT_LE(worst, 4e-16);  // a few ulp
}

// The interpolation loop and the fused rate factors compiled for AVX2 (four reactions an
// instruction) and for the baseline give the same bits at every third interval and four positions,
// on rp-z24 (887 reactions, the vector loop's remainder too; powers of rho 0-2 and captures), s16
// (47) and s365 (3,921: one past a block of 4, where rp-z24 and s16 are three past); the inline
// template, as the table's build check calls it, too. The fused factors read their lambdas over the
// padded node rows (node_stride, a multiple of 8): the padding is zero and never reaches out. Each
// instruction set the CPU has (AVX-512 where present) against the baseline.
TEST(RateTable, Avx2AndBaselineGiveTheSameBits) {
  if (!rate_table_avx2_available()) GTEST_SKIP() << "this CPU has no AVX2: only the baseline loop runs here";
  for (const Network& network :
       {rp_z24(), generate_network(generator_preset("s16")), generate_network(generator_preset("s365"))}) {
    const CompactNetwork compact(network);
    const RateTable table(compact.rate_view());
    const RateTableView& view = table.view();
    const int R = view.reaction_count;
    ASSERT_EQ(view.node_stride % 8, 0);
    ASSERT_GE(view.node_stride, R);
    ASSERT_LT(view.node_stride, R + 8);
    for (int row = 0; row < 3 * (view.intervals + 1); ++row)
      for (int r = R; r < view.node_stride; ++r) ASSERT_EQ(view.nodes[static_cast<std::size_t>(row) * view.node_stride + r], 0.0);
    // One slot past R in each output: the loops write the R reactions and nothing after them.
    std::vector<double> wide(R + 1, -1.0), baseline(R + 1, -1.0), inline_loop(R + 1, -1.0);
    const double rho = 3.7e7;
    const double rho_power[5] = {1.0, rho, rho * rho, rho * rho * rho, rho * rho * rho * rho};
    std::vector<RateTableIsa> isas = {RateTableIsa::avx2};
    if (rate_table_avx512_available()) isas.push_back(RateTableIsa::avx512);
    int compared = 0;
    for (const RateTableIsa isa : isas)
    for (int j = 0; j < view.intervals; j += 3) {
      for (double t : {0.0, 0.137, 0.5, 0.999}) {
        rate_table_lambdas_wide(view, j, t, wide.data(), isa);
        rate_table_lambdas_wide(view, j, t, baseline.data(), RateTableIsa::baseline);
        rate_table_lambdas(view, j, t, inline_loop.data());
        ASSERT_EQ(std::memcmp(wide.data(), baseline.data(), R * sizeof(double)), 0) << "interval " << j << " t " << t;
        ASSERT_EQ(std::memcmp(wide.data(), inline_loop.data(), R * sizeof(double)), 0) << "interval " << j << " t " << t;
        // The fused factors (AVX2: the padded lambdas, then the products with the powers by masks;
        // baseline: the same with the powers by a lookup), against the products written out.
        rate_table_factors_wide(view, j, t, rho_power, compact.density_power.data(), compact.identical_factor.data(),
                                wide.data(), isa);
        rate_table_factors_wide(view, j, t, rho_power, compact.density_power.data(), compact.identical_factor.data(),
                                baseline.data(), RateTableIsa::baseline);
        for (int r = 0; r < R; ++r)
          inline_loop[r] = rho_power[compact.density_power[r]] * inline_loop[r] * compact.identical_factor[r];
        ASSERT_EQ(std::memcmp(wide.data(), baseline.data(), R * sizeof(double)), 0) << "factors, interval " << j;
        ASSERT_EQ(std::memcmp(wide.data(), inline_loop.data(), R * sizeof(double)), 0) << "factors, interval " << j;
        ASSERT_EQ(wide[R], -1.0);
        ASSERT_EQ(baseline[R], -1.0);
        ++compared;
      }
    }
    EXPECT_GT(compared, 500);
    std::printf("  %d reactions (node_stride %d): %d positions, %s\n", R, view.node_stride, compared,
                isas.size() > 1 ? "AVX2 and AVX-512 against the baseline" : "AVX2 against the baseline (no AVX-512 here)");
  }
}

// The GPU backend uploads the table and its kernels read it a reaction at a time (a thread per
// reaction: tabulated_rate_factor, tabulated_rate_factor_dT9, the direct flags where the CPU's
// loops overwrite the direct lists; the serial kernels' loops over them, tabulated_rate_factors_each
// and tabulated_rate_factor_slopes_each): the same bits as the CPU's loops (zone_rate_factors,
// tabulated_rate_factor_slopes) at 2,000 T9 from 0.01 to 12, on rp-z24 with partition functions
// (887 reactions, a few read directly in some intervals, captures' rho powers) and s16; the flags
// are the lists.
TEST(RateTable, EachReactionReadAloneGivesTheLoopsBits) {
  PhysicsOptions on;
  on.self_heating = true;
  on.partition_functions = true;
  for (const Network& network : {rp_z24(), generate_network(generator_preset("s16"))}) {
    const CompactNetwork compact(network, on);
    const RateView direct = compact.rate_view();
    const RateTable table(direct);
    const RateTableView& view = table.view();
    RateView tabulated = direct;
    tabulated.fit_table = &view;
    const int R = view.reaction_count;
    for (int j = 0; j < view.intervals; ++j) {
      std::vector<char> listed(R, 0);
      for (int k = view.direct_offsets[j]; k < view.direct_offsets[j + 1]; ++k) listed[view.direct[k]] = 1;
      for (int r = 0; r < R; ++r) ASSERT_EQ(rate_table_direct(view, j, r), listed[r] != 0) << "interval " << j;
    }
    std::vector<double> loop(R), loop_slopes(R), each(R);
    const double rho = 3.7e7;
    long compared = 0, direct_reads = 0, slopes_compared = 0;
    for (int k = 0; k < 2000; ++k) {
      const double T9 = 0.01 * std::exp(std::log(1200.0) * (k + 0.29) / 2000);
      zone_rate_factors(tabulated, T9, rho, loop.data());
      int j = 0;
      double t = 0.0;
      ASSERT_TRUE(rate_table_position(view, reaclib_fit_T9(T9), j, t)) << "T9 " << T9;
      ASSERT_TRUE(tabulated_rate_factors_each(tabulated, T9, rho, each.data()));  // the serial device kernels' loop
      ASSERT_EQ(std::memcmp(each.data(), loop.data(), R * sizeof(double)), 0) << "T9 " << T9;
      const HermiteWeights weights = hermite_weights(t);
      const ReaclibPowers fit = reaclib_powers(reaclib_fit_T9(T9));
      for (int r = 0; r < R; ++r) {
        const double one = tabulated_rate_factor(tabulated, view, j, weights, r, T9, fit, rho);
        ASSERT_EQ(std::memcmp(&one, &loop[r], sizeof one), 0) << "reaction " << r << " at T9 " << T9;
        direct_reads += rate_table_direct(view, j, r) ? 1 : 0;
        ++compared;
      }
      const bool slopes_each = tabulated_rate_factor_slopes_each(tabulated, T9, rho, each.data());
      if (!tabulated_rate_factor_slopes(tabulated, T9, rho, loop_slopes.data())) {
        EXPECT_GT(T9, reaclib_fit_max_T9);
        EXPECT_FALSE(slopes_each);
        continue;
      }
      ASSERT_TRUE(slopes_each);
      ASSERT_EQ(std::memcmp(each.data(), loop_slopes.data(), R * sizeof(double)), 0) << "slopes at T9 " << T9;
      ASSERT_TRUE(rate_table_slope_position(view, T9, j, t));
      const HermiteWeights slope_weights = hermite_weight_slopes(t), value_weights = hermite_weights(t);
      for (int r = 0; r < R; ++r) {
        const double one = tabulated_rate_factor_dT9(tabulated, view, j, value_weights, slope_weights, r, T9, fit, rho);
        ASSERT_EQ(std::memcmp(&one, &loop_slopes[r], sizeof one), 0) << "slope of reaction " << r << " at T9 " << T9;
        ++slopes_compared;
      }
    }
    std::printf("  %d reactions: %ld rate factors and %ld slopes bit for bit, %ld of them read directly\n", R,
                compared, slopes_compared, direct_reads);
    EXPECT_GT(slopes_compared, compared * 9 / 10);
    if (R > 500) EXPECT_GT(direct_reads, 0) << "rp-z24: the direct flags were never exercised";
  }
}

// One He burn of s16 at T9 2, rho 1e6 with self-heating, the table's rate factors against the fits
// evaluated directly (the same MethodData with its view's table removed).
TEST(RateTable, SelfHeatedBurnsAgreeWithTheDirectFits) {
  PhysicsOptions on;
  on.self_heating = true;
  const Network network = generate_network(generator_preset("s16"));
  const CompactNetwork compact(network, on);
  std::vector<double> Y0(network.species_count(), 0.0);
  for (int i = 0; i < network.species_count(); ++i) {
    if (network.species[i].name == "he4") Y0[i] = 0.9 / 4.0;
    if (network.species[i].name == "c12") Y0[i] = 0.1 / 12.0;
  }
  for (IntegrationMethod method : {IntegrationMethod::asymptotic, IntegrationMethod::qss2, IntegrationMethod::implicit,
                                   IntegrationMethod::bdf}) {
    IntegratorSettings s;
    s.method = method;
    s.schedule = StepSchedule::adaptive;
    s.start_time = 1e-10;
    s.end_time = 1e-3;
    s.rtol = 1e-6;
    s.atol = 1e-20;
    s.max_mass_drift = 1e-2;
    const MethodData data(method, compact);
    ASSERT_NE(data.fit_table(), nullptr);
    MethodNetwork direct = data.view();
    direct.rates.fit_table = nullptr;
    std::vector<double> work(data.workspace_doubles());
    std::vector<double> Ya = Y0, Yb = Y0;
    ZoneResult ra, rb;
    integrate_zone(data.view(), s, 2.0, 1e6, Ya.data(), work.data(), ra);
    integrate_zone(direct, s, 2.0, 1e6, Yb.data(), work.data(), rb);
    ASSERT_EQ(ra.status, zone_ok);
    ASSERT_EQ(rb.status, zone_ok);
    double worst = std::fabs(ra.final_T9 / rb.final_T9 - 1.0);
    for (int i = 0; i < network.species_count(); ++i) {
      if (Yb[i] > 1e-12) worst = std::max(worst, std::fabs(Ya[i] / Yb[i] - 1.0));
    }
    std::printf("  %s: T9 2 -> %.6f, %lld / %lld steps, worst relative difference %.2e\n",
                std::string(integration_method_name(method)).c_str(), rb.final_T9, static_cast<long long>(ra.steps),
                static_cast<long long>(rb.steps), worst);
    EXPECT_GT(rb.final_T9, 2.1);  // it heats
    EXPECT_LE(worst, 1e-10);  // measured 3e-15 .. 4e-13
  }
}

// Only self-heated runs with physics.eos: table read the table; unheated runs and eos: exact (the
// CPU reference for GPU runs) evaluate the fits directly.
TEST(RateTable, BuiltOnlyForSelfHeatingWithTheEosTable) {
  const Network network = generate_network(generator_preset("s16"));
  PhysicsOptions heated;
  heated.self_heating = true;
  PhysicsOptions exact = heated;
  exact.eos = EosEvaluation::exact;
  for (IntegrationMethod method : {IntegrationMethod::asymptotic, IntegrationMethod::implicit}) {
    EXPECT_EQ(MethodData(method, CompactNetwork(network, {})).view().rates.fit_table, nullptr);
    EXPECT_EQ(MethodData(method, CompactNetwork(network, exact)).view().rates.fit_table, nullptr);
    const MethodData with(method, CompactNetwork(network, heated));
    ASSERT_NE(with.fit_table(), nullptr);
    EXPECT_EQ(with.view().rates.fit_table, &with.fit_table()->view());
  }
}

}  // namespace
}  // namespace zoneode
