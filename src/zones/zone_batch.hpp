// The zones one process integrates, on the host: T9, rho and abundances in, abundances and
// results out. Zone-major like the state files (abundances[zone][species]); a backend that wants
// another layout transposes on upload.
#pragma once

#include <cstdint>
#include <vector>

#include "integrators/settings.hpp"

namespace zoneode {

// A contiguous range of a batch's zones, as the backends see it (non-owning).
struct ZoneSpan {
  std::int64_t count = 0;
  int species_count = 0;
  double* temperature = nullptr;  // T9 [GK]
  double* density = nullptr;      // rho [g/cm^3]
  double* abundances = nullptr;   // Y [zone][species], in and out
  ZoneResult* results = nullptr;  // out
  // temperature, density and abundances are device pointers of the backend's GPU (the library's
  // ZONEODE_DEVICE_MEMORY; results stay on the host): only a backend whose device_arrays_refusal()
  // is empty takes such a span.
  bool device_arrays = false;
};

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
  const double* zone_abundances(std::int64_t zone) const { return abundances.data() + zone * species_count; }
  // Zones [first, first + zones).
  ZoneSpan span(std::int64_t first, std::int64_t zones);
};

}  // namespace zoneode
