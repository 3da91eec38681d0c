// Zones depend on their global index only; results do not depend on threads or zone order.
#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>
#include <cstring>

#include "backends/cpu/cpu_backend.hpp"
#include "network/generator.hpp"
#include "zones/zones.hpp"

namespace zoneode {
namespace {

TEST(Zones, CounterUniformIsStatelessAndUniform) {
  EXPECT_EQ(counter_uniform(7, 1, 123), counter_uniform(7, 1, 123));
  EXPECT_NE(counter_uniform(7, 1, 123), counter_uniform(7, 2, 123));
  EXPECT_NE(counter_uniform(7, 1, 123), counter_uniform(8, 1, 123));
  // Mean and variance of 1e5 deviates against 1/2 and 1/12 (5 sigma: 0.0046 and 0.0014).
  double sum = 0.0, squares = 0.0;
  const int n = 100000;
  for (int k = 0; k < n; ++k) {
    const double u = counter_uniform(3, 1, k);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    squares += u * u;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.0046);
  EXPECT_NEAR(squares / n - (sum / n) * (sum / n), 1.0 / 12.0, 0.0014);
}

TEST(Zones, ProfilesSpanTheirRange) {
  FieldProfile linear{"linear", 0, 1.0, 3.0};
  EXPECT_DOUBLE_EQ(profile_value(linear, 1, 1, 0, 5), 1.0);
  EXPECT_DOUBLE_EQ(profile_value(linear, 1, 1, 2, 5), 2.0);
  EXPECT_DOUBLE_EQ(profile_value(linear, 1, 1, 4, 5), 3.0);
  FieldProfile log{"log", 0, 1e4, 1e8};
  EXPECT_NEAR(profile_value(log, 1, 1, 2, 5), 1e6, 1e-6);
  FieldProfile random{"log_random", 0, 1e4, 1e8};
  for (int k = 0; k < 100; ++k) {
    const double v = profile_value(random, 9, 2, k, 100);
    EXPECT_GE(v, 1e4);
    EXPECT_LE(v, 1e8);
  }
}

// Integrates every zone of the batch with the CPU backend on `threads` OpenMP threads.
void integrate_on_cpu(const CompactNetwork& compact, const IntegratorSettings& settings, ZoneBatch& batch,
                      int threads = 0) {
  CpuBackend backend(BackendOptions{threads, 0, 0});
  backend.prepare(compact, settings);
  const ZoneSpan zones = batch.span(0, batch.count);
  backend.upload(zones);
  backend.integrate();
  backend.download(zones);
}

// A small generated network burnt in a batch of zones.
struct Fixture {
  Network network = generate_network({30, 250, 5});
  CompactNetwork compact{network};
  IntegratorSettings settings;
  ZoneBatch batch;
  Fixture() {
    settings.start_time = 1e-10;
    settings.end_time = 1e-4;
    settings.dt_fraction = 0.05;
    settings.max_mass_drift = 1.0;
    batch.resize(24, network.species_count());
    for (int z = 0; z < 24; ++z) {
      batch.temperature[z] = profile_value({"random", 0, 0.5, 3.0}, 11, 1, z, 24);
      batch.density[z] = profile_value({"log_random", 0, 1e4, 1e8}, 11, 2, z, 24);
      double* Y = batch.zone_abundances(z);
      Y[network.find_species("he4")] = 0.5 / 4;
      Y[network.find_species("p")] = 0.5;
    }
  }
};

TEST(Zones, ResultsAreBitwiseIndependentOfThreadsAndOrder) {
  Fixture one, two, reversed;
  const int threads_before = omp_get_max_threads();
  integrate_on_cpu(one.compact, one.settings, one.batch, 1);
  integrate_on_cpu(two.compact, two.settings, two.batch, 2);
  omp_set_num_threads(threads_before);  // the backend sets the process-wide count
  // The same zones in reverse order.
  const int n = static_cast<int>(reversed.batch.count), S = reversed.network.species_count();
  ZoneBatch flipped;
  flipped.resize(n, S);
  for (int z = 0; z < n; ++z) {
    flipped.temperature[z] = reversed.batch.temperature[n - 1 - z];
    flipped.density[z] = reversed.batch.density[n - 1 - z];
    std::memcpy(flipped.zone_abundances(z), reversed.batch.zone_abundances(n - 1 - z), S * sizeof(double));
  }
  integrate_on_cpu(reversed.compact, reversed.settings, flipped);
  for (int z = 0; z < n; ++z) {
    EXPECT_EQ(std::memcmp(one.batch.zone_abundances(z), two.batch.zone_abundances(z), S * sizeof(double)), 0) << z;
    EXPECT_EQ(std::memcmp(one.batch.zone_abundances(z), flipped.zone_abundances(n - 1 - z), S * sizeof(double)), 0) << z;
    EXPECT_EQ(one.batch.results[z].steps, two.batch.results[z].steps);
    EXPECT_EQ(std::memcmp(&one.batch.results[z].energy_generation_rate, &flipped.results[n - 1 - z].energy_generation_rate,
                          sizeof(double)), 0);
  }
  // The zones are not all alike, so the comparison has teeth.
  EXPECT_NE(std::memcmp(one.batch.zone_abundances(0), one.batch.zone_abundances(1), S * sizeof(double)), 0);
}

TEST(Zones, OneFailingZoneLeavesTheOthersUntouched) {
  Fixture clean, planted;
  planted.batch.density[5] = NAN;  // a bad zone in the middle
  integrate_on_cpu(clean.compact, clean.settings, clean.batch);
  integrate_on_cpu(planted.compact, planted.settings, planted.batch);
  const int S = clean.network.species_count();
  for (int z = 0; z < 24; ++z) {
    if (z == 5) {
      EXPECT_EQ(planted.batch.results[z].status, zone_bad_input);
      continue;
    }
    EXPECT_EQ(std::memcmp(clean.batch.zone_abundances(z), planted.batch.zone_abundances(z), S * sizeof(double)), 0);
  }
}

}  // namespace
}  // namespace zoneode

