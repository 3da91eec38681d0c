#include "network/generator_arithmetic.hpp"
#include "network/generator_channels.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <utility>

#include "common/constants.hpp"
#include "network/generator.hpp"
#include "network/generator_nuclides.hpp"
#include "network/generator_rates.hpp"

namespace zoneode::generator_detail {

namespace {

enum class Channel : std::uint64_t {
  n_gamma = 1, p_gamma, a_gamma, a_n, a_p, p_n,
  beta_minus, beta_delayed_n, beta_plus, electron_capture, beta_delayed_p,
  triple_alpha, fusion_c12_c12_a, fusion_c12_c12_p, fusion_c12_o16, fusion_o16_o16,
};

int distinct_count(std::vector<int> list) {
  std::sort(list.begin(), list.end());
  return static_cast<int>(std::unique(list.begin(), list.end()) - list.begin());
}

// Builds the candidates of one species list; `find` maps (Z, A) to a species index.
class Builder {
 public:
  Builder(const std::vector<Species>& species, std::uint64_t seed) : seed_(seed), species_(species) {
    for (int i = 0; i < static_cast<int>(species_.size()); ++i) index_[key(species_[i].Z, species_[i].A)] = i;
  }

  std::vector<Candidate> take_candidates() { return std::move(candidates_); }

  int find(int Z, int A) const {
    const auto it = index_.find(key(Z, A));
    return it == index_.end() ? -1 : it->second;
  }

  void build() {
    add_special_reactions();
    for (int i = 0; i < static_cast<int>(species_.size()); ++i) {
      add_strong_pairs(i);
      add_weak_decays(i);
    }
  }

 private:
  static long key(int Z, int A) { return static_cast<long>(Z) * 4096 + A; }
  double mass(int i) const { return species_[i].mass_excess_MeV; }

  Rng rng_for(Channel channel, int Z, int A) const {
    return Rng(stream_seed(seed_, (static_cast<std::uint64_t>(channel) << 40) |
                                      (static_cast<std::uint64_t>(Z) << 20) | static_cast<std::uint64_t>(A)));
  }

  void add_candidate(std::vector<Reaction> reactions, bool strong_pair, bool mandatory) {
    Candidate c;
    c.strong_pair = strong_pair;
    c.mandatory = mandatory;
    for (const Reaction& r : reactions) {
      c.terms += distinct_count(r.reactants) + distinct_count(r.products);
      c.species.insert(c.species.end(), r.reactants.begin(), r.reactants.end());
      c.species.insert(c.species.end(), r.products.begin(), r.products.end());
    }
    std::sort(c.species.begin(), c.species.end());
    c.species.erase(std::unique(c.species.begin(), c.species.end()), c.species.end());
    c.reactions = std::move(reactions);
    candidates_.push_back(std::move(c));
  }

  // The reverse of `forward` from detailed balance with partition functions 1 (ground-state spins
  // only). Capture a + b -> c:  lambda_rev = 9.8685e9 (g_a g_b / g_c) (A_a A_b / A_c)^(3/2)
  // T9^(3/2) exp(-11.6045 Q / T9) lambda_fwd; exchange a + b -> c + d: lambda_rev = (g_a g_b /
  // (g_c g_d)) (A_a A_b / (A_c A_d))^(3/2) exp(-11.6045 Q / T9) lambda_fwd (the reduced-mass ratio,
  // since A_a + A_b = A_c + A_d). In REACLIB form: a0 += ln(prefactor), a1 -= Q / kT, a6 += 3/2
  // for captures; the other coefficients are those of the forward set.
  Reaction reverse_of(const Reaction& forward) const {
    double g_ratio = 1.0, a_ratio = 1.0;
    for (int i : forward.reactants) {
      g_ratio *= generator_spin_degeneracy(species_[i].Z, species_[i].A);
      a_ratio *= species_[i].A;
    }
    for (int i : forward.products) {
      g_ratio /= generator_spin_degeneracy(species_[i].Z, species_[i].A);
      a_ratio /= species_[i].A;
    }
    const bool capture = forward.reactants.size() == 2 && forward.products.size() == 1;
    double prefactor = g_ratio * pow_three_halves(a_ratio);
    if (capture) prefactor *= constants::detailed_balance_capture;
    Reaction reverse;
    reverse.reactants = forward.products;
    reverse.products = forward.reactants;
    reverse.Q_MeV = -forward.Q_MeV;
    for (const RateSet& set : forward.sets) {
      RateSet r = set;
      r.reverse = true;
      r.a[0] += det_log(prefactor);
      r.a[1] -= forward.Q_MeV * constants::inverse_kT_per_mev;
      if (capture) r.a[6] += 1.5;
      reverse.sets.push_back(r);
    }
    return reverse;
  }

