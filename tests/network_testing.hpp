// Test helper: two networks equal field by field, doubles by their bits.
#pragma once

#include <gtest/gtest.h>

#include <cstring>

#include "network/network.hpp"

namespace zoneode {

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

inline void expect_identical(const Network& a, const Network& b) {
  ASSERT_EQ(a.name, b.name);
  ASSERT_EQ(a.species_count(), b.species_count());
  for (int i = 0; i < a.species_count(); ++i) {
    EXPECT_EQ(a.species[i].name, b.species[i].name);
    EXPECT_EQ(a.species[i].Z, b.species[i].Z);
    EXPECT_EQ(a.species[i].A, b.species[i].A);
    EXPECT_TRUE(same_bits(a.species[i].mass_excess_MeV, b.species[i].mass_excess_MeV))
        << a.species[i].name << ": " << a.species[i].mass_excess_MeV << " vs " << b.species[i].mass_excess_MeV;
  }
  ASSERT_EQ(a.reaction_count(), b.reaction_count());
  for (int r = 0; r < a.reaction_count(); ++r) {
    const Reaction& x = a.reactions[r];
    const Reaction& y = b.reactions[r];
    EXPECT_EQ(x.reactants, y.reactants) << r;
    EXPECT_EQ(x.products, y.products) << r;
    EXPECT_TRUE(same_bits(x.Q_MeV, y.Q_MeV)) << r;
    EXPECT_EQ(x.electron_capture, y.electron_capture) << r;
    ASSERT_EQ(x.sets.size(), y.sets.size()) << r;
    for (std::size_t s = 0; s < x.sets.size(); ++s) {
      EXPECT_EQ(x.sets[s].label, y.sets[s].label) << r;
      EXPECT_EQ(x.sets[s].resonance, y.sets[s].resonance) << r;
      EXPECT_EQ(x.sets[s].reverse, y.sets[s].reverse) << r;
      for (int k = 0; k < 7; ++k)
        EXPECT_TRUE(same_bits(x.sets[s].a[k], y.sets[s].a[k])) << r << " a" << k << ": " << x.sets[s].a[k] << " vs " << y.sets[s].a[k];
    }
  }
}

}  // namespace zoneode
