// bdf's GPU kernel's host-side logic, on the CPU (kernels/bdf/bdf_thread.hpp): a zone integrated in a
// thread slot of the interleaved workspace, as the kernel does it, gives bitwise the CPU backend's
// bdf result whatever the slot, the slot count and what earlier zones left in the slot, with and
// without self-heating (T9's history column: a wider slot); a planted fault (the slot's abundances
// placed one history row early, over bdf's own history) is caught.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "bdf/bdf_thread.hpp"
#include "integrators/method_data.hpp"
#include "integrators/methods.hpp"
#include "network/compact.hpp"
#include "network/generator.hpp"
#include "zones/zone_batch.hpp"

namespace zoneode {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// s16 with zones over a range of T9 and rho; zone 3 has a NaN abundance (fails alone).
ZoneBatch zones_of(const Network& network, int zone_count) {
  ZoneBatch zones;
  zones.resize(zone_count, network.species_count());
  for (int z = 0; z < zone_count; ++z) {
    zones.temperature[z] = 1.0 + 0.25 * z;
    zones.density[z] = 1e5 * std::pow(3.0, z);
    zones.zone_abundances(z)[network.find_species("he4")] = 0.9 / 4;
    zones.zone_abundances(z)[network.find_species("c12")] = 0.1 / 12;
  }
  if (zone_count > 3) zones.zone_abundances(3)[1] = NAN;
  return zones;
}

IntegratorSettings bdf_settings() {
  IntegratorSettings s;
  s.method = IntegrationMethod::bdf;
  s.schedule = StepSchedule::adaptive;
  s.start_time = 1e-10;
  s.end_time = 1e-3;
  s.rtol = 1e-6;
  s.atol = 1e-16;
  s.max_mass_drift = 1e-2;
  return s;
}

void integrate_on_cpu(const CompactNetwork& compact, const IntegratorSettings& s, ZoneBatch& zones) {
  auto cpu = make_backend({IntegrationMethod::bdf, BackendKind::cpu, KernelVariant::baseline}, {1, 0, 0});
  cpu->prepare(compact, s);
  const ZoneSpan span = zones.span(0, zones.count);
  cpu->upload(span);
  cpu->integrate();
  cpu->download(span);
}

// How many zones differ from `cpu` in any bit of their abundances, steps or status.
int differing_zones(const ZoneBatch& cpu, const ZoneBatch& other) {
  int differing = 0;
  for (std::int64_t z = 0; z < cpu.count; ++z) {
    bool same = cpu.results[z].status == other.results[z].status && cpu.results[z].steps == other.results[z].steps &&
                cpu.results[z].rejected_steps == other.results[z].rejected_steps &&
                cpu.results[z].factorizations == other.results[z].factorizations &&
                same_bits(cpu.results[z].time_reached, other.results[z].time_reached) &&
                same_bits(cpu.results[z].final_T9, other.results[z].final_T9);
    for (int i = 0; i < cpu.species_count; ++i)
      same = same && same_bits(cpu.zone_abundances(z)[i], other.zone_abundances(z)[i]);
    differing += same ? 0 : 1;
  }
  return differing;
}

TEST(BdfGpuLayout, AZoneInAnInterleavedSlotIsBitwiseTheCpuZone) {
  const Network network = generate_network(generator_preset("s16"));
  PhysicsOptions heated;
  heated.self_heating = true;
  for (const PhysicsOptions& physics : {PhysicsOptions{}, heated}) {
  SCOPED_TRACE(physics.self_heating ? "self-heating" : "no options");
  const CompactNetwork compact(network, physics);
  const IntegratorSettings s = bdf_settings();
  ZoneBatch cpu = zones_of(network, 6);
  integrate_on_cpu(compact, s, cpu);
  std::int64_t factorizations = 0, steps = 0;
  double rise = 0.0;
  for (std::int64_t z = 0; z < cpu.count; ++z) {
    EXPECT_EQ(cpu.results[z].status, z == 3 ? zone_bad_input : zone_ok) << z;
    factorizations += cpu.results[z].factorizations;
    steps += cpu.results[z].steps;
    if (z != 3 && physics.self_heating)  // against the start's T9 (the backend writes the final T9 back)
      rise = std::fmax(rise, cpu.results[z].final_T9 / zones_of(network, 6).temperature[z] - 1.0);
  }
  EXPECT_LT(factorizations, steps) << "bdf reuses its LU: fewer factorisations than steps";
  if (physics.self_heating) EXPECT_GT(rise, 1e-3) << "T9 hardly rises: the heated slots check little";
  const MethodData data(IntegrationMethod::bdf, compact);
  const MethodNetwork& view = data.view();
  const bool heating = physics.self_heating;
  EXPECT_EQ(gpu::bdf_slot_doubles(view.implicit.layout, view.step.species_count, heating),
            workspace_doubles(IntegrationMethod::bdf, view) + view.step.species_count);
  // One slot reused by every zone; several slots, zones in them out of order and reused; the
  // interleaved array first filled with NaN, so that a value read before it is written shows.
  for (auto [slots, stride] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {7, 3}, {64, 5}}) {
    ZoneBatch slotted = zones_of(network, 6);
    std::vector<double> base(
        static_cast<std::size_t>(slots * gpu::bdf_slot_doubles(view.implicit.layout, view.step.species_count, heating)),
        std::numeric_limits<double>::quiet_NaN());
    for (std::int64_t z = 0; z < slotted.count; ++z)
      gpu::bdf_integrate_zone_in_slot(view, s, base.data(), slots, (z * stride) % slots, slotted.temperature[z],
                                      slotted.density[z], slotted.zone_abundances(z), slotted.results[z]);
    EXPECT_EQ(differing_zones(cpu, slotted), 0) << slots << " slots";
  }
  }
}

TEST(BdfGpuLayout, ThePlantedOverlapIsCaught) {
  // The comparison above can fail: the slot's abundances one history row early overlap bdf's
  // history (the fault a slot sized by the implicit method's workspace would make).
  const Network network = generate_network(generator_preset("s16"));
  const CompactNetwork compact(network);
  const IntegratorSettings s = bdf_settings();
  ZoneBatch cpu = zones_of(network, 3), faulty = zones_of(network, 3);
  integrate_on_cpu(compact, s, cpu);
  const MethodData data(IntegrationMethod::bdf, compact);
  const MethodNetwork& view = data.view();
  const int S = view.step.species_count;
  const std::int64_t slots = 7, slot_doubles = gpu::bdf_slot_doubles(view.implicit.layout, S);
  std::vector<double> base(static_cast<std::size_t>(slots * slot_doubles), 0.0);
  for (std::int64_t z = 0; z < faulty.count; ++z) {
    const StridedArray<double> workspace{base.data() + z, slots};
    const StridedArray<double> Y = workspace + (slot_doubles - S - (S + 1));  // one history row early
    for (int i = 0; i < S; ++i) Y[i] = faulty.zone_abundances(z)[i];
    bdf::integrate_zone(view, s, faulty.temperature[z], faulty.density[z], Y, workspace, faulty.results[z]);
    for (int i = 0; i < S; ++i) faulty.zone_abundances(z)[i] = Y[i];
  }
  EXPECT_GT(differing_zones(cpu, faulty), 0);
}

}  // namespace
}  // namespace zoneode