  // Captures target + projectile -> product and exchanges target + projectile -> product + ejectile.
  void add_strong_pairs(int target) {
    const Species& x = species_[target];
    if (x.Z <= 1) return;  // n and p are projectiles only (no d or t in the network)
    struct ChannelSpec {
      Channel channel;
      Nuclide projectile;
      Nuclide ejectile;  // A = 0: a photon
    };
    static constexpr ChannelSpec channels[] = {
        {Channel::n_gamma, {0, 1}, {0, 0}}, {Channel::p_gamma, {1, 1}, {0, 0}}, {Channel::a_gamma, {2, 4}, {0, 0}},
        {Channel::a_n, {2, 4}, {0, 1}},     {Channel::a_p, {2, 4}, {1, 1}},     {Channel::p_n, {1, 1}, {0, 1}},
    };
    for (const ChannelSpec& spec : channels) {
      const int projectile = find(spec.projectile.Z, spec.projectile.A);
      if (projectile < 0 || projectile == target) continue;
      const int product = find(x.Z + spec.projectile.Z - spec.ejectile.Z, x.A + spec.projectile.A - spec.ejectile.A);
      if (product < 0) continue;
      Rng rng = rng_for(spec.channel, x.Z, x.A);
      const bool capture = spec.ejectile.A == 0;
      Reaction forward;
      if (capture) {
        forward.reactants = {target, projectile};
        forward.products = {product};
        forward.Q_MeV = mass(target) + mass(projectile) - mass(product);
        // A capture with Q <= 0 would make its inverse a particle decay; the product is then not
        // bound against this emission and the channel is left out.
        if (!(forward.Q_MeV > 0.0)) continue;
        const double ln_S = spec.channel == Channel::p_gamma ? log_uniform(rng, 3e-3, 6.0)   // S ~ keV b
                          : spec.channel == Channel::a_gamma ? log_uniform(rng, 0.1, 6.0)    // S ~ 0.1 MeV b
                                                             : 0.0;
        if (spec.channel == Channel::n_gamma) {
          const double ln_rate = log_uniform(rng, 3e5, 6.0);  // N_A<sigma v> ~ 3e5 cm^3/(mol s)
          const double a4 = 0.1 * (rng.uniform() - 0.5);
          forward.sets = {neutron_set(ln_rate, a4)};
        } else {
          forward.sets = {charged_particle_set(x.Z, x.A, spec.projectile.Z, spec.projectile.A, ln_S)};
        }
      } else {
        const int ejectile = find(spec.ejectile.Z, spec.ejectile.A);
        if (ejectile < 0) continue;
        const double Q = mass(target) + mass(projectile) - mass(product) - mass(ejectile);
        // Written in the exothermic direction, so that the reverse carries exp(-Q/kT) and stays
        // finite at low temperature.
        if (Q >= 0.0) {
          forward.reactants = {target, projectile};
          forward.products = {product, ejectile};
          forward.Q_MeV = Q;
        } else {
          forward.reactants = {product, ejectile};
          forward.products = {target, projectile};
          forward.Q_MeV = -Q;
        }
        const Species& r0 = species_[forward.reactants[0]];
        const Species& r1 = species_[forward.reactants[1]];
        if (r0.Z == 0 || r1.Z == 0) {
          // Two draws in separate statements: the order of evaluating function arguments is
          // unspecified (GCC and Clang differ), and it must not decide the network.
          const double ln_rate = log_uniform(rng, 1e6, 6.0);
          const double a4 = 0.1 * (rng.uniform() - 0.5);
          forward.sets = {neutron_set(ln_rate, a4)};
        } else {
          forward.sets = {charged_particle_set(r0.Z, r0.A, r1.Z, r1.A, log_uniform(rng, 10.0, 6.0))};  // S ~ 10 MeV b
        }
      }
      std::vector<Reaction> pair = {forward, reverse_of(forward)};
      // The alpha chain 12C -> 16O -> 20Ne -> ... is the backbone of helium burning: always in.
      const bool alpha_chain = spec.channel == Channel::a_gamma && x.Z == x.A - x.Z && x.Z % 2 == 0 && x.Z >= 6;
      add_candidate(std::move(pair), true, alpha_chain);
    }
  }

