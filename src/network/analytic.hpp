// Small analytic networks with exact solutions, for tests and validation decks.
#pragma once

#include <vector>

#include "network/network.hpp"

namespace zoneode {

// x0 -> x1 -> ... -> xn with constant decay rates rates_per_s[k] [1/s] (n = rates.size(); xn is
// stable). Every member has A = 100 so that the mass-fraction sum is exactly conserved; Q = 1 MeV
// per decay.
Network decay_chain_network(const std::vector<double>& rates_per_s);

// Exact (Bateman) abundances of x0..xn at time t [s] from Y(x0) = y0 at t = 0; rates distinct.
std::vector<double> bateman_solution(const std::vector<double>& rates_per_s, double y0, double t);

// a <-> b with constant rates forward_per_s and reverse_per_s [1/s]: stiff when their sum times
// the burn time is large. A = 100, Q = +1 MeV forward and -1 MeV back.
Network reversible_pair_network(double forward_per_s, double reverse_per_s);

// Exact {Y_a, Y_b} at t [s] from {ya0, yb0} at t = 0.
std::vector<double> reversible_pair_solution(double forward_per_s, double reverse_per_s, double ya0,
                                             double yb0, double t);

}  // namespace zoneode
