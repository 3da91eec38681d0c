// The implicit GPU kernel's host-side logic, on the CPU (kernels/implicit/implicit_thread.hpp): a zone
// integrated in a thread slot of the interleaved workspace, as the kernel does it, gives bitwise the
// CPU backend's result whatever the slot, the slot count and what earlier zones left in the slot;
// and the slot count: resident threads, zones, memory, and the refusal when not one block fits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "implicit/implicit_thread.hpp"
#include "integrators/method_data.hpp"
#include "network/compact.hpp"
#include "network/generator.hpp"
#include "zones/zone_batch.hpp"

namespace zoneode {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// A generated network with electron captures (the Sherman-Morrison path) and zones over a range
// of T9 and rho; zone 3 has a NaN abundance (fails alone).
struct Problem {
  Network network;
  ZoneBatch zones;
};

Problem problem(const char* preset, int zone_count) {
  Problem p{generate_network(generator_preset(preset)), {}};
  int made = 0;
  for (Reaction& reaction : p.network.reactions) {
    if (!reaction.electron_capture && reaction.reactants.size() == 1 && made < 2) {
      reaction.electron_capture = true;
      ++made;
    }
  }
  p.zones.resize(zone_count, p.network.species_count());
  for (int z = 0; z < zone_count; ++z) {
    p.zones.temperature[z] = 1.0 + 0.25 * z;
    p.zones.density[z] = 1e5 * std::pow(3.0, z);
    p.zones.zone_abundances(z)[p.network.find_species("he4")] = 0.9 / 4;
    p.zones.zone_abundances(z)[p.network.find_species("c12")] = 0.1 / 12;
  }
  if (zone_count > 3) p.zones.zone_abundances(3)[1] = NAN;
  return p;
}

IntegratorSettings settings(StepSchedule schedule) {
  IntegratorSettings s;
  s.method = IntegrationMethod::implicit;
  s.schedule = schedule;
  s.start_time = 1e-10;
  s.end_time = 1e-3;
  s.rtol = 1e-6;
  s.atol = 1e-16;
  s.dt_fraction = 0.05;
  s.max_mass_drift = 1e-2;
  s.dt_initial = 1e-5;  // [s] far too large a first step: rejected, so the retry path runs
  return s;
}

void expect_same_zones(const ZoneBatch& a, const ZoneBatch& b, const std::string& what) {
  for (std::int64_t z = 0; z < a.count; ++z) {
    SCOPED_TRACE(what + ", zone " + std::to_string(z));
    EXPECT_EQ(a.results[z].status, b.results[z].status);
    EXPECT_EQ(a.results[z].steps, b.results[z].steps);
    EXPECT_EQ(a.results[z].rejected_steps, b.results[z].rejected_steps);
    EXPECT_EQ(a.results[z].factorizations, b.results[z].factorizations);
    EXPECT_TRUE(same_bits(a.results[z].time_reached, b.results[z].time_reached));
    EXPECT_TRUE(same_bits(a.results[z].energy_generation_rate, b.results[z].energy_generation_rate));
    EXPECT_TRUE(same_bits(a.results[z].max_mass_drift, b.results[z].max_mass_drift));
    for (int i = 0; i < a.species_count; ++i)
      EXPECT_TRUE(same_bits(a.zone_abundances(z)[i], b.zone_abundances(z)[i])) << "species " << i;
  }
}

// The zones through the kernel's per-slot code: zone z in slot (z * stride) % slots, the
// interleaved array first filled with NaN, so that a value read before it is written shows.
void integrate_in_slots(const CompactNetwork& compact, const IntegratorSettings& s, ZoneBatch& zones,
                        std::int64_t slots, std::int64_t stride) {
  const MethodData data(IntegrationMethod::implicit, compact);
  const MethodNetwork& network = data.view();
  std::vector<double> base(static_cast<std::size_t>(slots * gpu::implicit_slot_doubles(network)),
                           std::numeric_limits<double>::quiet_NaN());
  for (std::int64_t z = 0; z < zones.count; ++z) {
    gpu::integrate_zone_in_slot(network, s, base.data(), slots, (z * stride) % slots, zones.temperature[z],
                                zones.density[z], zones.zone_abundances(z), zones.results[z]);
  }
}

void integrate_on_cpu(const CompactNetwork& compact, const IntegratorSettings& s, ZoneBatch& zones) {
  auto cpu = make_backend({IntegrationMethod::implicit, BackendKind::cpu, KernelVariant::baseline}, {1, 0, 0});
  cpu->prepare(compact, s);
  const ZoneSpan span = zones.span(0, zones.count);
  cpu->upload(span);
  cpu->integrate();
  cpu->download(span);
}

TEST(ImplicitGpuLayout, AZoneInAnInterleavedSlotIsBitwiseTheCpuZone) {
  for (StepSchedule schedule : {StepSchedule::geometric, StepSchedule::adaptive}) {
    Problem p = problem("s16", 6);
    const CompactNetwork compact(p.network);
    const IntegratorSettings s = settings(schedule);
    ZoneBatch cpu = p.zones;
    integrate_on_cpu(compact, s, cpu);
    int rejected = 0;
    for (std::int64_t z = 0; z < cpu.count; ++z) {
      EXPECT_EQ(cpu.results[z].status, z == 3 ? zone_bad_input : zone_ok) << z;
      rejected += static_cast<int>(cpu.results[z].rejected_steps);
    }
    if (schedule == StepSchedule::adaptive) EXPECT_GT(rejected, 0) << "no rejected step: the retry path is untested";
    // One slot reused by every zone; several slots, zones in them out of order and reused.
    for (auto [slots, stride] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {7, 3}, {64, 5}}) {
      ZoneBatch slotted = p.zones;
      integrate_in_slots(compact, s, slotted, slots, stride);
      expect_same_zones(cpu, slotted, std::to_string(slots) + " slots");
    }
  }
}

