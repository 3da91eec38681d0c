// REACLIB-form rate sets the generator draws its rates from.
#pragma once

#include <string>

#include "network/generator_arithmetic.hpp"
#include "network/network.hpp"

namespace zoneode::generator_detail {

extern const std::string generator_label;  // the label of every generated set but triple alpha's

// Non-resonant charged-particle rate of an astrophysical S factor exp(ln_S) [MeV b].
RateSet charged_particle_set(int Z1, int A1, int Z2, int A2, double ln_S);
// Neutron-induced rate exp(ln_rate) [cm^3/(mol s)] with a small linear drift a4 in T9.
RateSet neutron_set(double ln_rate, double a4);
// A weak rate exp(ln_rate) [1/s], constant in T9.
RateSet weak_set(double ln_rate);

// ln of a value drawn log-uniformly over 10^(-decades/2) .. 10^(+decades/2) around `scale`.
double log_uniform(Rng& rng, double scale, double decades);
// ln lambda [1/s] of an allowed-like beta transition of endpoint energy Q [MeV].
double beta_log_rate(Rng& rng, double Q, double log_ft_min, double log_ft_max);

}  // namespace zoneode::generator_detail
