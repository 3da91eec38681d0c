#include "network/analytic.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "common/numbers.hpp"

namespace zoneode {

namespace {
constexpr int analytic_mass_number = 100;

RateSet constant_rate(double rate_per_s) {
  if (!(rate_per_s > 0.0) || !std::isfinite(rate_per_s))
    throw std::invalid_argument("analytic network: rates must be finite and > 0 [1/s], got " + format_number(rate_per_s));
  RateSet set;
  set.a[0] = std::log(rate_per_s);  // lambda = exp(a0), independent of T9
  set.label = "anly";
  set.resonance = 'w';
  return set;
}
}  // namespace

Network decay_chain_network(const std::vector<double>& rates_per_s) {
  if (rates_per_s.empty()) throw std::invalid_argument("decay chain: needs at least one rate");
  Network network;
  network.name = "decay-chain-" + std::to_string(rates_per_s.size() + 1);
  for (std::size_t k = 0; k <= rates_per_s.size(); ++k) {
    // Z steps by one along the chain like a beta- sequence; A is fixed so mass is conserved.
    network.species.push_back({"x" + std::to_string(k), static_cast<int>(k), analytic_mass_number, 0.0});
  }
  for (std::size_t k = 0; k < rates_per_s.size(); ++k) {
    Reaction decay;
    decay.reactants = {static_cast<int>(k)};
    decay.products = {static_cast<int>(k + 1)};
    decay.sets = {constant_rate(rates_per_s[k])};
    decay.Q_MeV = 1.0;
    network.reactions.push_back(decay);
  }
  validate_network(network, "decay chain");
  return network;
}

std::vector<double> bateman_solution(const std::vector<double>& rates, double y0, double t) {
  const std::size_t n = rates.size();
  std::vector<double> lambda(rates);
  lambda.push_back(0.0);  // the last member is stable
  std::vector<double> y(n + 1, 0.0);
  for (std::size_t m = 0; m <= n; ++m) {
    // Y_m(t) = y0 prod_{i<m} lambda_i  sum_{i<=m} exp(-lambda_i t) / prod_{j<=m, j!=i} (lambda_j - lambda_i)
    double product = 1.0;
    for (std::size_t i = 0; i < m; ++i) product *= lambda[i];
    double sum = 0.0;
    for (std::size_t i = 0; i <= m; ++i) {
      double denominator = 1.0;
      for (std::size_t j = 0; j <= m; ++j) {
        if (j != i) denominator *= lambda[j] - lambda[i];
      }
      if (denominator == 0.0) throw std::invalid_argument("bateman_solution: rates must be distinct");
      sum += std::exp(-lambda[i] * t) / denominator;
    }
    y[m] = y0 * product * sum;
  }
  return y;
}

Network reversible_pair_network(double forward_per_s, double reverse_per_s) {
  Network network;
  network.name = "reversible-pair";
  network.species = {{"a", 10, analytic_mass_number, 1.0}, {"b", 10, analytic_mass_number, 0.0}};
  Reaction forward;
  forward.reactants = {0};
  forward.products = {1};
  forward.sets = {constant_rate(forward_per_s)};
  forward.Q_MeV = 1.0;
  Reaction reverse;
  reverse.reactants = {1};
  reverse.products = {0};
  reverse.sets = {constant_rate(reverse_per_s)};
  reverse.sets[0].reverse = true;
  reverse.Q_MeV = -1.0;
  network.reactions = {forward, reverse};
  validate_network(network, "reversible pair");
  return network;
}

std::vector<double> reversible_pair_solution(double kf, double kr, double ya0, double yb0, double t) {
  const double total = ya0 + yb0;
  const double ya_equilibrium = total * kr / (kf + kr);
  const double ya = ya_equilibrium + (ya0 - ya_equilibrium) * std::exp(-(kf + kr) * t);
  return {ya, total - ya};
}

}  // namespace zoneode
