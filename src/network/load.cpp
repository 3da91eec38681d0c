#include "network/load.hpp"

#include "network/analytic.hpp"
#include "network/generator.hpp"
#include "network/network_file.hpp"
#include "network/reaclib.hpp"

namespace zoneode {

Network load_network(const NetworkDeck& deck) {
  if (deck.source == "generator") return generate_network(deck.generator);
  if (deck.source == "reaclib") {
    const auto keep = deck.nuclides.empty() ? read_nuclide_list(deck.nuclides_file) : deck.nuclides;
    return read_reaclib(deck.file, keep);
  }
  if (deck.source == "file") return read_network_file(deck.file);
  if (deck.source == "decay_chain") return decay_chain_network(deck.rates);
  return reversible_pair_network(deck.rates.at(0), deck.rates.at(1));
}

}  // namespace zoneode
