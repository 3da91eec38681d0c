// Every rank must run the same inputs: ranks started with different decks (mpirun's MPMD form, or a
// deck edited while ranks start) would otherwise run on, or wait in different collective calls.
#pragma once

#include <string>

#include "decomposition/mpi_context.hpp"

namespace zoneode {

// Collective. Compares a hash of this rank's resolved deck and network hash with rank 0's; when any
// rank differs, throws InputError on every rank, naming the first such rank.
void check_ranks_read_same_inputs(const MpiContext& mpi, const std::string& resolved_deck,
                                  const std::string& network_hash);

}  // namespace zoneode
