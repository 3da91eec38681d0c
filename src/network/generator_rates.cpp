#include "network/generator_arithmetic.hpp"
#include "network/generator_rates.hpp"

#include <algorithm>

#include "common/constants.hpp"

namespace zoneode::generator_detail {

const std::string generator_label = "gen";

// Non-resonant charged-particle rate (Fowler, Caughlan & Zimmerman 1967; Iliadis eq. 3.86):
//   N_A<sigma v> = 7.8324e9 (Z1 Z2 / mu)^(1/3) S_eff[MeV b] T9^(-2/3) exp(-4.2487 (Z1^2 Z2^2 mu / T9)^(1/3))
// [cm^3/(mol s)], mu = A1 A2 / (A1 + A2) the reduced mass [u].
RateSet charged_particle_set(int Z1, int A1, int Z2, int A2, double ln_S) {
  const double mu = static_cast<double>(A1) * A2 / (A1 + A2);
  RateSet set;
  set.label = generator_label;
  set.a[0] = det_log(7.8324e9) + det_log(Z1 * Z2 / mu) / 3.0 + ln_S;
  set.a[2] = -4.2487 * det_cbrt(static_cast<double>(Z1 * Z1) * (Z2 * Z2) * mu);
  set.a[6] = -2.0 / 3.0;
  return set;
}

// Neutron-induced rate: no barrier, N_A<sigma v> nearly constant (1/v cross section), with a small
// linear drift in T9.
RateSet neutron_set(double ln_rate, double a4) {
  RateSet set;
  set.label = generator_label;
  set.a[0] = ln_rate;
  set.a[4] = a4;
  return set;
}

// A weak rate: constant in T9 (resonance flag 'w').
RateSet weak_set(double ln_rate) {
  RateSet set;
  set.label = generator_label;
  set.resonance = 'w';
  set.a[0] = ln_rate;
  return set;
}

double log_uniform(Rng& rng, double scale, double decades) {
  return det_log(scale) + (rng.uniform() - 0.5) * decades * ln_10;
}

// ln lambda [1/s] of an allowed-like beta transition of endpoint energy Q [MeV]: Sargent's rule
// f ~ (Q / m_e c^2)^5 / 30 with log10(ft) = 4..7 (uniform) gives t_half = ft / f, so half-lives
// spread over three decades at a given Q and shorten as Q^-5 away from stability. Clamped to
// 1 ms .. 3 Gyr (1e17 s).
double beta_log_rate(Rng& rng, double Q, double log_ft_min, double log_ft_max) {
  const double log10_ft = log_ft_min + (log_ft_max - log_ft_min) * rng.uniform();
  double ln_half_life = log10_ft * ln_10 + det_log(30.0) - 5.0 * det_log(Q / constants::electron_mass_mev);
  ln_half_life = std::clamp(ln_half_life, det_log(1e-3), det_log(1e17));
  return det_log(ln_2) - ln_half_life;
}

}  // namespace zoneode::generator_detail
