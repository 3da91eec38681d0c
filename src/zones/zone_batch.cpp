#include "zones/zone_batch.hpp"

namespace zoneode {

void ZoneBatch::resize(std::int64_t zones, int species) {
  count = zones;
  species_count = species;
  temperature.assign(zones, 0.0);
  density.assign(zones, 0.0);
  abundances.assign(static_cast<std::size_t>(zones) * species, 0.0);
  results.assign(zones, ZoneResult{});
}

ZoneSpan ZoneBatch::span(std::int64_t first, std::int64_t zones) {
  return ZoneSpan{zones, species_count, temperature.data() + first, density.data() + first,
                  zone_abundances(first), results.data() + first, false};
}

}  // namespace zoneode