  void add_weak(int parent, std::vector<int> products, double Q, bool electron_capture, double ln_rate,
                bool mandatory) {
    Reaction decay;
    decay.reactants = {parent};
    decay.products = std::move(products);
    decay.Q_MeV = Q;
    decay.electron_capture = electron_capture;
    decay.sets = {weak_set(ln_rate)};
    add_candidate({decay}, false, mandatory);
  }

  // Weak decays of species i (atomic mass excesses throughout):
  //   beta-      Q = D(parent) - D(daughter)
  //   beta+      Q = D(parent) - D(daughter) - 2 m_e c^2
  //   EC         Q = D(parent) - D(daughter), rate per unit rho*Ye (electron_capture)
  //   beta- n    Q = D(parent) - D(daughter) - D(n),            daughter (Z+1, A-1)
  //   beta+ p    Q = D(parent) - D(daughter) - D(1H) - 2 m_e,  daughter (Z-2, A-1)
  // Only with Q > 0. beta-, beta+ and electron capture where beta+ is closed are always in (they
  // connect the isobars); EC next to beta+ and the beta-delayed branches are optional.
  void add_weak_decays(int i) {
    const Species& x = species_[i];
    const double two_me = 2.0 * constants::electron_mass_mev;
    if (x.Z == 0) {
      // The free neutron: measured mean life 878.4 s (PDG 2022).
      const int proton = find(1, 1);
      if (proton >= 0) add_weak(i, {proton}, mass(i) - mass(proton), false, -det_log(878.4), true);
      return;
    }
    if (x.Z == 1) return;
    if (const int d = find(x.Z + 1, x.A); d >= 0) {
      const double Q = mass(i) - mass(d);
      Rng rng = rng_for(Channel::beta_minus, x.Z, x.A);
      if (Q > 0.0) add_weak(i, {d}, Q, false, beta_log_rate(rng, Q, 4.0, 7.0), true);
    }
    if (const int d = find(x.Z + 1, x.A - 1), n = find(0, 1); d >= 0 && n >= 0) {
      const double Q = mass(i) - mass(d) - mass(n);
      Rng rng = rng_for(Channel::beta_delayed_n, x.Z, x.A);
      if (Q > 0.0) add_weak(i, {d, n}, Q, false, beta_log_rate(rng, Q, 5.0, 8.0), false);
    }
    if (const int d = find(x.Z - 1, x.A); d >= 0) {
      const double Q_ec = mass(i) - mass(d);
      const double Q_plus = Q_ec - two_me;
      Rng rng = rng_for(Channel::beta_plus, x.Z, x.A);
      if (Q_plus > 0.0) add_weak(i, {d}, Q_plus, false, beta_log_rate(rng, Q_plus, 4.0, 7.0), true);
      if (Q_ec > 0.0) {
        // Capture of continuum electrons: rate proportional to n_e, per unit rho*Ye [cm^3/(mol s)].
        // Phase space ~ (Q/m_e)^2; normalised so that at rho*Ye = 1e6 mol/cm^3 the half-life is
        // ft / (Q/m_e)^2 with log10(ft) = 4..7.
        Rng ec_rng = rng_for(Channel::electron_capture, x.Z, x.A);
        const double log10_ft = 4.0 + 3.0 * ec_rng.uniform();
        const double ln_rate = std::clamp(det_log(ln_2) - log10_ft * ln_10 + 2.0 * det_log(Q_ec / constants::electron_mass_mev),
                                          det_log(1e-17), det_log(1e3)) - det_log(1e6);
        add_weak(i, {d}, Q_ec, true, ln_rate, !(Q_plus > 0.0));
      }
    }
    if (const int d = find(x.Z - 2, x.A - 1), p = find(1, 1); x.Z >= 3 && d >= 0 && p >= 0) {
      const double Q = mass(i) - mass(d) - mass(p) - two_me;
      Rng rng = rng_for(Channel::beta_delayed_p, x.Z, x.A);
      if (Q > 0.0) add_weak(i, {d, p}, Q, false, beta_log_rate(rng, Q, 5.0, 8.0), false);
    }
  }

