// Test helpers of the REACLIB reader tests (test_reaclib*.cpp): the REACLIB formula written out
// independently of network/rates.hpp, a hand-written library and its coefficients, error capture.
#pragma once

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

using Coefficients = std::array<double, 7>;

// The REACLIB formula written out independently of network/rates.hpp (pow instead of cbrt).
inline double sum_of_terms(const Coefficients& a, double T9, double* magnitude = nullptr) {
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
inline double hand_lambda(const Coefficients& a, double T9) { return std::exp(sum_of_terms(a, T9)); }

// Relative tolerance 1e-14, widened where the exponent is a sum of large terms: a rounding of
// the exponent by eps * sum|terms| is a relative error of that size in exp().
inline double tolerance(const std::vector<Coefficients>& sets, double T9) {
  double worst = 0.0;
  for (const auto& a : sets) {
    double magnitude = 0.0;
    sum_of_terms(a, T9, &magnitude);
    worst = std::max(worst, magnitude);
  }
  return 1e-14 + 4e-16 * worst;
}

inline void expect_lambda(const Reaction& reaction, const std::vector<Coefficients>& sets, double T9) {
  double expected = 0.0;
  for (const auto& a : sets) expected += hand_lambda(a, T9);
  EXPECT_NEAR(reaction_lambda(reaction, T9) / expected, 1.0, tolerance(sets, T9)) << "T9 = " << T9;
}

inline Network parse(const std::string& text, const std::vector<std::string>& keep = {},
              ReaclibSummary* summary = nullptr) {
  std::istringstream in(text);
  return parse_reaclib(in, "hand.reaclib", keep, summary);
}

// The message of the error that parsing `text` throws, or "(no error)".
inline std::string error_of(const std::string& text, const std::vector<std::string>& keep = {}) {
  try {
    std::istringstream in(text);
    parse_reaclib(in, "bad.reaclib", keep);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

inline std::vector<std::string> names_of(const Network& net, const std::vector<int>& indices) {
  std::vector<std::string> names;
  for (int i : indices) names.push_back(net.species.at(i).name);
  return names;
}

// Column ruler for the entries below (the header's nuclides are in columns 6-35, label 44-47,
// flags 48 and 49, Q from 53):
//          1         2         3         4         5         6
// 1234567890123456789012345678901234567890123456789012345678901234
inline const std::string hand_library =
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

inline const Coefficients c12_pg = {2.0, 0, 0, 0, 0, 0, 0};
inline const Coefficients n13_decay = {-6.7601, 0, 0, 0, 0, 0, 0};
inline const Coefficients o17_pa_r = {5.5336, -2.11477, 0, 0, 0, 0, -1.5};
inline const Coefficients o17_pa_n = {19.579, 0, -16.9078, 0, 0, -2.0, -0.666667};
inline const Coefficients triple_alpha = {-11.7884, -1.02446, -23.57, 20.4886, -12.9882, -20.0, -2.16667};
inline const Coefficients mafo_reverse = {-13.1807, -130.807, -21.793, -1.98126e-09, 1.84204e-10, -1.46403e-11, -3.66667};
inline const Coefficients be7_ec = {-23.8328, 0, 0, 3.02033, -0.0742132, -0.00792386, -0.650113};
inline const Coefficients square = {0, 0, 0, 0, 0, 0, 2.0};


}  // namespace zoneode
