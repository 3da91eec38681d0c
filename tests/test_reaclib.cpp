// The REACLIB reader against hand-written entries and hand-computed rates: names, parsing, the compact
// network's rate factors, the keep list (test_reaclib_errors.cpp: errors, nuclide lists, the real slice).
#include <gtest/gtest.h>

#include "reaclib_testing.hpp"

namespace zoneode {
namespace {

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

}  // namespace
}  // namespace zoneode
