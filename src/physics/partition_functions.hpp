// Nuclear partition functions for reverse ('v') REACLIB rates.
//
// A REACLIB reverse rate is fitted with ground-state spins only; with excited states populated the
// rate of the reaction as written is multiplied by G_products / G_reactants at T9 (Rauscher &
// Thielemann 2000 eq. 12-13; pynucastro's docs, "Reverse Rates"), where G is the normalised
// partition function (1 with the ground state alone). The table (inputs/data/partition_functions)
// gives G on a T9 grid (the shipped one: 0.01-10 GK from Rauscher & Thielemann 2000, 12-275 GK
// from Rauscher 2003, joined as pynucastro does); between grid points log10 G is interpolated
// linearly in T9, as the pynucastro-generated networks of AMReX Microphysics do
// (partition_functions.H), and outside the grid the end value is held (pynucastro's constant
// extrapolation). Host/device.
#pragma once

#include <cmath>

#include "common/portability.hpp"

namespace zoneode {

// log10 G(T9) of one nuclide: row holds log10 G at grid[0..points-1] (increasing T9).
ZONEODE_HD inline double log10_partition_function(const double* grid, int points, const double* row, double T9) {
  if (T9 <= grid[0]) return row[0];
  if (T9 >= grid[points - 1]) return row[points - 1];
  int lo = 0, hi = points - 1;  // grid[lo] <= T9 < grid[hi]
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (grid[mid] <= T9) lo = mid;
    else hi = mid;
  }
  const double slope = (row[hi] - row[lo]) / (grid[hi] - grid[lo]);
  return row[lo] + slope * (T9 - grid[lo]);
}

// The factor prod_products G / prod_reactants G of one reaction: its terms k (first..last-1) name a
// table row and a signed multiplicity (+n for a product appearing n times, -n for a reactant).
ZONEODE_HD inline double partition_function_ratio(const double* grid, int points, const double* table,
                                                  const int* term_row, const signed char* term_power, int first,
                                                  int last, double T9) {
  double log10_ratio = 0.0;
  for (int k = first; k < last; ++k) {
    log10_ratio += term_power[k] * log10_partition_function(grid, points, table + term_row[k] * points, T9);
  }
  return pow(10.0, log10_ratio);
}

}  // namespace zoneode
