// The REACLIB reader against hand-written entries, hand-computed rates and a real library slice.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "network/rates.hpp"
#include "network/compact.hpp"
#include "network/reaclib.hpp"

namespace zoneode {
namespace {

using Coefficients = std::array<double, 7>;

// The REACLIB formula written out independently of network/rates.hpp (pow instead of cbrt).
double sum_of_terms(const Coefficients& a, double T9, double* magnitude = nullptr) {
  const double terms[7] = {a[0],
                           a[1] / T9,
                           a[2] * std::pow(T9, -1.0 / 3.0),
                           a[3] * std::pow(T9, 1.0 / 3.0),
                           a[4] * T9,
                           a[5] * std::pow(T9, 5.0 / 3.0),
                           a[6] * std::log(T9)};
  double sum = 0.0, size = 0.0;
  for (double t : terms) {
    sum += t;
    size += std::fabs(t);
  }
  if (magnitude) *magnitude = size;
  return sum;
}
double hand_lambda(const Coefficients& a, double T9) { return std::exp(sum_of_terms(a, T9)); }

// Relative tolerance 1e-14, widened where the exponent is a sum of large terms: a rounding of
// the exponent by eps * sum|terms| is a relative error of that size in exp().
double tolerance(const std::vector<Coefficients>& sets, double T9) {
  double worst = 0.0;
  for (const auto& a : sets) {
    double magnitude = 0.0;
    sum_of_terms(a, T9, &magnitude);
    worst = std::max(worst, magnitude);
  }
  return 1e-14 + 4e-16 * worst;
}

void expect_lambda(const Reaction& reaction, const std::vector<Coefficients>& sets, double T9) {
  double expected = 0.0;
  for (const auto& a : sets) expected += hand_lambda(a, T9);
  EXPECT_NEAR(reaction_lambda(reaction, T9) / expected, 1.0, tolerance(sets, T9)) << "T9 = " << T9;
}

Network parse(const std::string& text, const std::vector<std::string>& keep = {},
              ReaclibSummary* summary = nullptr) {
  std::istringstream in(text);
  return parse_reaclib(in, "hand.reaclib", keep, summary);
}

// The message of the error that parsing `text` throws, or "(no error)".
std::string error_of(const std::string& text, const std::vector<std::string>& keep = {}) {
  try {
    std::istringstream in(text);
    parse_reaclib(in, "bad.reaclib", keep);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<std::string> names_of(const Network& net, const std::vector<int>& indices) {
  std::vector<std::string> names;
  for (int i : indices) names.push_back(net.species.at(i).name);
  return names;
}

// Column ruler for the entries below (the header's nuclides are in columns 6-35, label 44-47,
// flags 48 and 49, Q from 53):
//          1         2         3         4         5         6
// 1234567890123456789012345678901234567890123456789012345678901234
const std::string hand_library =
    // line 1: 12C(p,g)13N, chapter 4, only a0 = 2 (lambda = e^2), blank resonance flag
    "4\n"
    "         p  c12  n13                       ls09      1.94300e+00\n"
    " 2.000000e+00 0.000000e+00 0.000000e+00 0.000000e+00\n"
    " 0.000000e+00 0.000000e+00 0.000000e+00\n"
    // line 5: 13N decay, chapter 1, weak
    "1\n"
    "       n13  c13                            wc12w     2.22040e+00\n"
    "-6.760100e+00 0.000000e+00 0.000000e+00 0.000000e+00\n"
    " 0.000000e+00 0.000000e+00 0.000000e+00\n"
    // lines 9 and 13: 17O(p,a)14N as a resonant plus a non-resonant set: one reaction
    "5\n"
    "         p  o17  he4  n14                  il10r     1.19182e+00\n"
    " 5.533600e+00-2.114770e+00 0.000000e+00 0.000000e+00\n"
    " 0.000000e+00 0.000000e+00-1.500000e+00\n"
    "5\n"
    "         p  o17  he4  n14                  il10n     1.19182e+00\n"
    " 1.957900e+01 0.000000e+00-1.690780e+01 0.000000e+00\n"
    " 0.000000e+00-2.000000e+00-6.666670e-01\n"
    // line 17: triple alpha, chapter 8, coefficient fields touching
    "8\n"
    "       he4  he4  he4  c12                  fy05r     7.27500e+00\n"
    "-1.178840e+01-1.024460e+00-2.357000e+01 2.048860e+01\n"
    "-1.298820e+01-2.000000e+01-2.166670e+00\n"
    // line 21: chapter 10, a reverse ('v') set
    "10\n"
    "         p    p  he4  he4  he3  be7        mafonv   -1.12721e+01\n"
    "-1.318070e+01-1.308070e+02-2.179300e+01-1.981260e-09\n"
    " 1.842040e-10-1.464030e-11-3.666670e+00\n"
    // line 25: 7Be electron capture, label "  ec", weak
    "1\n"
    "       be7  li7                              ecw     8.63000e-01\n"
    "-2.383280e+01 0.000000e+00 0.000000e+00 3.020330e+00\n"
    "-7.421320e-02-7.923860e-03-6.501130e-01\n"
    // line 29: a6 = 2 alone: lambda = T9^2 exactly; 's' flag (8Be's breakup: spontaneous)
    "2\n"
    "       be8  he4  he4                       tests     1.56000e-01\n"
    " 0.000000e+00 0.000000e+00 0.000000e+00 0.000000e+00\n"
    " 0.000000e+00 0.000000e+00 2.000000e+00\n";

const Coefficients c12_pg = {2.0, 0, 0, 0, 0, 0, 0};
const Coefficients n13_decay = {-6.7601, 0, 0, 0, 0, 0, 0};
const Coefficients o17_pa_r = {5.5336, -2.11477, 0, 0, 0, 0, -1.5};
const Coefficients o17_pa_n = {19.579, 0, -16.9078, 0, 0, -2.0, -0.666667};
const Coefficients triple_alpha = {-11.7884, -1.02446, -23.57, 20.4886, -12.9882, -20.0, -2.16667};
const Coefficients mafo_reverse = {-13.1807, -130.807, -21.793, -1.98126e-09, 1.84204e-10, -1.46403e-11, -3.66667};
const Coefficients be7_ec = {-23.8328, 0, 0, 3.02033, -0.0742132, -0.00792386, -0.650113};
const Coefficients square = {0, 0, 0, 0, 0, 0, 2.0};

// ---------------------------------------------------------------------------------------------

TEST(ReaclibNuclideName, SpecialNames) {
  int Z = -1, A = -1;
  ASSERT_TRUE(parse_nuclide_name("n", Z, A));
  EXPECT_EQ(Z, 0);
  EXPECT_EQ(A, 1);
  ASSERT_TRUE(parse_nuclide_name("p", Z, A));
  EXPECT_EQ(Z, 1);
  EXPECT_EQ(A, 1);
  ASSERT_TRUE(parse_nuclide_name("d", Z, A));
  EXPECT_EQ(Z, 1);
  EXPECT_EQ(A, 2);
  ASSERT_TRUE(parse_nuclide_name("t", Z, A));
  EXPECT_EQ(Z, 1);
  EXPECT_EQ(A, 3);
}

TEST(ReaclibNuclideName, ElementSymbolAndMassNumber) {
  struct Case {
    const char* name;
    int Z, A;
  };
  const Case cases[] = {{"he4", 2, 4},   {"he3", 2, 3},    {"li7", 3, 7},     {"c12", 6, 12},   {"n14", 7, 14},
                        {"o16", 8, 16},  {"al26", 13, 26}, {"si28", 14, 28},  {"fe56", 26, 56}, {"ni56", 28, 56},
                        {"sn100", 50, 100}, {"u238", 92, 238}, {"og294", 118, 294}, {"He4", 2, 4},  {"C12", 6, 12},
                        {"Ni56", 28, 56}};
  for (const auto& c : cases) {
    int Z = -1, A = -1;
    ASSERT_TRUE(parse_nuclide_name(c.name, Z, A)) << c.name;
    EXPECT_EQ(Z, c.Z) << c.name;
    EXPECT_EQ(A, c.A) << c.name;
  }
}

TEST(ReaclibNuclideName, RejectsOtherText) {
  for (const char* name : {"", "x12", "he", "4he", "he04", "c5", "he4x", "al-6", "al*6", "c 12", "zz9", "h1", "h2",
                           "he 4", "q", "c1234"}) {
    int Z = -1, A = -1;
    EXPECT_FALSE(parse_nuclide_name(name, Z, A)) << "'" << name << "'";
  }
}

// ---------------------------------------------------------------------------------------------

TEST(ReaclibParse, HandWrittenLibrarySpeciesAndSummary) {
  ReaclibSummary summary;
  const Network net = parse(hand_library, {}, &summary);
  EXPECT_EQ(summary.sets_read, 8);
  EXPECT_EQ(summary.sets_kept, 8);
  EXPECT_EQ(summary.reactions_kept, 7);
  EXPECT_EQ(net.reaction_count(), 7);
  // Empty keep list: every nuclide, in order of first appearance (reactants before products).
  const std::vector<std::string> names = {"p", "c12", "n13", "c13", "o17", "he4", "n14", "he3", "be7", "li7", "be8"};
  const std::vector<int> Z = {1, 6, 7, 6, 8, 2, 7, 2, 4, 3, 4};
  const std::vector<int> A = {1, 12, 13, 13, 17, 4, 14, 3, 7, 7, 8};
  ASSERT_EQ(net.species_count(), 11);
  for (int i = 0; i < 11; ++i) {
    EXPECT_EQ(net.species[i].name, names[i]);
    EXPECT_EQ(net.species[i].Z, Z[i]) << names[i];
    EXPECT_EQ(net.species[i].A, A[i]) << names[i];
    EXPECT_TRUE(std::isnan(net.species[i].mass_excess_MeV)) << names[i];
  }
}

TEST(ReaclibParse, CaptureWithOnlyA0) {
  const Network net = parse(hand_library);
  const Reaction& r = net.reactions[0];
  EXPECT_EQ(names_of(net, r.reactants), (std::vector<std::string>{"p", "c12"}));
  EXPECT_EQ(names_of(net, r.products), (std::vector<std::string>{"n13"}));
  EXPECT_EQ(r.Q_MeV, 1.943);
  EXPECT_FALSE(r.electron_capture);
  ASSERT_EQ(r.sets.size(), 1u);
  EXPECT_EQ(r.sets[0].a, c12_pg);
  EXPECT_EQ(r.sets[0].label, "ls09");
  EXPECT_EQ(r.sets[0].resonance, 'n');  // blank column 48 is stored as 'n'
  EXPECT_FALSE(r.sets[0].reverse);
  // lambda = e^2 at every temperature.
  for (double T9 : {0.3, 1.0, 2.5}) EXPECT_NEAR(reaction_lambda(r, T9) / 7.38905609893065, 1.0, 1e-14) << T9;
}

TEST(ReaclibParse, DecayChapter1) {
  const Network net = parse(hand_library);
  const Reaction& r = net.reactions[1];
  EXPECT_EQ(names_of(net, r.reactants), (std::vector<std::string>{"n13"}));
  EXPECT_EQ(names_of(net, r.products), (std::vector<std::string>{"c13"}));
  EXPECT_EQ(r.Q_MeV, 2.2204);
  ASSERT_EQ(r.sets.size(), 1u);
  EXPECT_EQ(r.sets[0].a, n13_decay);
  EXPECT_EQ(r.sets[0].label, "wc12");
  EXPECT_EQ(r.sets[0].resonance, 'w');
  EXPECT_FALSE(r.electron_capture);
  // exp(-6.7601) = 1.1591e-3 /s: ln 2 / lambda = 598.0 s, the 10 minute half-life of 13N
  for (double T9 : {0.3, 1.0, 2.5}) expect_lambda(r, {n13_decay}, T9);
  EXPECT_NEAR(std::log(2.0) / reaction_lambda(r, 1.0), 598.0, 0.1);
}

TEST(ReaclibParse, ResonantAndNonResonantSetsAreSummed) {
  const Network net = parse(hand_library);
  const Reaction& r = net.reactions[2];
  EXPECT_EQ(names_of(net, r.reactants), (std::vector<std::string>{"p", "o17"}));
  EXPECT_EQ(names_of(net, r.products), (std::vector<std::string>{"he4", "n14"}));
  EXPECT_EQ(r.Q_MeV, 1.19182);
  ASSERT_EQ(r.sets.size(), 2u);
  EXPECT_EQ(r.sets[0].a, o17_pa_r);
  EXPECT_EQ(r.sets[1].a, o17_pa_n);
  EXPECT_EQ(r.sets[0].resonance, 'r');
  EXPECT_EQ(r.sets[1].resonance, 'n');
  EXPECT_EQ(r.sets[0].label, "il10");
  EXPECT_EQ(r.sets[1].label, "il10");
  for (double T9 : {0.3, 1.0, 2.5}) expect_lambda(r, {o17_pa_r, o17_pa_n}, T9);
}

TEST(ReaclibParse, TripleAlphaChapter8WithTouchingFields) {
  const Network net = parse(hand_library);
  const Reaction& r = net.reactions[3];
  EXPECT_EQ(names_of(net, r.reactants), (std::vector<std::string>{"he4", "he4", "he4"}));
  EXPECT_EQ(names_of(net, r.products), (std::vector<std::string>{"c12"}));
  EXPECT_EQ(r.Q_MeV, 7.275);
  ASSERT_EQ(r.sets.size(), 1u);
  EXPECT_EQ(r.sets[0].a, triple_alpha);
  EXPECT_EQ(r.sets[0].resonance, 'r');
  for (double T9 : {0.3, 1.0, 2.5}) expect_lambda(r, {triple_alpha}, T9);
}

TEST(ReaclibParse, Chapter10ReverseSet) {
  const Network net = parse(hand_library);
  const Reaction& r = net.reactions[4];
  EXPECT_EQ(names_of(net, r.reactants), (std::vector<std::string>{"p", "p", "he4", "he4"}));
  EXPECT_EQ(names_of(net, r.products), (std::vector<std::string>{"he3", "be7"}));
  EXPECT_EQ(r.Q_MeV, -11.2721);
  ASSERT_EQ(r.sets.size(), 1u);
  EXPECT_EQ(r.sets[0].a, mafo_reverse);
  EXPECT_TRUE(r.sets[0].reverse);
  EXPECT_EQ(r.sets[0].resonance, 'n');
  EXPECT_EQ(r.sets[0].label, "mafo");
  for (double T9 : {0.3, 1.0, 2.5}) expect_lambda(r, {mafo_reverse}, T9);
}

TEST(ReaclibParse, ElectronCapture) {
  const Network net = parse(hand_library);
  const Reaction& r = net.reactions[5];
  EXPECT_EQ(names_of(net, r.reactants), (std::vector<std::string>{"be7"}));
  EXPECT_EQ(names_of(net, r.products), (std::vector<std::string>{"li7"}));
  EXPECT_TRUE(r.electron_capture);
  EXPECT_EQ(r.Q_MeV, 0.863);
  ASSERT_EQ(r.sets.size(), 1u);
  EXPECT_EQ(r.sets[0].label, "ec");  // trimmed
  EXPECT_EQ(r.sets[0].resonance, 'w');
  EXPECT_FALSE(r.sets[0].reverse);
  EXPECT_EQ(r.sets[0].a, be7_ec);  // line 4's three fields touch
  for (double T9 : {0.3, 1.0, 2.5}) expect_lambda(r, {be7_ec}, T9);
}

TEST(ReaclibParse, ClosedFormRate) {
  const Network net = parse(hand_library);
  const Reaction& r = net.reactions[6];
  EXPECT_EQ(r.sets[0].resonance, 's');
  EXPECT_EQ(r.sets[0].label, "test");
  EXPECT_EQ(r.Q_MeV, 0.156);
  // a6 = 2 alone: lambda = exp(2 ln T9) = T9^2.
  EXPECT_NEAR(reaction_lambda(r, 2.0), 4.0, 4e-14);
  EXPECT_NEAR(reaction_lambda(r, 3.0), 9.0, 9e-14);
  EXPECT_NEAR(reaction_lambda(r, 0.5), 0.25, 0.25e-14);
  // And a0 = 2 alone: e^2 at any T9.
  EXPECT_NEAR(reaction_lambda(net.reactions[0], 1.0), std::exp(2.0), 1e-14 * std::exp(2.0));
}

TEST(ReaclibParse, SameNucleiDifferentLabelOrReverseStaySeparate) {
  const std::string text =
      "4\n"
      "         p    p    d                       bet+w     1.44206e+00\n"
      "-3.478630e+01 0.000000e+00-3.511930e+00 3.100860e+00\n"
      "-1.983140e-01 1.262510e-02-1.025170e+00\n"
      "4\n"
      "         p    p    d                         ecw     1.44206e+00\n"
      "-4.364990e+01-2.460640e-03-2.750700e+00-4.248770e-01\n"
      " 1.598700e-02-6.908750e-04-2.076250e-01\n"
      // same nuclides and label as the first, reverse: its own reaction
      "4\n"
      "         p    p    d                       bet+wv    1.44206e+00\n"
      " 1.000000e+00 0.000000e+00 0.000000e+00 0.000000e+00\n"
      " 0.000000e+00 0.000000e+00 0.000000e+00\n"
      // same key as the first again: summed into reaction 0
      "4\n"
      "         p    p    d                       bet+w     1.44206e+00\n"
      " 3.000000e+00 0.000000e+00 0.000000e+00 0.000000e+00\n"
      " 0.000000e+00 0.000000e+00 0.000000e+00\n";
  ReaclibSummary summary;
  const Network net = parse(text, {}, &summary);
  EXPECT_EQ(summary.sets_read, 4);
  EXPECT_EQ(summary.sets_kept, 4);
  EXPECT_EQ(summary.reactions_kept, 3);
  ASSERT_EQ(net.reaction_count(), 3);
  EXPECT_FALSE(net.reactions[0].electron_capture);
  EXPECT_TRUE(net.reactions[1].electron_capture);
  EXPECT_FALSE(net.reactions[2].electron_capture);
  EXPECT_EQ(net.reactions[0].sets.size(), 2u);
  EXPECT_EQ(net.reactions[0].sets[1].a[0], 3.0);
  EXPECT_TRUE(net.reactions[2].sets[0].reverse);
  EXPECT_NEAR(reaction_lambda(net.reactions[2], 1.7), std::exp(1.0), 1e-14 * std::exp(1.0));
}

TEST(ReaclibParse, Chapter8AcceptsTwoProducts) {
  const std::string text =
      "8\n"
      "         p    p  he4  he3  he3             testn     1.00000e+00\n"
      " 1.000000e+00 0.000000e+00 0.000000e+00 0.000000e+00\n"
      " 0.000000e+00 0.000000e+00 0.000000e+00\n";
  const Network net = parse(text);
  ASSERT_EQ(net.reaction_count(), 1);
  EXPECT_EQ(names_of(net, net.reactions[0].reactants), (std::vector<std::string>{"p", "p", "he4"}));
  EXPECT_EQ(names_of(net, net.reactions[0].products), (std::vector<std::string>{"he3", "he3"}));
}

TEST(ReaclibParse, ToleratesTrailingSpacesBlankLinesCrLfAndNoFinalNewline) {
  // The 7Be electron capture and triple alpha with the real files' trailing blanks (to column
  // 74), an upper-case name, a padded chapter line, CRLF ends, blank lines and no final newline.
  const std::string text =
      "\n"
      " 1  \r\n"
      "       Be7  li7                              ecw     8.63000e-01          \r\n"
      "-2.383280e+01 0.000000e+00 0.000000e+00 3.020330e+00                      \r\n"
      "-7.421320e-02-7.923860e-03-6.501130e-01                                   \r\n"
      "\n"
      "   \n"
      "8\n"
      "       he4  he4  he4  c12                  fy05r     7.27500e+00          \n"
      "-1.178840e+01-1.024460e+00-2.357000e+01 2.048860e+01                      \n"
      "-1.298820e+01-2.000000e+01-2.166670e+00";
  ReaclibSummary summary;
  const Network net = parse(text, {}, &summary);
  EXPECT_EQ(summary.sets_read, 2);
  ASSERT_EQ(net.reaction_count(), 2);
  EXPECT_EQ(net.species[0].name, "be7");
  EXPECT_EQ(net.species[0].Z, 4);
  EXPECT_EQ(net.reactions[0].sets[0].a, be7_ec);
  EXPECT_EQ(net.reactions[0].Q_MeV, 0.863);
  EXPECT_TRUE(net.reactions[0].electron_capture);
  EXPECT_EQ(net.reactions[1].sets[0].a, triple_alpha);
}

// ---------------------------------------------------------------------------------------------

const std::string compact_library =
    "5\n"
    "       c12  c12  he4 ne20                  cf88r     4.62100e+00\n"
    " 6.128630e+01 0.000000e+00-8.416500e+01-1.566270e+00\n"
    "-7.360840e-02-7.279700e-02-6.666670e-01\n"
    "8\n"
    "       he4  he4  he4  c12                  fy05r     7.27500e+00\n"
    "-1.178840e+01-1.024460e+00-2.357000e+01 2.048860e+01\n"
    "-1.298820e+01-2.000000e+01-2.166670e+00\n"
    "1\n"
    "       be7  li7                              ecw     8.63000e-01\n"
    "-2.383280e+01 0.000000e+00 0.000000e+00 3.020330e+00\n"
    "-7.421320e-02-7.923860e-03-6.501130e-01\n"
    "4\n"
    "         p    p    d                         ecw     1.44206e+00\n"
    "-4.364990e+01-2.460640e-03-2.750700e+00-4.248770e-01\n"
    " 1.598700e-02-6.908750e-04-2.076250e-01\n"
    "4\n"
    "         p    p    d                       bet+w     1.44206e+00\n"
    "-3.478630e+01 0.000000e+00-3.511930e+00 3.100860e+00\n"
    "-1.983140e-01 1.262510e-02-1.025170e+00\n";

const Coefficients carbon_fusion = {61.2863, 0, -84.165, -1.56627, -0.0736084, -0.072797, -0.666667};
const Coefficients pp_ec = {-43.6499, -0.00246064, -2.7507, -0.424877, 0.015987, -0.000690875, -0.207625};
const Coefficients pp_beta = {-34.7863, 0, -3.51193, 3.10086, -0.198314, 0.0126251, -1.02517};

TEST(ReaclibCompact, RateFactorsAndFluxesCarryDensityIdenticalFactorsAndYe) {
  const std::vector<std::string> keep = {"p", "d", "he4", "c12", "ne20", "be7", "li7"};
  const Network net = parse(compact_library, keep);
  ASSERT_EQ(net.reaction_count(), 5);
  const CompactNetwork compact(net);
  const StepView view = compact.step_view();
  // Y in the keep-list order: p, d, he4, c12, ne20, be7, li7
  const double Y[7] = {0.3, 1e-5, 0.1, 0.02, 0.005, 1e-6, 2e-7};
  // Ye = 1*0.3 + 1*1e-5 + 2*0.1 + 6*0.02 + 10*0.005 + 4*1e-6 + 3*2e-7, summed by hand
  const double ye = 0.6700146;
  EXPECT_NEAR(electron_fraction(view, Y), ye, 1e-15);
  const double T9 = 1.5, rho = 3.0e4;
  auto check = [&](int r, const Coefficients& a, double factor, double flux) {
    const double lambda = hand_lambda(a, T9);
    const double tol = tolerance({a}, T9) + 1e-15;  // plus the rounding of Ye
    const double rate_factor = reaction_rate_factor(compact.rate_view(), r, T9, rho);
    EXPECT_NEAR(rate_factor / (factor * lambda), 1.0, tol) << "reaction " << r;
    EXPECT_NEAR(reaction_flux(view, r, rate_factor, Y, electron_fraction(view, Y)) / (flux * lambda), 1.0, tol)
        << "reaction " << r;
  };
  // c12 + c12: rho lambda Y^2 / 2
  check(0, carbon_fusion, rho / 2, rho * 0.02 * 0.02 / 2);
  // triple alpha: rho^2 lambda Y^3 / 6
  check(1, triple_alpha, rho * rho / 6, rho * rho * 0.1 * 0.1 * 0.1 / 6);
  // 7Be electron capture: rho Ye lambda Y(be7)
  check(2, be7_ec, rho, rho * 1e-6 * ye);
  // p + p + e-: rho^2 Ye lambda Y(p)^2 / 2
  check(3, pp_ec, rho * rho / 2, rho * rho * 0.3 * 0.3 / 2 * ye);
  // p + p beta+: no Ye
  check(4, pp_beta, rho / 2, rho * 0.3 * 0.3 / 2);
  EXPECT_EQ(compact.reaction_flags, (std::vector<std::uint8_t>{0, 0, 1, 1, 0}));
  EXPECT_EQ(compact.q_value_MeV, (std::vector<double>{4.621, 7.275, 0.863, 1.44206, 1.44206}));
}

// ---------------------------------------------------------------------------------------------

TEST(ReaclibKeep, SetsOutsideTheKeepListAreDropped) {
  ReaclibSummary summary;
  // No be7/li7 and no d: the 7Be and p + p sets go; o16 is kept though no set names it.
  const Network net = parse(compact_library, {"ne20", "c12", "he4", "p", "o16"}, &summary);
  EXPECT_EQ(summary.sets_read, 5);
  EXPECT_EQ(summary.sets_kept, 2);
  EXPECT_EQ(summary.reactions_kept, 2);
  ASSERT_EQ(net.species_count(), 5);
  const std::vector<std::string> names = {"ne20", "c12", "he4", "p", "o16"};
  const std::vector<int> Z = {10, 6, 2, 1, 8}, A = {20, 12, 4, 1, 16};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(net.species[i].name, names[i]);
    EXPECT_EQ(net.species[i].Z, Z[i]);
    EXPECT_EQ(net.species[i].A, A[i]);
  }
  ASSERT_EQ(net.reaction_count(), 2);
  EXPECT_EQ(net.reactions[0].reactants, (std::vector<int>{1, 1}));
  EXPECT_EQ(net.reactions[0].products, (std::vector<int>{2, 0}));
  EXPECT_EQ(net.reactions[1].reactants, (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(net.reactions[1].products, (std::vector<int>{1}));
}

TEST(ReaclibKeep, OnlyElectronCaptureKept) {
  ReaclibSummary summary;
  const Network net = parse(compact_library, {"li7", "be7"}, &summary);
  EXPECT_EQ(summary.sets_kept, 1);
  EXPECT_EQ(summary.reactions_kept, 1);
  ASSERT_EQ(net.reaction_count(), 1);
  EXPECT_TRUE(net.reactions[0].electron_capture);
  EXPECT_EQ(net.reactions[0].reactants, (std::vector<int>{1}));
  EXPECT_EQ(net.reactions[0].products, (std::vector<int>{0}));
}

TEST(ReaclibKeep, BadKeepListEntriesAreErrors) {
  const std::string unknown = error_of(compact_library, {"he4", "xx7"});
  EXPECT_TRUE(contains(unknown, "bad.reaclib")) << unknown;
  EXPECT_TRUE(contains(unknown, "'xx7'")) << unknown;
  const std::string twice = error_of(compact_library, {"he4", "c12", "he4"});
  EXPECT_TRUE(contains(twice, "bad.reaclib")) << twice;
  EXPECT_TRUE(contains(twice, "'he4'")) << twice;
}

// ---------------------------------------------------------------------------------------------
// Malformed input: two good sets and a blank line (lines 1-9), then the set under test from
// line 10 (chapter), 11 (header), 12 and 13 (coefficients).

const std::string good_prefix =
    "4\n"
    "         p  c12  n13                       ls09      1.94300e+00\n"
    " 2.000000e+00 0.000000e+00 0.000000e+00 0.000000e+00\n"
    " 0.000000e+00 0.000000e+00 0.000000e+00\n"
    "\n"
    "1\n"
    "       n13  c13                            wc12w     2.22040e+00\n"
    "-6.760100e+00 0.000000e+00 0.000000e+00 0.000000e+00\n"
    " 0.000000e+00 0.000000e+00 0.000000e+00\n";
const std::string good_chapter = "5\n";
const std::string good_header = "         p  o17  he4  n14                  il10r     1.19182e+00\n";
const std::string good_line3 = " 5.533600e+00-2.114770e+00 0.000000e+00 0.000000e+00\n";
const std::string good_line4 = " 0.000000e+00 0.000000e+00-1.500000e+00\n";

std::string with(const std::string& chapter, const std::string& header, const std::string& line3,
                 const std::string& line4) {
  return good_prefix + chapter + header + line3 + line4;
}

void expect_error(const std::string& text, const std::string& where, const std::string& what) {
  const std::string message = error_of(text);
  EXPECT_TRUE(contains(message, where)) << "expected '" << where << "' in: " << message;
  EXPECT_TRUE(contains(message, what)) << "expected '" << what << "' in: " << message;
}

TEST(ReaclibErrors, GoodTextParses) {
  ReaclibSummary summary;
  parse(with(good_chapter, good_header, good_line3, good_line4), {}, &summary);
  EXPECT_EQ(summary.sets_read, 3);
}

TEST(ReaclibErrors, ChapterNotAnIntegerOneToEleven) {
  for (const std::string chapter : {"12\n", "0\n", "x\n", "1.5\n", "-1\n", "5 5\n"}) {
    expect_error(with(chapter, good_header, good_line3, good_line4), "bad.reaclib:10:", "expected an integer 1 to 11");
  }
}

TEST(ReaclibErrors, HeaderTooShort) {
  expect_error(with(good_chapter, "         p  o17  he4  n14\n", good_line3, good_line4), "bad.reaclib:11:",
               "header line too short");
  // a missing header: the first coefficient line is no header either
  expect_error(good_prefix + good_chapter + good_line3 + good_line4 + "5\n", "bad.reaclib:11:",
               "header line too short");
}

TEST(ReaclibErrors, NuclideNameDoesNotParse) {
  expect_error(with(good_chapter, "         p  o17  xx4  n14                  il10r     1.19182e+00\n", good_line3,
                    good_line4),
               "bad.reaclib:11:", "'xx4' is not a nuclide name");
  // names must be left-packed: a gap between two names is an error
  expect_error(with(good_chapter, "         p  o17       he4  n14             il10r     1.19182e+00\n", good_line3,
                    good_line4),
               "bad.reaclib:11:", "follows a blank field");
}

TEST(ReaclibErrors, NuclideCountDoesNotMatchChapter) {
  // chapter 5 is a + b -> c + d, here with one product
  expect_error(with(good_chapter, "         p  o17  n14                       il10r     1.19182e+00\n", good_line3,
                    good_line4),
               "bad.reaclib:11:", "expected 2 reactants and 2 product(s)");
  // chapter 1 with three names
  expect_error(with("1\n", good_header, good_line3, good_line4), "bad.reaclib:11:",
               "expected 1 reactants and 1 product(s)");
  // chapter 8 with only the three reactants
  expect_error(with("8\n", "       he4  he4  he4                       fy05r     7.27500e+00\n", good_line3,
                    good_line4),
               "bad.reaclib:11:", "expected 3 reactants and 1 or 2 product(s)");
}

TEST(ReaclibErrors, BadFlagsAndLabel) {
  expect_error(with(good_chapter, "         p  o17  he4  n14                  il10x     1.19182e+00\n", good_line3,
                    good_line4),
               "bad.reaclib:11:", "column 48");
  expect_error(with(good_chapter, "         p  o17  he4  n14                  il10rq    1.19182e+00\n", good_line3,
                    good_line4),
               "bad.reaclib:11:", "column 49");
  expect_error(with(good_chapter, "         p  o17  he4  n14                      r     1.19182e+00\n", good_line3,
                    good_line4),
               "bad.reaclib:11:", "label");
  expect_error(with(good_chapter, "         p  o17  he4  n14                  il10r     1.19x82e+00\n", good_line3,
                    good_line4),
               "bad.reaclib:11:", "Q value");
}

TEST(ReaclibErrors, CoefficientIsNotANumber) {
  // the whole 13-character field must parse: a prefix that is a number is not enough
  expect_error(with(good_chapter, good_header, " 5.533600e+00-2.114770e+00 0.00000e+0x0 0.000000e+00\n", good_line4),
               "bad.reaclib:12:", "coefficient a2");
  expect_error(with(good_chapter, good_header, good_line3, " 0.000000e+00 0.0000abc+00-1.500000e+00\n"),
               "bad.reaclib:13:", "coefficient a5");
  // "nan" is a number, but a coefficient must be finite
  expect_error(with(good_chapter, good_header, " 5.533600e+00 nan          0.000000e+00 0.000000e+00\n", good_line4),
               "bad.reaclib:12:", "coefficient a1");
  // a6 missing: line 4 too short
  expect_error(with(good_chapter, good_header, good_line3, " 0.000000e+00 0.000000e+00\n"), "bad.reaclib:13:",
               "coefficient a6");
  // a fifth number on line 3
  expect_error(with(good_chapter, good_header, " 5.533600e+00-2.114770e+00 0.000000e+00 0.000000e+00 1.0\n",
                    good_line4),
               "bad.reaclib:12:", "text after column 52");
}

TEST(ReaclibErrors, TruncatedSetAtEndOfFile) {
  expect_error(good_prefix + good_chapter + good_header, "bad.reaclib:10:", "set starting at line 10 is truncated");
  expect_error(good_prefix + good_chapter + good_header + good_line3, "bad.reaclib:10:",
               "set starting at line 10 is truncated");
  expect_error(good_prefix + "\n\n5", "bad.reaclib:12:", "set starting at line 12 is truncated");
}

TEST(ReaclibErrors, QValuesOfOneReactionDisagree) {
  // line 11's set has the key of the set at lines 14-17, whose header (line 15) gives another Q
  const std::string text = with(good_chapter, good_header, good_line3, good_line4) + good_chapter +
                           "         p  o17  he4  n14                  il10n     1.29182e+00\n" + good_line3 +
                           good_line4;
  expect_error(text, "bad.reaclib:15:", "line 11");
  // within 1e-6 MeV: accepted (Q is read to the end of the line, so more digits fit)
  const std::string close = with(good_chapter, good_header, good_line3, good_line4) + good_chapter +
                            "         p  o17  he4  n14                  il10n     1.1918205e+00\n" + good_line3 +
                            good_line4;
  EXPECT_EQ(error_of(close), "(no error)");
}

TEST(ReaclibErrors, MissingFiles) {
  const std::string path = "/nonexistent-dir/none.reaclib";
  try {
    read_reaclib(path, {});
    FAIL() << "no error for a missing file";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), "cannot open '" + path + "'")) << e.what();
  }
  try {
    read_nuclide_list("/nonexistent-dir/none.nuclides");
    FAIL() << "no error for a missing list";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), "cannot open '/nonexistent-dir/none.nuclides'")) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/zoneode_reaclib_" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(ReaclibNuclideList, ReadsNamesIgnoringCommentsAndBlanks) {
  const std::string path = write_temp("good.nuclides", "# the light ones\n\n  p  \nhe4 # alpha\n\tC12\nn\n");
  EXPECT_EQ(read_nuclide_list(path), (std::vector<std::string>{"p", "he4", "c12", "n"}));
}

