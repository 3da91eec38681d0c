// The REACLIB reader's errors (file, line, what was expected), nuclide lists, the real rp-z12 slice
// and electron captures (test_reaclib.cpp has the parsing and the rates).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "reaclib_testing.hpp"

namespace zoneode {
namespace {

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
