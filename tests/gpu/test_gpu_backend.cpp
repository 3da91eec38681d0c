// The GPU backend through the Backend interface, on a machine with a GPU (ctest -L gpu): a zone
// with non-finite input fails alone while its neighbours match the CPU backend; every built
// variant's qss2 matches the CPU's qss2. And, on any machine, final's term chunks: every species'
// F+ and F- terms, in CSR order, read back from the column-stored chunks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "runtime/kernel_launch.hpp"
#include "network/generator.hpp"

namespace zoneode {
namespace {

void integrate(Backend& backend, const CompactNetwork& compact, const IntegratorSettings& settings, ZoneBatch& batch) {
  backend.prepare(compact, settings);
  const ZoneSpan zones = batch.span(0, batch.count);
  backend.upload(zones);
  backend.integrate();
  backend.download(zones);
}

TEST(GpuBackend, ABadZoneFailsAloneAndItsNeighboursMatchTheCpu) {
  const Network network = generate_network({30, 250, 5});
  const CompactNetwork compact(network);
  IntegratorSettings settings;
  settings.start_time = 1e-10;
  settings.end_time = 1e-4;
  settings.dt_fraction = 0.05;
  settings.max_mass_drift = 1.0;
  ZoneBatch cpu, gpu;
  for (ZoneBatch* batch : {&cpu, &gpu}) {
    batch->resize(24, network.species_count());
    for (int z = 0; z < 24; ++z) {
      batch->temperature[z] = 0.5 + 0.1 * z;
      batch->density[z] = 1e4 * std::pow(1.5, z);
      batch->zone_abundances(z)[network.find_species("he4")] = 0.5 / 4;
      batch->zone_abundances(z)[network.find_species("p")] = 0.5;
    }
    batch->density[5] = NAN;
    batch->zone_abundances(9)[0] = INFINITY;
  }
  std::unique_ptr<Backend> device;
  try {
    device = make_backend({IntegrationMethod::asymptotic, BackendKind::gpu, KernelVariant::baseline}, {});
  } catch (const std::exception& error) {
    GTEST_SKIP() << "no usable GPU: " << error.what();
  }
  auto host = make_backend({IntegrationMethod::asymptotic, BackendKind::cpu, KernelVariant::baseline}, {});
  integrate(*host, compact, settings, cpu);
  integrate(*device, compact, settings, gpu);
  for (int z = 0; z < 24; ++z) {
    EXPECT_EQ(gpu.results[z].status, cpu.results[z].status) << "zone " << z;
    EXPECT_EQ(gpu.results[z].steps, cpu.results[z].steps) << "zone " << z;
    // The same steps from the same time: the time reached is the same arithmetic on both.
    EXPECT_EQ(gpu.results[z].time_reached, cpu.results[z].time_reached) << "zone " << z;
    EXPECT_EQ(gpu.results[z].time_reached, z == 5 || z == 9 ? settings.start_time : settings.end_time) << "zone " << z;
    if (z == 5 || z == 9) {
      EXPECT_EQ(gpu.results[z].status, zone_bad_input);
      continue;
    }
    EXPECT_EQ(gpu.results[z].status, zone_ok);
    for (int i = 0; i < network.species_count(); ++i) {
      const double a = cpu.zone_abundances(z)[i], b = gpu.zone_abundances(z)[i];
      EXPECT_LE(std::fabs(a - b), 1e-28 + 1e-12 * std::fmax(std::fabs(a), std::fabs(b))) << "zone " << z << " species " << i;
    }
    const double ea = cpu.results[z].energy_generation_rate, eb = gpu.results[z].energy_generation_rate;
    EXPECT_LE(std::fabs(ea - eb), 1e-12 * std::fmax(std::fabs(ea), std::fabs(eb))) << "zone " << z;
  }
}

// Zones over T9 0.5..2.8 and rho 1e4..1e8 of a generated network, proton and helium rich.
ZoneBatch qss2_zones(const Network& network) {
  ZoneBatch batch;
  batch.resize(24, network.species_count());
  for (int z = 0; z < 24; ++z) {
    batch.temperature[z] = 0.5 + 0.1 * z;
    batch.density[z] = 1e4 * std::pow(1.5, z);
    batch.zone_abundances(z)[network.find_species("he4")] = 0.5 / 4;
    batch.zone_abundances(z)[network.find_species("p")] = 0.5;
  }
  return batch;
}

// Every built variant's qss2 (kernels/qss2/zone_team_qss2.hpp, through run_zones) against the CPU
// backend's qss2 (integrators/qss2.hpp) on the same zones. Geometric schedule: the same steps,
// so the same status, step count and flux evaluations, and abundances and energy rates within
// 1e-12 (the sums' order differs). Adaptive schedule (rtol 1e-5, dt growth up to 5x, so that
// steps are rejected and the GPU's retry path runs): the accepted and rejected step counts of
// every zone are compared and their differences printed; where both are equal the abundances
// must agree to 1e-10 (the same step sequence; rounding differences near a 1.0 error norm are
// what may change a count).
TEST(GpuBackend, EveryVariantsQss2MatchesTheCpuQss2) {
  const Network network = generate_network({30, 250, 5});
  const CompactNetwork compact(network);
  IntegratorSettings settings;
  settings.method = IntegrationMethod::qss2;
  settings.start_time = 1e-10;
  settings.end_time = 1e-4;
  settings.dt_fraction = 0.05;
  settings.max_mass_drift = 1.0;
  settings.max_dt_growth = 5.0;
  settings.rtol = 1e-5;
  settings.atol = 1e-20;
  // The CPU results first (on any machine: they check that the adaptive runs reject steps).
  const StepSchedule schedules[2] = {StepSchedule::geometric, StepSchedule::adaptive};
  std::vector<ZoneBatch> cpu;
  for (StepSchedule schedule : schedules) {
    settings.schedule = schedule;
    cpu.push_back(qss2_zones(network));
    auto host = make_backend({IntegrationMethod::qss2, BackendKind::cpu, KernelVariant::baseline}, {});
    integrate(*host, compact, settings, cpu.back());
    std::int64_t rejected = 0;
    for (int z = 0; z < 24; ++z) {
      ASSERT_EQ(cpu.back().results[z].status, zone_ok) << "zone " << z;
      rejected += cpu.back().results[z].rejected_steps;
    }
    if (schedule == StepSchedule::adaptive) EXPECT_GT(rejected, 0) << "the retry path is not exercised";
  }
  for (KernelVariant variant : built_kernel_variants()) {
    const std::string name(kernel_variant_name(variant));
    std::unique_ptr<Backend> device;
    try {
      device = make_backend({IntegrationMethod::qss2, BackendKind::gpu, variant}, {});
    } catch (const std::exception& error) {
      GTEST_SKIP() << "no usable GPU: " << error.what();
    }
    for (int k = 0; k < 2; ++k) {
      settings.schedule = schedules[k];
      const bool adaptive = schedules[k] == StepSchedule::adaptive;
      SCOPED_TRACE("variant " + name + (adaptive ? ", adaptive" : ", geometric"));
      ZoneBatch gpu = qss2_zones(network);
      integrate(*device, compact, settings, gpu);
      int count_differences = 0;
      for (int z = 0; z < 24; ++z) {
        const ZoneResult &a = cpu[k].results[z], &b = gpu.results[z];
        EXPECT_EQ(b.status, a.status) << "zone " << z;
        const bool same_steps = b.steps == a.steps && b.rejected_steps == a.rejected_steps;
        if (!adaptive) {
          EXPECT_TRUE(same_steps) << "zone " << z;
        } else if (!same_steps) {
          ++count_differences;
          std::printf("qss2 %s zone %d: steps %lld/%lld (CPU) against %lld/%lld (GPU), accepted/rejected\n",
                      name.c_str(), z, static_cast<long long>(a.steps), static_cast<long long>(a.rejected_steps),
                      static_cast<long long>(b.steps), static_cast<long long>(b.rejected_steps));
          continue;
        }
        EXPECT_EQ(b.rhs_evaluations, a.rhs_evaluations) << "zone " << z;
        const double bound = adaptive ? 1e-10 : 1e-12;
        for (int i = 0; i < network.species_count(); ++i) {
          const double x = cpu[k].zone_abundances(z)[i], y = gpu.zone_abundances(z)[i];
          EXPECT_LE(std::fabs(x - y), 1e-28 + bound * std::fmax(std::fabs(x), std::fabs(y)))
              << "zone " << z << " species " << i;
        }
        const double ea = a.energy_generation_rate, eb = b.energy_generation_rate;
        EXPECT_LE(std::fabs(ea - eb), bound * std::fmax(std::fabs(ea), std::fabs(eb))) << "zone " << z;
      }
      // Rounding may flip a controller decision in a zone or two, not in most.
      EXPECT_LE(count_differences, 2) << "zones whose adaptive step counts differ";
      std::printf("qss2 %s %s: %d of 24 zones with other step counts than the CPU\n", name.c_str(),
                  adaptive ? "adaptive" : "geometric", count_differences);
    }
  }
}


}  // namespace
}  // namespace zoneode
