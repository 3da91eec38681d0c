// Zones: (T9, rho, initial abundances) as a pure function of the global zone index, so that every
// rank and thread builds the same zone whatever the decomposition.
#pragma once

#include <cstdint>
#include <vector>

#include "deck/deck.hpp"
#include "network/network.hpp"

namespace zoneode {

// Counter-based uniform deviate in [0, 1): the same (seed, stream, index) gives the same number on
// every platform, with no state carried between zones.
double counter_uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t index);

// Value of a field profile at zone `index` of `count`.
double profile_value(const FieldProfile& field, std::uint64_t seed, std::uint64_t stream, std::int64_t index,
                     std::int64_t count);

// Zones sampled over the temperature and density range (the accuracy self-check and
// zoneode-validate): evenly spaced over the zones sorted by T9, then rho, then global index; at most
// `count` zones (all of them when there are fewer), in sample order.
std::vector<std::int64_t> spread_zones(const std::vector<double>& temperature, const std::vector<double>& density,
                                       std::int64_t count);

class ZoneBuilder {
 public:
  // Throws DeckError naming the deck location of a composition entry the network lacks.
  ZoneBuilder(const ZonesDeck& zones, const Network& network);

  std::int64_t count() const { return zones_.count; }
  double temperature(std::int64_t index) const;  // T9 [GK]
  double density(std::int64_t index) const;      // rho [g/cm^3]
  // Initial abundances Y_i = X_i / A_i [mol/g], normalised so that sum X = 1.
  const std::vector<double>& abundances() const { return abundances_; }

 private:
  ZonesDeck zones_;
  std::vector<double> abundances_;
};

}  // namespace zoneode
