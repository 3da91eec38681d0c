#include "zones/zones.hpp"

#include <cmath>

#include "common/splitmix64.hpp"
#include "deck/yaml_schema.hpp"

namespace zoneode {

namespace {
constexpr std::uint64_t temperature_stream = 1;
constexpr std::uint64_t density_stream = 2;
}  // namespace

double counter_uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  const std::uint64_t bits = splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ index);
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

double profile_value(const FieldProfile& field, std::uint64_t seed, std::uint64_t stream, std::int64_t index,
                     std::int64_t count) {
  const double along = count > 1 ? static_cast<double>(index) / static_cast<double>(count - 1) : 0.0;
  if (field.profile == "constant") return field.value;
  if (field.profile == "linear") return field.min + (field.max - field.min) * along;
  if (field.profile == "log") return std::exp(std::log(field.min) + (std::log(field.max) - std::log(field.min)) * along);
  const double u = counter_uniform(seed, stream, static_cast<std::uint64_t>(index));
  if (field.profile == "random") return field.min + (field.max - field.min) * u;
  return std::exp(std::log(field.min) + (std::log(field.max) - std::log(field.min)) * u);  // log_random
}

ZoneBuilder::ZoneBuilder(const ZonesDeck& zones, const Network& network) : zones_(zones) {
  abundances_.assign(network.species_count(), 0.0);
  double sum = 0.0;
  for (const auto& entry : zones.composition) {
    const int index = network.find_species(entry.species);
    if (index < 0) {
      throw DeckError(entry.where + ": expected a species of network '" + network.name + "', got '" +
                      entry.species + "'");
    }
    sum += entry.mass_fraction;
    abundances_[index] += entry.mass_fraction / network.species[index].A;
  }
  for (double& y : abundances_) y /= sum;
}

double ZoneBuilder::temperature(std::int64_t index) const {
  return profile_value(zones_.temperature, zones_.seed, temperature_stream, index, zones_.count);
}

double ZoneBuilder::density(std::int64_t index) const {
  return profile_value(zones_.density, zones_.seed, density_stream, index, zones_.count);
}

}  // namespace zoneode
