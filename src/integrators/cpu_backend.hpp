// The CPU backend: zones in parallel with OpenMP, each integrated by integrate_zone().
#pragma once

#include <cstdint>
#include <vector>

#include "integrators/asymptotic.hpp"
#include "network/compact.hpp"

namespace zoneode {

// The zones one process integrates: T9, rho and abundances in, abundances and results out.
struct ZoneBatch {
  std::int64_t first_global_index = 0;
  std::int64_t count = 0;
  int species_count = 0;
  std::vector<double> temperature;   // T9 [GK], per zone
  std::vector<double> density;       // rho [g/cm^3], per zone
  std::vector<double> abundances;    // Y [zone][species], in and out
  std::vector<ZoneResult> results;   // per zone, out

  void resize(std::int64_t zones, int species);
  double* zone_abundances(std::int64_t zone) { return abundances.data() + zone * species_count; }
};

// Integrates every zone of the batch; blocking. Each zone's result depends only on its own input,
// so the answer is bitwise the same for any thread count and schedule.
void integrate_zones_cpu(const CompactNetwork& network, const IntegratorSettings& settings, ZoneBatch& batch);

}  // namespace zoneode
