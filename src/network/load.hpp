// Builds the network a deck asks for, from whichever source it names.
#pragma once

#include "deck/deck.hpp"
#include "network/network.hpp"

namespace zoneode {

Network load_network(const NetworkDeck& deck);

}  // namespace zoneode
