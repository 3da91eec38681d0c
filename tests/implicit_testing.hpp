// Test helper for the implicit method's tests: a generated network with electron captures.
#pragma once

#include <gtest/gtest.h>

#include "network/network.hpp"

namespace zoneode {

// A generated network with two reactions turned into electron captures (flux x rho Ye), so that
// the Ye slots are exercised even where a network has none.
inline Network with_electron_captures(Network network) {
  int made = 0;
  for (Reaction& reaction : network.reactions) {
    if (!reaction.electron_capture && reaction.reactants.size() == 1 && made < 2) {
      reaction.electron_capture = true;
      ++made;
    }
  }
  EXPECT_EQ(made, 2);
  return network;
}

}  // namespace zoneode