TEST(ReaclibNuclideList, UnknownAndDuplicateNamesNameFileAndLine) {
  const std::string unknown = write_temp("unknown.nuclides", "# list\np\n\nhe4\nxx9\n");
  try {
    read_nuclide_list(unknown);
    FAIL() << "no error for an unknown name";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), unknown + ":5:")) << e.what();
    EXPECT_TRUE(contains(e.what(), "'xx9'")) << e.what();
  }
  const std::string twice = write_temp("twice.nuclides", "p\nhe4\n# again\np\n");
  try {
    read_nuclide_list(twice);
    FAIL() << "no error for a duplicate";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), twice + ":4:")) << e.what();
    EXPECT_TRUE(contains(e.what(), "line 1")) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------

TEST(ReaclibRealLibrary, RpZ12SliceReadsCompletely) {
  const std::string dir = ZONEODE_REACLIB_DATA;  // CMake cache variable of that name
  const std::string path = dir + "/rp-z12.reaclib";
  const std::string list = dir + "/rp-z12.nuclides";
  if (!std::filesystem::exists(path) || !std::filesystem::exists(list)) {
    // CI has the data: there, a missing library is a broken setup, not a reason to skip.
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::string_view(ci) == "true") FAIL() << "no " << path << " (ZONEODE_REACLIB_DATA) with CI=true";
    GTEST_SKIP() << "no " << path << " (ZONEODE_REACLIB_DATA=" << dir << ")";
  }
  const std::vector<std::string> nuclides = read_nuclide_list(list);
  ASSERT_EQ(nuclides.size(), 42u);  // README.md

  // An independent count of the (chapter, nuclides, label, reverse) groups, by cutting the same
  // columns out of the raw lines. A Python scan of the same columns gave 176 when this was written.
  int scanned_sets = 0;
  std::set<std::string> groups;
  {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    for (std::size_t i = 0; i < lines.size();) {
      if (lines[i].find_first_not_of(' ') == std::string::npos) {
        ++i;
        continue;
      }
      ASSERT_LT(i + 1, lines.size());
      const std::string& header = lines[i + 1];
      ASSERT_GE(header.size(), 49u);
      groups.insert(lines[i] + "|" + header.substr(5, 30) + "|" + header.substr(43, 4) + "|" + header[48]);
      ++scanned_sets;
      i += 4;
    }
  }
  EXPECT_EQ(scanned_sets, 377);
  EXPECT_EQ(groups.size(), 176u);

  ReaclibSummary summary;
  const Network net = read_reaclib(path, nuclides, &summary);
  EXPECT_EQ(summary.sets_read, 377);
  EXPECT_EQ(summary.sets_kept, 377);
  EXPECT_EQ(summary.reactions_kept, static_cast<int>(groups.size()));
  EXPECT_EQ(net.reaction_count(), static_cast<int>(groups.size()));
  ASSERT_EQ(net.species_count(), 42);
  for (int i = 0; i < 42; ++i) EXPECT_EQ(net.species[i].name, nuclides[i]);
  std::size_t sets = 0;
  for (const auto& r : net.reactions) sets += r.sets.size();
  EXPECT_EQ(sets, 377u);

  int strong = 0, captures = 0, reverse = 0, chapter10 = 0;
  for (const auto& r : net.reactions) {
    int Zin = 0, Ain = 0, Zout = 0, Aout = 0;
    for (int i : r.reactants) Zin += net.species[i].Z, Ain += net.species[i].A;
    for (int i : r.products) Zout += net.species[i].Z, Aout += net.species[i].A;
    const bool weak = r.sets.front().resonance == 'w';
    EXPECT_EQ(Ain, Aout) << net.describe(r);  // every reaction conserves baryons
    if (!weak && !r.electron_capture) {
      ++strong;
      EXPECT_EQ(Zin, Zout) << net.describe(r);
    }
    if (r.electron_capture) {
      ++captures;
      EXPECT_EQ(Zout, Zin - 1) << net.describe(r);  // one electron absorbed
    }
    if (r.sets.front().reverse) ++reverse;
    if (r.reactants.size() == 4) ++chapter10;
    for (const auto& set : r.sets) {
      EXPECT_EQ(set.resonance == 'w', weak) << net.describe(r);  // one kind of rate per reaction
      EXPECT_EQ(set.reverse, r.sets.front().reverse);
    }
  }
  EXPECT_GT(strong, 100);
  EXPECT_GE(captures, 1);
  EXPECT_GE(reverse, 1);
  EXPECT_GE(chapter10, 1);

  // The triple alpha: the file's three fy05 sets (lines 822-832), coefficients copied by hand.
  const int he4 = net.find_species("he4"), c12 = net.find_species("c12");
  const Reaction* alpha3 = nullptr;
  for (const auto& r : net.reactions) {
    if (r.reactants == std::vector<int>{he4, he4, he4} && r.products == std::vector<int>{c12} && !r.sets[0].reverse)
      alpha3 = &r;
  }
  ASSERT_NE(alpha3, nullptr);
  EXPECT_EQ(alpha3->Q_MeV, 7.275);
  ASSERT_EQ(alpha3->sets.size(), 3u);
  const std::vector<Coefficients> fy05 = {
      {-24.3505, -4.12656, -13.49, 21.4259, -1.34769, 0.0879816, -13.1653},
      {-11.7884, -1.02446, -23.57, 20.4886, -12.9882, -20.0, -2.16667},
      {-0.971052, 0.0, -37.06, 29.3493, -115.507, -10.0, -1.33333}};
  for (double T9 : {0.3, 1.0, 2.5}) expect_lambda(*alpha3, fy05, T9);
}

}  // namespace
}  // namespace zoneode

