#include "io/zone_input.hpp"

#include <cmath>

#include "common/errors.hpp"
#include "common/numbers.hpp"

namespace zoneode {

void check_state_file_matches(const std::string& where, const std::string& file, const StateFileInfo& info,
                              const Network& network, std::int64_t zones) {
  if (info.species.size() != network.species.size()) {
    throw InputError(where + ": '" + file + "' holds " + std::to_string(info.species.size()) +
                    " species, expected the network's " + std::to_string(network.species.size()));
  }
  for (std::size_t i = 0; i < info.species.size(); ++i) {
    if (info.species[i] != network.species[i].name) {
      throw InputError(where + ": '" + file + "' species " + std::to_string(i) + " is '" + excerpt(info.species[i]) +
                      "', expected '" + excerpt(network.species[i].name) + "' (the network's species, in its order)");
    }
  }
  if (info.zones == 0)
    throw InputError(where + ": '" + file + "' holds no zones (/abundances is [0][species]), expected at least one");
  if (zones > 0 && info.zones != zones) {
    throw InputError(where + ": '" + file + "' holds " + std::to_string(info.zones) + " zones, expected " +
                    std::to_string(zones));
  }
}

void read_zone_block(const std::string& file, std::int64_t zones, const ZoneBlock& block, const Network& network,
                     double mass_sum_tolerance, ZoneBatch& batch) {
  read_state_block(file, zones, block, batch.species_count, batch.temperature.data(), batch.density.data(),
                   batch.abundances.data());
  for (std::int64_t zone = 0; zone < batch.count; ++zone) {
    const std::int64_t global = batch.first_global_index + zone;
    auto fail = [&](const std::string& what) {
      throw InputError(file + ": zone " + std::to_string(global) + ": " + what);
    };
    if (!(batch.temperature[zone] > 0.0) || !std::isfinite(batch.temperature[zone]))
      fail("/temperature: expected a finite T9 > 0, got " + std::to_string(batch.temperature[zone]));
    if (!(batch.density[zone] > 0.0) || !std::isfinite(batch.density[zone]))
      fail("/density: expected a finite rho > 0, got " + std::to_string(batch.density[zone]));
    double mass_sum = 0.0;  // sum A*Y = sum X
    for (int i = 0; i < batch.species_count; ++i) {
      const double y = batch.zone_abundances(zone)[i];
      if (!(y >= 0.0) || !std::isfinite(y))
        fail("/abundances: species " + std::to_string(i) + ": expected a finite abundance >= 0, got " + format_number(y));
      mass_sum += network.species[i].A * y;
    }
    if (!(std::fabs(mass_sum - 1.0) <= mass_sum_tolerance))
      fail("/abundances: sum A*Y (the mass fractions' sum) is " + format_number(mass_sum) + ", expected 1 within " +
           format_number(mass_sum_tolerance) + " (zones.mass_sum_tolerance); Y is in mol/g");
  }
}

}  // namespace zoneode
