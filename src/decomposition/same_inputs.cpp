#include "decomposition/same_inputs.hpp"

#include <cstdint>

#include "common/errors.hpp"
#include "common/fnv1a.hpp"

namespace zoneode {

void check_ranks_read_same_inputs(const MpiContext& mpi, const std::string& resolved_deck,
                                  const std::string& network_hash) {
  Fnv1a hash;
  hash.bytes(resolved_deck.data(), resolved_deck.size());
  hash.bytes(network_hash.data(), network_hash.size());
  std::uint64_t root_hash = hash.value;
  MPI_Bcast(&root_hash, 1, MPI_UINT64_T, 0, mpi.comm());
  const int differing = mpi.first_rank_with(hash.value != root_hash);
  if (differing < 0) return;
  throw InputError("rank " + std::to_string(differing) + " read a different deck or network than rank 0 (resolved " +
                   "deck and network hash differ): start every rank with the same deck, options and files");
}

}  // namespace zoneode
