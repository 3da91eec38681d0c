#include "integrators/cpu_backend.hpp"

#include <omp.h>

namespace zoneode {

void ZoneBatch::resize(std::int64_t zones, int species) {
  count = zones;
  species_count = species;
  temperature.assign(zones, 0.0);
  density.assign(zones, 0.0);
  abundances.assign(static_cast<std::size_t>(zones) * species, 0.0);
  results.assign(zones, ZoneResult{});
}

void integrate_zones_cpu(const CompactNetwork& network, const IntegratorSettings& settings, ZoneBatch& batch) {
  const NetworkView view = network.view();
#pragma omp parallel
  {
    // Per-thread scratch, allocated once.
    std::vector<double> rate_factor(view.reaction_count), flux(view.reaction_count);
    std::vector<double> y_full(view.species_count), y_half(view.species_count);
    const ZoneWorkspace work{rate_factor.data(), flux.data(), y_full.data(), y_half.data()};
    // Dynamic: zones differ in cost (hot, dense zones take more adaptive steps).
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t zone = 0; zone < batch.count; ++zone) {
      integrate_zone(view, settings, batch.temperature[zone], batch.density[zone], batch.zone_abundances(zone), work,
                     batch.results[zone]);
    }
  }
}

}  // namespace zoneode
