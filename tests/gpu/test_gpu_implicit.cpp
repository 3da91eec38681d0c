// The implicit method on the GPU against the CPU backend's implicit method (ctest -L gpu; skipped
// without a usable GPU): every implicit kernel, on the quick, s150, decay_chain and REACLIB decks
// (where their data is present), geometric and adaptive schedules, the zones' abundances and energy
// rates within 1e-10 relative and the same accepted and rejected step counts. A rounding
// difference (the device's exp/log/cbrt) may flip an adaptive accept/reject and so change a
// zone's steps: such zones are listed, compared at 10 x rtol, and may be at most one in eight. A
// zone with NaN input fails alone.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "deck/deck.hpp"
#include "network/compact.hpp"
#include "network/load.hpp"
#include "zones/zone_batch.hpp"
#include "zones/zones.hpp"

namespace zoneode {
namespace {

struct Case {
  std::string name;
  std::string deck;                    // under inputs/
  std::vector<std::string> overrides;  // --set values
};

// The REACLIB cases whose data is here: rp-z12 beside the checkout (CI), rp-z24 in
// inputs/networks/ or beside the checkout; at rp-process conditions, a short burn.
std::vector<Case> reaclib_cases() {
  const std::string source = ZONEODE_SOURCE_DIR, shared = ZONEODE_REACLIB_DATA;
  std::vector<Case> cases;
  for (const std::string name : {"rp-z12", "rp-z24"}) {
    for (const std::string& folder : {source + "/inputs/networks", shared}) {
      const std::string library = folder + "/" + name + ".reaclib", nuclides = folder + "/" + name + ".nuclides";
      if (!std::filesystem::exists(library) || !std::filesystem::exists(nuclides)) continue;
      cases.push_back({name, "reaclib_rp.yaml",
                       {"network.file=" + library, "network.nuclides_file=" + nuclides, "zones.count=24",
                        "zones.temperature={profile: random, min: 0.8, max: 1.5}",
                        "zones.density={profile: log_random, min: 1.0e5, max: 1.0e7}", "integrator.start_time=1e-11",
                        "integrator.end_time=1e-7"}});
      break;
    }
  }
  if (cases.size() < 2) std::printf("note: REACLIB networks found: %zu of rp-z12, rp-z24\n", cases.size());
  return cases;
}

std::vector<Case> cases() {
  std::vector<Case> all = {
      {"quick", "quick.yaml", {"zones.count=64"}},
      {"s150", "s150.yaml", {"zones.count=24", "integrator.end_time=1e-6"}},
      {"decay_chain", "decay_chain.yaml", {"zones.count=8"}},
  };
  for (Case& c : reaclib_cases()) all.push_back(c);
  return all;
}

struct Loaded {
  Deck deck;
  Network network;
};

Loaded load(const Case& c, StepSchedule schedule) {
  std::vector<std::string> overrides = c.overrides;
  overrides.push_back("integrator.method=implicit");
  overrides.push_back(std::string("integrator.schedule=") + (schedule == StepSchedule::geometric ? "geometric" : "adaptive"));
  if (schedule == StepSchedule::adaptive) {
    overrides.push_back("integrator.rtol=1e-6");
    overrides.push_back("integrator.atol=1e-16");
  }
  Loaded l;
  l.deck = load_deck(std::string(ZONEODE_SOURCE_DIR) + "/inputs/" + c.deck, overrides);
  l.network = load_network(l.deck.network);
  return l;
}

ZoneBatch zones_of(const Loaded& l) {
  const ZoneBuilder builder(l.deck.zones, l.network);
  ZoneBatch batch;
  batch.resize(builder.count(), l.network.species_count());
  for (std::int64_t z = 0; z < batch.count; ++z) {
    batch.temperature[z] = builder.temperature(z);
    batch.density[z] = builder.density(z);
    std::copy(builder.abundances().begin(), builder.abundances().end(), batch.zone_abundances(z));
  }
  batch.zone_abundances(2)[0] = NAN;  // fails alone
  return batch;
}

void integrate(Backend& backend, const CompactNetwork& compact, const IntegratorSettings& settings, ZoneBatch& batch) {
  backend.prepare(compact, settings);
  const ZoneSpan zones = batch.span(0, batch.count);
  backend.upload(zones);
  backend.integrate();
  backend.download(zones);
}

double relative(double a, double b, double floor) {
  return std::fabs(a - b) / std::fmax(floor, std::fmax(std::fabs(a), std::fabs(b)));
}

class GpuImplicit : public ::testing::TestWithParam<KernelVariant> {};

TEST_P(GpuImplicit, MatchesTheCpuImplicitMethod) {
  const KernelVariant kernel = GetParam();
  try {
    make_backend({IntegrationMethod::implicit, BackendKind::gpu, kernel}, {});
  } catch (const std::exception& error) {
    GTEST_SKIP() << "no usable GPU: " << error.what();
  }
  for (const Case& c : cases()) {
    for (StepSchedule schedule : {StepSchedule::geometric, StepSchedule::adaptive}) {
      const std::string what = c.name + (schedule == StepSchedule::geometric ? " geometric" : " adaptive");
      SCOPED_TRACE(what + ", kernel " + std::string(kernel_variant_name(kernel)));
      const Loaded l = load(c, schedule);
      const CompactNetwork compact(l.network);
      const IntegratorSettings& s = l.deck.integrator;
      ZoneBatch cpu = zones_of(l), gpu = cpu;
      auto host = make_backend({IntegrationMethod::implicit, BackendKind::cpu, KernelVariant::baseline}, {});
      auto device = make_backend({IntegrationMethod::implicit, BackendKind::gpu, kernel}, {});
      integrate(*host, compact, s, cpu);
      integrate(*device, compact, s, gpu);
      int flipped = 0, ok = 0;
      double worst = 0.0;
      for (std::int64_t z = 0; z < cpu.count; ++z) {
        const ZoneResult &a = cpu.results[z], &b = gpu.results[z];
        ASSERT_EQ(b.status, a.status) << "zone " << z;
        if (z == 2) {
          EXPECT_EQ(b.status, zone_bad_input);
          continue;
        }
        ok += a.status == zone_ok ? 1 : 0;
        const bool same_steps = a.steps == b.steps && a.rejected_steps == b.rejected_steps;
        if (!same_steps) {
          ++flipped;
          std::printf("  %s zone %lld: steps %lld/%lld accepted, %lld/%lld rejected (cpu/gpu)\n", what.c_str(),
                      static_cast<long long>(z), static_cast<long long>(a.steps), static_cast<long long>(b.steps),
                      static_cast<long long>(a.rejected_steps), static_cast<long long>(b.rejected_steps));
        }
        // Geometric steps cannot flip: the same step sequence exactly.
        if (schedule == StepSchedule::geometric) EXPECT_TRUE(same_steps) << "zone " << z;
        const double tolerance = same_steps ? 1e-10 : 10 * s.rtol;
        // Abundances at the floor (1e-30 mol/g) and below atol's reach differ in their own bits.
        const double floor = schedule == StepSchedule::geometric ? 1e-28 : s.atol;
        for (int i = 0; i < cpu.species_count; ++i) {
          const double d = relative(cpu.zone_abundances(z)[i], gpu.zone_abundances(z)[i], floor);
          if (same_steps) worst = std::fmax(worst, d);
          EXPECT_LE(d, tolerance) << "zone " << z << " species " << i << ": " << cpu.zone_abundances(z)[i] << " vs "
                                  << gpu.zone_abundances(z)[i];
        }
        EXPECT_LE(relative(a.energy_generation_rate, b.energy_generation_rate, 1e-300), tolerance) << "zone " << z;
        EXPECT_EQ(b.time_reached, a.time_reached) << "zone " << z;
      }
      EXPECT_GT(ok, cpu.count / 2) << "most zones should integrate: the comparison would be empty";
      EXPECT_LE(flipped, cpu.count / 8) << "zones whose step counts differ";
      std::printf("  %s (%s): %lld zones, %d with other step counts, worst rel. diff. %.2e (same steps)\n",
                  what.c_str(), std::string(kernel_variant_name(kernel)).c_str(), static_cast<long long>(cpu.count), flipped,
                  worst);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, GpuImplicit, ::testing::Values(KernelVariant::baseline, KernelVariant::lds, KernelVariant::wave,
                                                           KernelVariant::final),
                         [](const auto& info) { return std::string(kernel_variant_name(info.param)); });

TEST(GpuImplicitKernels, OnlyTheImplicitKernelsAreOffered) {
  try {
    make_backend({IntegrationMethod::implicit, BackendKind::gpu, KernelVariant::tuned}, {});
    FAIL() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("it has baseline"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace zoneode