  // Triple alpha and heavy-ion fusions, without reverse rates. Their reactants are identical
  // (3 he4, 12C + 12C, 16O + 16O), which the two-body detailed-balance factors of reverse_of do
  // not cover, and at the temperatures of the decks (T9 <= 3) their inverses are slow: 12C -> 3
  // alpha is ~3e-8 /s at T9 = 2 and ~1 /s at T9 = 3 (CF88's ratio 2.0e20 T9^3 exp(-84.42/T9)),
  // against burns of milliseconds, and the inverse fusions also climb a Coulomb barrier. A
  // network for T9 >~ 4 would need them. Always included when the species exist.
  void add_special_reactions() {
    const int he4 = find(2, 4), c12 = find(6, 12), o16 = find(8, 16), p = find(1, 1);
    const int ne20 = find(10, 20), na23 = find(11, 23), mg24 = find(12, 24), si28 = find(14, 28);
    if (he4 >= 0 && c12 >= 0) {
      // Caughlan & Fowler (1988) resonant terms: the Hoyle state (E_r = 0.379 MeV = 4.4027 / 11.6045)
      // and a higher state; N_A^2 <alpha alpha alpha> [cm^6 / (mol^2 s)].
      Reaction r;
      r.reactants = {he4, he4, he4};
      r.products = {c12};
      r.Q_MeV = 3.0 * mass(he4) - mass(c12);
      RateSet hoyle;
      hoyle.label = "cf88";
      hoyle.resonance = 'r';
      hoyle.a[0] = det_log(2.79e-8);
      hoyle.a[1] = -4.4027;
      hoyle.a[6] = -3.0;
      RateSet upper = hoyle;
      upper.a[0] = det_log(1.35e-8);
      upper.a[1] = -24.811;
      upper.a[6] = -1.5;
      r.sets = {hoyle, upper};
      add_candidate({r}, false, true);
    }
    // REACLIB-form fits (this work) to the Caughlan & Fowler (1988) analytic rates over T9 = 0.3-5,
    // with a2 the Coulomb value -4.2487 (Z1^2 Z2^2 mu)^(1/3): within 3% there, finite everywhere.
    // 12C + 12C is split evenly between its alpha and proton channels; 12C + 16O and 16O + 16O put
    // all their flux into the alpha channel (the others are left out).
    auto fusion = [&](int a, int b, std::vector<int> products, double branch, std::array<double, 7> coefficients) {
      Reaction r;
      r.reactants = {a, b};
      r.products = products;
      r.Q_MeV = mass(a) + mass(b);
      for (int i : products) r.Q_MeV -= mass(i);
      RateSet set;
      set.label = generator_label;
      set.a = coefficients;
      set.a[0] += det_log(branch);
      r.sets = {set};
      add_candidate({r}, false, true);
    };
    if (c12 >= 0 && ne20 >= 0 && he4 >= 0)
      fusion(c12, c12, {ne20, he4}, 0.5, {64.0007, 0.0, -84.1734, -3.8719, 0.136771, -0.0705689, -0.154319});
    if (c12 >= 0 && na23 >= 0 && p >= 0)
      fusion(c12, c12, {na23, p}, 0.5, {64.0007, 0.0, -84.1734, -3.8719, 0.136771, -0.0705689, -0.154319});
    if (c12 >= 0 && o16 >= 0 && mg24 >= 0 && he4 >= 0)
      fusion(c12, o16, {mg24, he4}, 1.0, {98.8911, 0.0, -106.610, -34.394, 6.6713, -1.06132, 4.87849});
    if (o16 >= 0 && si28 >= 0 && he4 >= 0)
      fusion(o16, o16, {si28, he4}, 1.0, {84.2369, 0.0, -135.958, 0.591275, -0.9619, -0.0481815, -0.822893});
  }

  std::uint64_t seed_;
  std::vector<Species> species_;
  std::map<long, int> index_;
  std::vector<Candidate> candidates_;
};


}  // namespace

std::vector<Candidate> reaction_candidates(const std::vector<Species>& species, std::uint64_t seed) {
  Builder builder(species, seed);
  builder.build();
  return builder.take_candidates();
}

}  // namespace zoneode::generator_detail