namespace zoneode {
namespace {

TEST(Zones, GeneratedNetworkConservesMassWhereTheMethodIsAccurate) {
  // Every generated reaction conserves A, so sum A Y changes only by the update's own error; at
  // T9 = 1 (far from the method's limits) that is rounding: a reaction that loses or gains a
  // nucleon, or a wrong stoichiometric factor, shows up far above this bound.
  const Network network = generate_network(generator_preset("default"));
  const CompactNetwork compact(network);
  IntegratorSettings settings;
  settings.start_time = 1e-10;
  settings.end_time = 1.0;  // [s]: long enough to burn a good part of the helium
  ZoneBatch batch;
  batch.resize(2, network.species_count());
  for (int z = 0; z < 2; ++z) {
    batch.temperature[z] = 1.0;
    batch.density[z] = z == 0 ? 1e5 : 1e7;
    batch.zone_abundances(z)[network.find_species("he4")] = 0.9 / 4;
    batch.zone_abundances(z)[network.find_species("c12")] = 0.1 / 12;
  }
  integrate_on_cpu(compact, settings, batch);
  for (int z = 0; z < 2; ++z) {
    EXPECT_EQ(batch.results[z].status, zone_ok);
    EXPECT_LT(std::fabs(batch.results[z].mass_fraction_sum - 1.0), 1e-12);
    EXPECT_GT(batch.results[z].energy_generation_rate, 0.0);  // helium burning releases energy
    // Something burnt: more than 1% of the helium is gone.
    EXPECT_LT(batch.zone_abundances(z)[network.find_species("he4")], 0.99 * 0.9 / 4);
  }
}

}  // namespace
}  // namespace zoneode
