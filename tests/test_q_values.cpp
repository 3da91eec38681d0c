// Q values from the nuclides' masses (issue 39, item 2): the shipped NUBASE2020 table, Q = sum of
// the reactants' mass excesses - the products', energy conserved around reaction cycles and at
// any steady state, and the header values kept on request.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "common/errors.hpp"
#include "deck/deck.hpp"
#include "network/compact.hpp"
#include "network/generator.hpp"
#include "network/load.hpp"
#include "network/q_values.hpp"
#include "network/rates.hpp"
#include "network/reaclib.hpp"

namespace zoneode {
namespace {

namespace fs = std::filesystem;

// One REACLIB set as text, by column (reaclib.cpp's layout): names right-aligned in 5 columns from
// column 6, label in 44-47, flags in 48-49, Q from 53; coefficients 13 columns each.
std::string reaclib_set(int chapter, const std::vector<std::string>& names, const std::string& label, double Q,
                        const std::array<double, 7>& a, char resonance = 'n', char reverse = ' ') {
  std::string header(5, ' ');
  for (const std::string& name : names) header += std::string(5 - name.size(), ' ') + name;
  header.resize(43, ' ');
  std::string padded_label = label;
  padded_label.resize(4, ' ');
  header += padded_label + resonance + reverse + "   ";
  char q[32];
  std::snprintf(q, sizeof q, "%12.5e", Q);
  header += q;
  char line1[64], line2[64];
  std::snprintf(line1, sizeof line1, "%13.6e%13.6e%13.6e%13.6e", a[0], a[1], a[2], a[3]);
  std::snprintf(line2, sizeof line2, "%13.6e%13.6e%13.6e", a[4], a[5], a[6]);
  return std::to_string(chapter) + "\n" + header + "\n" + line1 + "\n" + line2 + "\n";
}

Network parse(const std::string& text) {
  std::istringstream in(text);
  return parse_reaclib(in, "cycle.reaclib", {});
}

double table_MeV(const MassTable& table, int Z, int A) {
  const double* excess = table.find(Z, A);
  EXPECT_NE(excess, nullptr) << Z << " " << A;
  return excess ? *excess : NAN;
}

// The zone's fluxes [mol/(g s)], dY/dt and sum_r Q_r flux_r [MeV mol/(g s)] at T9, rho, Y.
struct Balance {
  std::vector<double> flux, dYdt;
  double release = 0.0;  // sum Q flux
  double gross = 0.0;    // sum |Q flux|
};
Balance balance(const CompactNetwork& compact, const std::vector<double>& Y, double T9, double rho) {
  const RateView rates = compact.rate_view();
  const StepView net = compact.step_view();
  Balance b;
  const double ye = electron_fraction(net, Y.data());
  for (int r = 0; r < net.reaction_count; ++r)
    b.flux.push_back(reaction_flux(net, r, reaction_rate_factor(rates, r, T9, rho), Y.data(), ye));
  for (int i = 0; i < net.species_count; ++i)
    b.dYdt.push_back(creation_sum(net, i, b.flux.data()) - destruction_sum(net, i, b.flux.data()));
  b.release = energy_release_rate(net, b.flux.data());
  for (int r = 0; r < net.reaction_count; ++r) b.gross += std::fabs(net.q_value_MeV[r] * b.flux[r]);
  return b;
}

TEST(QValues, TheShippedTableHoldsNubase2020) {
  const MassTable table = read_mass_table(default_mass_table_path());
  EXPECT_EQ(table.excess_MeV.size(), 3558u);  // every ground state of nubase_4.mas20
  // Values read off nubase_4.mas20 by hand [keV].
  EXPECT_DOUBLE_EQ(table_MeV(table, 0, 1), 8071.3181e-3);
  EXPECT_DOUBLE_EQ(table_MeV(table, 1, 1), 7288.971064e-3);
  EXPECT_DOUBLE_EQ(table_MeV(table, 2, 4), 2424.91587e-3);
  EXPECT_EQ(table_MeV(table, 6, 12), 0.0);
  EXPECT_DOUBLE_EQ(table_MeV(table, 8, 16), -4737.0021e-3);
  EXPECT_DOUBLE_EQ(table_MeV(table, 4, 7), 15769.00e-3);
  EXPECT_FALSE(table.estimated.at({6, 12}));
  EXPECT_TRUE(table.estimated.at({3, 3}));  // 3Li: 28670# (systematics)
  EXPECT_EQ(table.find(200, 1), nullptr);
}

TEST(QValues, ABadTableNamesFileAndLine) {
  const fs::path path = fs::path(::testing::TempDir()) / ("zoneode_masses_" + std::to_string(::getpid()) + ".txt");
  auto error_of = [&](const std::string& text) -> std::string {
    std::ofstream(path) << text;
    try {
      read_mass_table(path.string());
    } catch (const InputError& error) {
      return error.what();
    }
    return "(no error)";
  };
  EXPECT_NE(error_of("# c\n6 12 0.0 0\n2 4 abc 0\n").find(path.string() + ":3: mass excess 'abc' is not a number"),
            std::string::npos);
  EXPECT_NE(error_of("6 12 0.0\n").find(":1: 3 fields, expected 4"), std::string::npos);
  EXPECT_NE(error_of("6 12 0.0 0\n6 12 0.0 0\n").find(":2: Z 6 A 12 listed twice"), std::string::npos);
  EXPECT_NE(error_of("7 6 0.0 0\n").find(":1: Z A '7 6' is no nuclide"), std::string::npos);
  EXPECT_NE(error_of("6 12 0.0 2\n").find(":1: estimated flag '2'"), std::string::npos);
  fs::remove(path);
}

// c12 + p -> n13, n13 + he4 -> o16 + p, o16 -> c12 + he4: a cycle that changes nothing. Rates set so
// that at the composition below the three fluxes are equal: every dY/dt is 0 (a steady state) and
// the energy released must be 0.
struct Cycle {
  double T9 = 2.0, rho = 1e4, flux = 1e-3;  // [GK], [g/cm^3], [mol/(g s)]
  std::vector<std::string> names = {"p", "he4", "c12", "n13", "o16"};
  std::vector<double> Y = {0.3, 0.05, 2e-3, 1e-7, 4e-3};  // [mol/g], in `names` order
  // Q_header of o16 -> c12 + he4: the masses give -7.16192 MeV; `planted` writes another.
  std::string library(double q_o16_decay) const {
    auto constant = [](double lambda) { return std::array<double, 7>{std::log(lambda), 0, 0, 0, 0, 0, 0}; };
    return reaclib_set(4, {"c12", "p", "n13"}, "test", 1.94349, constant(flux / (rho * Y[2] * Y[0]))) +
           reaclib_set(5, {"n13", "he4", "o16", "p"}, "test", 5.21843, constant(flux / (rho * Y[3] * Y[1]))) +
           reaclib_set(2, {"o16", "c12", "he4"}, "test", q_o16_decay, constant(flux / Y[4]));
  }
  // The library's rates are written with 7 digits: set them exactly so that the fluxes are equal.
  Network network(double q_o16_decay) const {
    std::istringstream in(library(q_o16_decay));
    Network network = parse_reaclib(in, "cycle.reaclib", {});
    network.reactions[0].sets[0].a[0] = std::log(flux / (rho * Y[2] * Y[0]));
    network.reactions[1].sets[0].a[0] = std::log(flux / (rho * Y[3] * Y[1]));
    network.reactions[2].sets[0].a[0] = std::log(flux / Y[4]);
    return network;
  }
  std::vector<double> abundances(const Network& network) const {
    std::vector<double> out(network.species_count());
    for (std::size_t k = 0; k < names.size(); ++k) out[network.find_species(names[k])] = Y[k];
    return out;
  }
};

TEST(QValues, ACycleAtASteadyStateReleasesNothingWithMassQValues) {
  const Cycle cycle;
  for (double header_q : {-7.16192, -7.1}) {  // consistent to the header's 5 digits; planted 62 keV off
    Network network = cycle.network(header_q);
    apply_q_values(network, QValueSource::masses, "cycle.reaclib");
    const Balance b = balance(CompactNetwork(network), cycle.abundances(network), cycle.T9, cycle.rho);
    for (double dYdt : b.dYdt) EXPECT_LT(std::fabs(dYdt), 1e-12 * cycle.flux);  // a steady state
    // Whatever the header says, Q from masses sums to 0 around the cycle.
    EXPECT_LT(std::fabs(b.release), 1e-6 * b.gross) << header_q;
    EXPECT_LT(std::fabs(b.release), 1e-12 * b.gross) << header_q;
    std::printf("masses, header Q(o16 -> c12 + he4) %g: release / gross = %.2e\n", header_q, b.release / b.gross);
  }
  // The library's own Q values: the planted one breaks the balance (62 keV of 14.3 MeV per turn).
  Network header = cycle.network(-7.1);
  const Balance planted = balance(CompactNetwork(header), cycle.abundances(header), cycle.T9, cycle.rho);
  std::printf("header, planted: release / gross = %.2e\n", planted.release / planted.gross);
  EXPECT_GT(std::fabs(planted.release), 1e-6 * planted.gross);
  EXPECT_NEAR(planted.release, (1.94349 + 5.21843 - 7.1) * cycle.flux, 1e-9 * cycle.flux);
}

// rp-z24 (shipped): with mass Q values, sum_r Q_r flux_r = -sum_i Delta_i dY_i/dt at any
// composition, so it vanishes wherever the composition is steady (equilibrium, cycles); the
// header Q values (not differences of one set of masses) break the identity.
TEST(QValues, OnRpZ24TheReleaseIsMinusTheMassChange) {
  const std::string dir = std::string(ZONEODE_SOURCE_DIR) + "/inputs/networks/";
  const std::vector<std::string> keep = read_nuclide_list(dir + "rp-z24.nuclides");
  const Network header = read_reaclib(dir + "rp-z24.reaclib", keep);
  Network masses = header;
  apply_q_values(masses, QValueSource::masses, "rp-z24");
  // The composition: every nuclide present (a hot, mixed zone), T9 5, rho 1e8.
  std::vector<double> Y(masses.species_count());
  for (int i = 0; i < masses.species_count(); ++i) Y[i] = 1e-3 / masses.species[i].A * (1.0 + 0.37 * (i % 7));
  auto mismatch = [&](const Network& network) {
    const Balance b = balance(CompactNetwork(network), Y, 5.0, 1e8);
    double mass_change = 0.0, scale = 0.0;  // -sum Delta dY/dt, and sum |Delta dY/dt|
    for (int i = 0; i < network.species_count(); ++i) {
      mass_change -= masses.species[i].mass_excess_MeV * b.dYdt[i];
      scale += std::fabs(masses.species[i].mass_excess_MeV * b.dYdt[i]);
    }
    return std::fabs(b.release - mass_change) / std::fmax(b.gross, scale);
  };
  const double with_masses = mismatch(masses), with_header = mismatch(header);
  std::printf("rp-z24 at T9 5: |release + sum Delta dY/dt| / gross: masses %.2e, header %.2e\n", with_masses,
              with_header);
  EXPECT_LT(with_masses, 1e-12);
  EXPECT_GT(with_header, 1e-6);
  // Every reaction's Q is its mass difference; the header agrees within the largest disagreement.
  Network filled = header;
  fill_missing_masses(filled, read_mass_table(default_mass_table_path()), "rp-z24");
  const std::vector<QValueDisagreement> rows = q_value_disagreements(filled);
  ASSERT_FALSE(rows.empty());
  std::printf("largest header - masses: %.1f keV (%s)\n", 1e3 * rows.front().difference_MeV(),
              filled.describe(filled.reactions[rows.front().reaction]).c_str());
  for (int r = 0; r < masses.reaction_count(); ++r)
    EXPECT_EQ(masses.reactions[r].Q_MeV, mass_q_value(masses, masses.reactions[r]));
}

TEST(QValues, HeaderKeepsTheLibrarysValues) {
  const Cycle cycle;
  Network network = parse(cycle.library(-7.1));
  const Network read = network;
  apply_q_values(network, QValueSource::header, "cycle.reaclib");
  for (int r = 0; r < network.reaction_count(); ++r) EXPECT_EQ(network.reactions[r].Q_MeV, read.reactions[r].Q_MeV);
  EXPECT_TRUE(std::isnan(network.species[0].mass_excess_MeV));  // nothing filled in
}

TEST(QValues, ANuclideWithoutAMassIsAnErrorNamingIt) {
  Network network = parse(reaclib_set(1, {"c12", "n12"}, "test", 1.0, {0, 0, 0, 0, 0, 0, 0}, 'w'));
  MassTable table;
  table.source = "small.txt";
  table.excess_MeV[{6, 12}] = 0.0;
  try {
    fill_missing_masses(network, table, "lib.reaclib");
    FAIL() << "no error";
  } catch (const InputError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("lib.reaclib: network.q_values: masses needs every nuclide's mass"), std::string::npos) << what;
    EXPECT_NE(what.find("'small.txt' has none for 1 nuclide(s): n12"), std::string::npos) << what;
    EXPECT_NE(what.find("network.q_values: header"), std::string::npos) << what;
  }
}

// The generator already takes every Q from its own masses, so q_values does not apply to it and its
// runs (quick, default) keep their result hashes: its strong reactions' Q are the mass differences
// (to rounding: it sums an exchange as ((a + b) - c) - d, mass_q_value as (a + b) - (c + d)). Its
// beta+ (and beta+ p) decays subtract the positron's 2 m_e c^2 from the atomic mass difference, a
// convention of its own that REACLIB's (and physics/neutrinos.hpp's) is not.
TEST(QValues, GeneratorStrongQValuesAreItsMassDifferences) {
  for (const char* preset : {"s16", "default"}) {
    const Network network = generate_network(generator_preset(preset));
    int strong = 0, positron = 0, bitwise = 0;
    for (const Reaction& reaction : network.reactions) {
      int charge_in = 0, charge_out = 0;
      for (int i : reaction.reactants) charge_in += network.species[i].Z;
      for (int i : reaction.products) charge_out += network.species[i].Z;
      const double mass_q = mass_q_value(network, reaction);
      if (charge_in == charge_out) {
        EXPECT_NEAR(reaction.Q_MeV, mass_q, 1e-13) << network.describe(reaction);
        ++strong;
        bitwise += reaction.Q_MeV == mass_q;
      } else if (charge_out == charge_in - 1 && !reaction.electron_capture) {
        EXPECT_NEAR(reaction.Q_MeV, mass_q - 2.0 * 0.51099895, 1e-12) << network.describe(reaction);
        ++positron;
      }
    }
    std::printf("%s: %d strong reactions at their mass difference (%d bitwise), %d beta+ at Q_EC - 2 m_e c^2\n",
                preset, strong, bitwise, positron);
    EXPECT_GT(strong, 0);
  }
}

TEST(QValues, TheDeckKeyIsValidated) {
  const fs::path folder = fs::path(::testing::TempDir()) / ("zoneode_qdeck_" + std::to_string(::getpid()));
  fs::create_directories(folder);
  const std::string dir = std::string(ZONEODE_SOURCE_DIR) + "/inputs/networks/";
  auto deck_with = [&](const std::string& q_line) {
    const fs::path path = folder / "deck.yaml";
    std::ofstream(path) << "network:\n  source: reaclib\n  file: " << dir << "rp-z24.reaclib\n  nuclides_file: " << dir
                        << "rp-z24.nuclides\n" << q_line
                        << "zones:\n  count: 1\n  temperature: {profile: constant, value: 1.0}\n"
                           "  density: {profile: constant, value: 1.0e6}\n  composition: {p: 1.0}\n"
                           "integrator:\n  end_time: 1.0e-6\n";
    return path.string();
  };
  EXPECT_EQ(load_deck(deck_with(""), {}).network.q_values, QValueSource::masses);
  EXPECT_EQ(load_deck(deck_with("  q_values: header\n"), {}).network.q_values, QValueSource::header);
  EXPECT_EQ(load_deck(deck_with(""), {"network.q_values=header"}).network.q_values, QValueSource::header);
  try {
    load_deck(deck_with("  q_values: mass\n"), {});
    FAIL() << "no error";
  } catch (const InputError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("q_values"), std::string::npos) << what;
    EXPECT_NE(what.find("masses"), std::string::npos) << what;
    EXPECT_NE(what.find("header"), std::string::npos) << what;
    EXPECT_NE(what.find(":5:"), std::string::npos) << what;  // the line
  }
  fs::remove_all(folder);
}

}  // namespace
}  // namespace zoneode
