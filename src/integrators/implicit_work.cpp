#include "integrators/implicit_work.hpp"

namespace zoneode {

ImplicitStepWork count_implicit_step_work(const CompactNetwork& network, const ImplicitStructure& s) {
  const std::int64_t S = network.species_count(), R = network.reaction_count();
  const std::int64_t terms = network.flux_terms();
  std::int64_t reactant_reads = 0, slot_multiplies = 0;  // a slot: the rate x the other reactants
  for (std::int64_t r = 0; r < R; ++r) {
    const std::int64_t count = network.reactant_count[r];
    reactant_reads += count;
    slot_multiplies += count * (count - 1);
  }
  const std::int64_t slots = s.slot_offsets.empty() ? 0 : s.slot_offsets.back();
  const std::int64_t jacobian_terms = static_cast<std::int64_t>(s.term_slot.size());
  const std::int64_t energy_terms = static_cast<std::int64_t>(s.energy_term_slot.size());
  const std::int64_t filled = s.filled_entries(), updates = s.factor_updates();
  std::int64_t lower = 0;  // entries left of the diagonal: one division each in the factorisation
  for (std::int64_t p = 0; p < S; ++p) lower += s.diagonal[p] - s.row_offsets[p];
  const std::int64_t upper = filled - S - lower;
  const std::int64_t entries = static_cast<std::int64_t>(s.entry_row.size());
  ImplicitStepWork w;
  // Slots (the rate factor times the other reactants); J's terms and the energy row: a multiply-add each.
  w.jacobian_flops = slot_multiplies + 2 * jacobian_terms + 2 * energy_terms;
  // M = I/(h gamma) - J: one subtraction per entry, the diagonal's division; the LU: a division per
  // L entry and a multiply-add per update.
  w.factor_flops = entries + 1 + lower + 2 * updates;
  // Per right-hand side: a multiply-add per off-diagonal factor entry and a division per row.
  w.solve_flops = 4 * (2 * (lower + upper) + S);
  // Three new f (stage 1 at Y, stages 3 and 4): fluxes (a multiply per reactant), F+ - F- (a
  // multiply-add per term), energy (2R); stage arguments (stages 3, 4: 2 + 3 multiply-adds per
  // species), couplings (1 + 2 + 3 per species, multiply-add), the new state (4 multiply-adds) and
  // the error norm (about 5 per species), the mass sum (2S).
  w.rhs_flops = 3 * (reactant_reads + 2 * terms + 2 * R) + S * (2 * 5 + 2 * 6 + 2 * 4 + 5 + 2);
  w.flops = w.jacobian_flops + w.factor_flops + w.solve_flops + w.rhs_flops;
  // Values: the slots written and read by J's terms, J's entries written (read-modify-write per term)
  // and read into M; the LU reads M's values and per update a source and a target read and written;
  // each solve reads every factor value once and a vector entry per off-diagonal one; the f
  // evaluations read Y per reactant and a flux per term and write fluxes and rates; stages.
  w.value_bytes = 8 * (slots + 2 * jacobian_terms + 2 * energy_terms + 2 * entries + filled +  // Jacobian, M
                       filled + 3 * updates +                                                    // LU
                       4 * (filled + (lower + upper) + 2 * S) +                                  // solves
                       3 * (reactant_reads + R + terms + 2 * S) +                                // f
                       S * (4 + 6 + 8 + 4 + 2));                                                 // stages, state
  // Indices: a slot and an entry per J term (4 + 4), a target per update (4), a column per factor
  // entry per solve (4), a reaction per flux term (2) and a species per reactant (2).
  w.index_bytes = 8 * jacobian_terms + 4 * updates + 4 * 4 * (lower + upper) + 3 * (2 * terms + 2 * reactant_reads);
  return w;
}

}  // namespace zoneode
