#include "network/work.hpp"

namespace zoneode {

StepWork count_step_work(const CompactNetwork& network) {
  const std::int64_t S = network.species_count(), R = network.reaction_count();
  StepWork work;
  work.terms = network.flux_terms();
  std::int64_t reactant_reads = 0, captures = 0;
  for (std::int64_t r = 0; r < R; ++r) {
    reactant_reads += network.reactant_count[r];
    captures += (network.reaction_flags[r] & reaction_flag_electron_capture) ? 1 : 0;
  }
  // Ye (2S), fluxes (a multiply per reactant and capture), energy release (2R), the terms (2 each),
  // the update (6 per species in the stiff branch: F+ dt, F- dt, / Y, 1 +, +, /), the mass sum (2S).
  work.flops = 2 * S + reactant_reads + captures + 2 * R + 2 * work.terms + 6 * S + 2 * S;
  // Terms: uint16 index, uint8 factor, an 8-byte flux. Fluxes: per reactant a uint16 index and an
  // 8-byte Y; per reaction its count and flag, rate factor, Q, and the flux written. Species: Y, Z
  // (Ye), two CSR offset pairs, Y, A, the proposal written, read and copied back.
  work.on_chip_bytes = work.terms * (2 + 1 + 8) + reactant_reads * (2 + 8) + R * (1 + 1 + 8 + 8 + 8) +
                       S * (8 + 8 + 4 * 4 + 8 + 8 + 8 + 8 + 8);
  work.zone_hbm_bytes = 8 * (2 + S) + 8 * S + static_cast<std::int64_t>(sizeof(double)) * 7;
  return work;
}

}  // namespace zoneode
