// A run's zones read from a state file (zones.from_file, or --restart): the file must match the
// deck's network, and the values read are checked before any zone is integrated.
#pragma once

#include <cstdint>
#include <string>

#include "decomposition/decomposition.hpp"
#include "io/hdf5_state.hpp"
#include "network/network.hpp"
#include "zones/zone_batch.hpp"

namespace zoneode {

// The file's species must be the network's, in its order; and it must hold `zones` zones unless
// zones is 0. `where` names the deck key or option in the message.
void check_state_file_matches(const std::string& where, const std::string& file, const StateFileInfo& info,
                              const Network& network, std::int64_t zones);

// Reads this rank's block of the file's `zones` zones into `batch` (sized already) and checks
// T9, rho (finite, > 0), abundances (finite, >= 0) and each zone's sum A*Y (its mass fractions'
// sum: within `mass_sum_tolerance`, zones.mass_sum_tolerance, of 1), naming file, zone and dataset
// otherwise. `network` gives A.
void read_zone_block(const std::string& file, std::int64_t zones, const ZoneBlock& block, const Network& network,
                     double mass_sum_tolerance, ZoneBatch& batch);

}  // namespace zoneode