// A planted fault: StridedArray with an operator+ that forgets the stride, so the workspace's
// arrays overlap within the slot's column.
struct StrideForgotten {
  double* data = nullptr;
  std::int64_t stride = 1;
  double& operator[](std::int64_t i) const { return data[i * stride]; }
  StrideForgotten operator+(std::int64_t i) const { return {data + i, stride}; }
};

TEST(ImplicitGpuLayout, ThePlantedStrideFaultIsCaught) {
  // The comparison above can fail: the same zones through the faulty layout differ from the CPU.
  Problem p = problem("s16", 3);
  const CompactNetwork compact(p.network);
  const IntegratorSettings s = settings(StepSchedule::geometric);
  ZoneBatch cpu = p.zones, faulty = p.zones;
  integrate_on_cpu(compact, s, cpu);
  const MethodData data(IntegrationMethod::implicit, compact);
  const std::int64_t slots = 7;
  std::vector<double> base(static_cast<std::size_t>(slots * gpu::implicit_slot_doubles(data.view())), 0.0);
  int differing = 0;
  for (std::int64_t z = 0; z < faulty.count; ++z) {
    const StrideForgotten workspace{base.data() + z, slots};
    implicit::integrate_zone(data.view(), s, faulty.temperature[z], faulty.density[z], faulty.zone_abundances(z),
                             workspace, faulty.results[z]);
    bool same = faulty.results[z].status == cpu.results[z].status;
    for (int i = 0; i < faulty.species_count; ++i) same &= same_bits(faulty.zone_abundances(z)[i], cpu.zone_abundances(z)[i]);
    differing += same ? 0 : 1;
  }
  EXPECT_EQ(differing, faulty.count);
}

TEST(ImplicitGpuLayout, SlotsAreResidentThreadsCappedByZonesAndMemory) {
  const std::uint64_t slot = 8 * 14619;  // s150: workspace 14,469 + 150 abundances
  const std::uint64_t free = 140ull << 30, budget = free / 8 * 3;
  // Plenty of memory: as many as are resident, or as the zones need (whole blocks), at least a
  // block per multiprocessor (132).
  gpu::ImplicitSlots s = gpu::plan_implicit_slots(1 << 20, 64, 67584, 132, budget, slot, free, 150);
  EXPECT_EQ(s.slots, 67584);
  EXPECT_EQ(s.blocks, 1056);
  s = gpu::plan_implicit_slots(65536, 64, 67584, 132, budget, slot, free, 150);
  EXPECT_EQ(s.slots, 65536);
  s = gpu::plan_implicit_slots(20000, 64, 67584, 132, budget, slot, free, 150);
  EXPECT_EQ(s.blocks, 313);  // ceil(20000 / 64)
  s = gpu::plan_implicit_slots(100, 64, 67584, 132, budget, slot, free, 150);
  EXPECT_EQ(s.blocks, 132);
  s = gpu::plan_implicit_slots(0, 64, 67584, 1, budget, slot, free, 150);
  EXPECT_EQ(s.slots, 64);
  // 1 GiB free, 384 MiB for workspaces: 3,442 slots fit, 53 whole blocks.
  s = gpu::plan_implicit_slots(1 << 20, 64, 67584, 132, (1ull << 30) / 8 * 3, slot, 1ull << 30, 150);
  EXPECT_EQ(s.blocks, static_cast<std::int64_t>((1ull << 30) / 8 * 3 / slot / 64));
  EXPECT_EQ(s.blocks, 53);
  EXPECT_LE(static_cast<std::uint64_t>(s.slots) * slot, (1ull << 30) / 8 * 3);
}

TEST(ImplicitGpuLayout, AWorkspaceThatDoesNotFitIsBadInputNamingWhatFits) {
  const std::uint64_t slot = 8 * 14619, free = 4ull << 20, budget = free / 8 * 3;
  try {
    gpu::plan_implicit_slots(65536, 64, 67584, 132, budget, slot, free, 150);
    FAIL() << "no error";
  } catch (const InputError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("integrator.method: implicit on the GPU"), std::string::npos) << message;
    EXPECT_NE(message.find("116952 bytes"), std::string::npos) << message;  // 8 x 14,619
    EXPECT_NE(message.find("13 zones in flight fit"), std::string::npos) << message;  // 1.5 MiB / 116,952 B
  }
}

}  // namespace
}  // namespace zoneode
