#include "zones/zones.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>
#include <stdexcept>
#include <string>

#include "common/errors.hpp"
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

std::string_view field_profile_name(FieldProfileKind kind) {
  switch (kind) {  // no default: the compiler names a profile left out
    case FieldProfileKind::constant: return "constant";
    case FieldProfileKind::linear: return "linear";
    case FieldProfileKind::log: return "log";
    case FieldProfileKind::random: return "random";
    case FieldProfileKind::log_random: return "log_random";
  }
  throw std::invalid_argument("field_profile_name: " + std::to_string(static_cast<int>(kind)) + " is no FieldProfileKind");
}

FieldProfile::FieldProfile(std::string_view kind_name, double value, double min, double max)
    : value(value), min(min), max(max) {
  const auto* found = std::find_if(std::begin(field_profile_kinds), std::end(field_profile_kinds),
                                   [&](FieldProfileKind k) { return field_profile_name(k) == kind_name; });
  if (found == std::end(field_profile_kinds))
    throw std::invalid_argument("no field profile '" + std::string(kind_name) + "'");
  kind = *found;
}

double profile_value(const FieldProfile& field, std::uint64_t seed, std::uint64_t stream, std::int64_t index,
                     std::int64_t count) {
  const double along = count > 1 ? static_cast<double>(index) / static_cast<double>(count - 1) : 0.0;
  const auto log_between = [&](double fraction) {
    return std::exp(std::log(field.min) + (std::log(field.max) - std::log(field.min)) * fraction);
  };
  const auto uniform = [&] { return counter_uniform(seed, stream, static_cast<std::uint64_t>(index)); };
  switch (field.kind) {  // no default: the compiler names a profile left out
    case FieldProfileKind::constant: return field.value;
    case FieldProfileKind::linear: return field.min + (field.max - field.min) * along;
    case FieldProfileKind::log: return log_between(along);
    case FieldProfileKind::random: return field.min + (field.max - field.min) * uniform();
    case FieldProfileKind::log_random: return log_between(uniform());
  }
  throw std::invalid_argument("profile_value: " + std::to_string(static_cast<int>(field.kind)) + " is no FieldProfileKind");
}

ZoneBuilder::ZoneBuilder(const ZonesDeck& zones, const Network& network) : zones_(zones) {
  abundances_.assign(network.species_count(), 0.0);
  double sum = 0.0;
  for (const auto& entry : zones.composition) {
    const int index = network.find_species(entry.species);
    if (index < 0) {
      // The other way round (issue 40): the network's name has the look-alike letter (a network file
      // may hold any name), the deck the ASCII one; named when of the same length in characters.
      std::string network_note;
      if (non_ascii_note(entry.species).empty()) {
        for (const Species& species : network.species) {
          const std::string note = non_ascii_note(species.name);
          const auto characters = std::count_if(species.name.begin(), species.name.end(),
                                                [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; });
          if (note.empty() || static_cast<std::size_t>(characters) != entry.species.size()) continue;
          network_note = "; the network has '" + excerpt(species.name) + "'" + note;
          break;
        }
      }
      throw DeckError(entry.where + ": expected a species of network '" + excerpt(network.name) + "', got '" +
                      excerpt(entry.species) + "'" + non_ascii_note(entry.species) + network_note);
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

std::vector<std::int64_t> spread_zones(const std::vector<double>& temperature, const std::vector<double>& density,
                                       std::int64_t count) {
  const std::int64_t zones = static_cast<std::int64_t>(temperature.size());
  const std::int64_t sampled = std::min(count, zones);
  std::vector<std::int64_t> order(zones);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return temperature[a] != temperature[b] ? temperature[a] < temperature[b] : density[a] < density[b];
  });
  std::vector<std::int64_t> picked;
  for (std::int64_t k = 0; k < sampled; ++k) picked.push_back(order[sampled == 1 ? 0 : (zones - 1) * k / (sampled - 1)]);
  return picked;
}

}  // namespace zoneode