namespace zoneode {
namespace {

// Electron captures are flagged as pynucastro flags them: by the label, "ec" or "bec" once
// trimmed. The weak flag ('w', column 48) disagrees with that rule both ways, and a label that
// merely contains "ec" is not a capture (the reader used to flag every such label).
TEST(ReaclibElectronCaptures, TheLabelDecidesAsInPynucastro) {
  const std::string coefficients =
      " 1.000000e+00 0.000000e+00 0.000000e+00 0.000000e+00\n"
      " 0.000000e+00 0.000000e+00 0.000000e+00\n";
  const std::string text =
      "1\n       be7  li7                              ecw     8.63000e-01\n" + coefficients +   // both agree
      "1\n       be7  li7                             becw     8.63000e-01\n" + coefficients +   // both agree
      "4\n         p    p    d                         ecn     1.44206e+00\n" + coefficients +   // label only
      "1\n       n13  c13                            wc12w     2.22040e+00\n" + coefficients +   // weak flag only
      "4\n         p  c12  n13                       rec1n     1.94350e+00\n" + coefficients +   // contains "ec"
      "4\n         p  c12  n13                        ecxn     1.94350e+00\n" + coefficients;   // contains "ec"
  ReaclibSummary summary;
  const Network net = parse(text, {}, &summary);
  ASSERT_EQ(net.reaction_count(), 6);
  const bool expected[6] = {true, true, true, false, false, false};
  for (int r = 0; r < 6; ++r) EXPECT_EQ(net.reactions[r].electron_capture, expected[r]) << net.describe(net.reactions[r]);
  EXPECT_EQ(summary.electron_captures, 3);
  EXPECT_EQ(summary.captures_without_weak_flag, 1);  // p + p -> d labelled "ec" without 'w'
  EXPECT_EQ(summary.weak_sets_not_captures, 1);      // the n13 beta+ decay
  EXPECT_TRUE(reaclib_is_electron_capture("  ec"));
  EXPECT_TRUE(reaclib_is_electron_capture(" bec"));
  EXPECT_FALSE(reaclib_is_electron_capture("ecw1"));
  EXPECT_FALSE(reaclib_is_electron_capture("beca"));
  EXPECT_FALSE(reaclib_is_electron_capture("bet+"));

  // Captures get one more power of density (the rate is per unit rho*Ye), the others do not:
  // be7 -> li7 is rho^1, p + p -> d (ec) rho^2; n13 -> c13 rho^0, p + c12 -> n13 rho^1.
  const CompactNetwork compact(net);
  const std::uint8_t powers[6] = {1, 1, 2, 0, 1, 1};
  for (int r = 0; r < 6; ++r) EXPECT_EQ(compact.density_power[r], powers[r]) << r;
}

TEST(ReaclibElectronCaptures, ACaptureMustAbsorbOneCharge) {
  // c12(p,g)n13 labelled "ec": the products carry the reactants' charge, so no electron went in.
  const std::string text =
      "4\n         p  c12  n13                         ecn     1.94350e+00\n"
      " 1.000000e+00 0.000000e+00 0.000000e+00 0.000000e+00\n"
      " 0.000000e+00 0.000000e+00 0.000000e+00\n";
  const std::string message = error_of(text);
  EXPECT_TRUE(contains(message, "bad.reaclib:2:")) << message;
  EXPECT_TRUE(contains(message, "set labelled 'ec' (an electron capture) has charge 7 in and 7 out")) << message;
}

}  // namespace
}  // namespace zoneode
