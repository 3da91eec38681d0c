// The zoneode network file: bit-exact round trips, safe writes, and an error with source and line
// for every kind of malformed input.
#include <gtest/gtest.h>

#include "network_testing.hpp"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "network/generator.hpp"
#include "network/network.hpp"
#include "network/network_checks.hpp"
#include "network/network_file.hpp"

namespace zoneode {
namespace {

std::string to_text(const Network& network) {
  std::ostringstream out;
  write_network_file(network, out);
  return out.str();
}

Network from_text(const std::string& text, const std::string& source = "test.znet") {
  std::istringstream in(text);
  return parse_network_file(in, source);
}

RateSet set_of(std::array<double, 7> a, std::string label, char resonance, bool reverse) {
  RateSet set;
  set.a = a;
  set.label = std::move(label);
  set.resonance = resonance;
  set.reverse = reverse;
  return set;
}

// What REACLIB networks look like (NaN masses, an electron capture, several sets to a reaction),
// with awkward doubles and names that need escaping.
Network awkward_network() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Network net;
  net.name = "reaclib slice # 7, 50% done";
  net.species = {{"p", 1, 1, nan}, {"he4", 2, 4, nan}, {"be7", 4, 7, nan}, {"li7", 3, 7, nan},
                 {"c12", 6, 12, -0.0}, {"odd name", 5, 11, 1e-310}, {"#x", 6, 12, 0.1 + 0.2}};
  Reaction ec;
  ec.reactants = {2};
  ec.products = {3};
  ec.Q_MeV = 0.862;
  ec.electron_capture = true;
  ec.sets = {set_of({-23.8328, 0, 0, 0, 0, 0, -0.5}, "bkmo", 'w', false)};
  Reaction multi;
  multi.reactants = {1, 1, 1};
  multi.products = {4};
  multi.Q_MeV = 7.27474;
  multi.sets = {set_of({-0.971052, 0, -37.06, 29.3493, -115.507, -10, -1.33333}, "fy05", 'r', false),
                set_of({-11.7884, -1.02446, -23.57, 20.4886, -12.9882, -20, -2.16667}, "fy05", 'r', false),
                set_of({-24.3505, -4.12656, -13.49, 21.4259, -1.34769, 0.0879816, -13.1653}, "fy05", 'n', false)};
  Reaction reverse;
  reverse.reactants = {4};
  reverse.products = {1, 1, 1};
  reverse.Q_MeV = -7.27474;
  reverse.sets = {set_of({std::nextafter(1.0, 2.0), 1.7976931348623157e308, -4.9406564584124654e-324, 1.0 / 3.0, -2.0 / 3.0, 0, 5e-324},
                         "", 's', true)};
  Reaction odd;
  odd.reactants = {5, 0};
  odd.products = {6};
  odd.Q_MeV = 1.0 / 7.0;
  odd.sets = {set_of({1, 2, 3, 4, 5, 6, 7}, "a b", 'n', false)};
  net.reactions = {ec, multi, reverse, odd};
  return net;
}

TEST(NetworkFileRoundTrip, GeneratedNetworksReadBackBitExact) {
  for (const char* preset : {"s16", "default", "s365"}) {
    const Network original = generate_network(generator_preset(preset));
    const std::string text = to_text(original);
    const Network parsed = from_text(text);
    expect_identical(original, parsed);
    EXPECT_EQ(network_hash(original), network_hash(parsed)) << preset;
    EXPECT_EQ(to_text(parsed), text) << preset;  // and writes back to the same text
  }
}

TEST(NetworkFileRoundTrip, NaNMassesElectronCapturesMultiSetReactionsAndAwkwardValues) {
  const Network original = awkward_network();
  const std::string text = to_text(original);
  const Network parsed = from_text(text);
  expect_identical(original, parsed);
  EXPECT_EQ(network_hash(original), network_hash(parsed));
  EXPECT_TRUE(std::isnan(parsed.species[0].mass_excess_MeV));
  EXPECT_TRUE(parsed.reactions[0].electron_capture);
  EXPECT_FALSE(parsed.reactions[1].electron_capture);
  EXPECT_EQ(parsed.reactions[1].sets.size(), 3u);
  EXPECT_TRUE(std::signbit(parsed.species[4].mass_excess_MeV));  // -0.0 stays negative
  EXPECT_EQ(parsed.species[5].name, "odd name");
  EXPECT_EQ(parsed.species[6].name, "#x");
  EXPECT_EQ(parsed.reactions[2].sets[0].label, "");
  EXPECT_EQ(parsed.reactions[3].sets[0].label, "a b");
  EXPECT_EQ(parsed.name, "reaclib slice # 7, 50% done");
}

TEST(NetworkFileRoundTrip, TextHasTheDocumentedLines) {
  Network net;
  net.name = "tiny";
  net.species = {{"he4", 2, 4, 2.5}, {"c12", 6, 12, 0.0}};
  Reaction triple;
  triple.reactants = {0, 0, 0};
  triple.products = {1};
  triple.Q_MeV = 7.5;
  triple.sets = {set_of({-17.5, -4.25, 0, 0, 0, 0, -3}, "cf88", 'r', false)};
  net.reactions = {triple};
  std::istringstream lines(to_text(net));
  std::vector<std::string> got;
  for (std::string line; std::getline(lines, line);)
    if (line.empty() || line[0] != '#') got.push_back(line);
  const std::vector<std::string> expected = {
      "zoneode-network 1", "name tiny", "species 2", "he4 2 4 2.5", "c12 6 12 0", "reactions 1",
      "reaction he4 he4 he4 -> c12 Q 7.5 ec 0 sets 1", "  set cf88 r 0 -17.5 -4.25 0 0 0 0 -3", "end"};
  EXPECT_EQ(got, expected);
}

// The example in the format description must be a valid file with the values it describes.
TEST(NetworkFileRoundTrip, TheDocumentedExampleParses) {
  std::ifstream doc(std::string(ZONEODE_SOURCE_DIR) + "/inputs/network_file_format.md");
  ASSERT_TRUE(doc) << "inputs/network_file_format.md";
  std::string line, example;
  bool inside = false, found = false;
  while (std::getline(doc, line)) {
    if (!inside && line == "```zoneode-network") {
      inside = found = true;
      continue;
    }
    if (inside && line == "```") break;
    if (inside) example += line + "\n";
  }
  ASSERT_TRUE(found) << "no ```zoneode-network block";
  const Network net = from_text(example, "network_file_format.md");
  ASSERT_EQ(net.species_count(), 5);
  EXPECT_EQ(net.species[4].name, "li7");
  EXPECT_TRUE(std::isnan(net.species[3].mass_excess_MeV));
  ASSERT_EQ(net.reaction_count(), 4);
  EXPECT_EQ(net.reactions[0].sets.size(), 2u);
  EXPECT_TRUE(net.reactions[2].sets[0].reverse);
  EXPECT_TRUE(net.reactions[3].electron_capture);
  EXPECT_EQ(net.reactions[1].Q_MeV, 7.1619);
}

class NetworkFileDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::filesystem::path(ZONEODE_BINARY_DIR) / "test_network_file_tmp" /
              ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(folder_);
    std::filesystem::create_directories(folder_);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }
  std::filesystem::path folder_;
};

TEST_F(NetworkFileDisk, WriteThenReadAndOverwrite) {
  const std::string path = (folder_ / "net.znet").string();
  const Network first = generate_network(generator_preset("s16"));
  write_network_file(first, path);
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
  expect_identical(first, read_network_file(path));
  // A second write replaces the file whole.
  const Network second = awkward_network();
  write_network_file(second, path);
  expect_identical(second, read_network_file(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
}

TEST_F(NetworkFileDisk, WriteIntoAMissingFolderThrowsAndLeavesNoFile) {
  const std::filesystem::path path = folder_ / "no" / "such" / "folder" / "net.znet";
  EXPECT_THROW(write_network_file(generate_network(generator_preset("s16")), path.string()), std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".partial"));
}

TEST_F(NetworkFileDisk, AnInvalidNetworkIsNotWrittenAndTheOldFileSurvives) {
  const std::string path = (folder_ / "net.znet").string();
  const Network good = generate_network(generator_preset("s16"));
  write_network_file(good, path);
  Network bad = good;
  bad.reactions[0].sets[0].a[3] = std::numeric_limits<double>::infinity();
  EXPECT_THROW(write_network_file(bad, path), std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
  expect_identical(good, read_network_file(path));
}

TEST_F(NetworkFileDisk, ReadingAMissingFileNamesIt) {
  const std::string path = (folder_ / "absent.znet").string();
  try {
    read_network_file(path);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot open '" + path + "'", 0), 0u) << e.what();
  }
}

// A valid file; each error case below changes one thing in it.
const std::vector<std::string> valid_lines = {
    "zoneode-network 1",                                       // 1
    "# a comment, then a name with a trailing comment",       // 2
    "name tiny   # the name",                                 // 3
    "species 3",                                              // 4
    "he4 2 4 2.4249",                                         // 5
    "c12 6 12 0",                                             // 6
    "o16 8 16 -4.737",                                        // 7
    "reactions 2",                                            // 8
    "reaction he4 he4 he4 -> c12 Q 7.275 ec 0 sets 1",        // 9
    "  set cf88 r 0 -17.39 -4.4027 0 0 0 0 -3",               // 10
    "",                                                       // 11
    "reaction c12 he4 -> o16 Q 7.162 ec 0 sets 2",            // 12
    "  set gen n 0 1 0 -32.1 0 0 0 -0.666",                   // 13
    "  set gen r 0 2 -3 0 0 0 0 -1.5",                        // 14
    "end",                                                    // 15
};

std::string join(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

// The message of parsing `lines`, which must fail.
std::string error_of(const std::vector<std::string>& lines) {
  try {
    from_text(join(lines), "tiny.znet");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<std::string> with_line(int number, const std::string& text) {
  std::vector<std::string> lines = valid_lines;
  lines.at(number - 1) = text;
  return lines;
}
std::vector<std::string> without_line(int number) {
  std::vector<std::string> lines = valid_lines;
  lines.erase(lines.begin() + (number - 1));
  return lines;
}
std::vector<std::string> first_lines(int count) { return {valid_lines.begin(), valid_lines.begin() + count}; }

TEST(NetworkFileErrors, TheValidFileParses) {
  const Network net = from_text(join(valid_lines));
  EXPECT_EQ(net.name, "tiny");
  EXPECT_EQ(net.species_count(), 3);
  EXPECT_EQ(net.reaction_count(), 2);
  EXPECT_EQ(net.reactions[1].sets.size(), 2u);
  EXPECT_EQ(net.reactions[1].sets[1].resonance, 'r');
}

TEST(NetworkFileErrors, EachMalformedInputNamesSourceLineAndWhatWasExpected) {
  struct Case {
    const char* what;
    std::vector<std::string> lines;
    int line;
    const char* message;  // part of the message after "tiny.znet:<line>: "
  };
  const std::vector<Case> cases = {
      {"bad magic line", with_line(1, "zoneode-network 2"), 1, "bad magic line 'zoneode-network 2', expected 'zoneode-network 1'"},
      {"empty file", {}, 1, "truncated file"},
      {"unknown species", with_line(12, "reaction c12 he5 -> o16 Q 7.162 ec 0 sets 2"), 12, "unknown species 'he5'"},
      {"species field count", with_line(6, "c12 6 12"), 6, "3 fields on a species line, expected 4"},
      {"bad double", with_line(5, "he4 2 4 2.42x"), 5, "bad number '2.42x' for the mass excess"},
      {"bad integer", with_line(6, "c12 six 12 0"), 6, "bad number 'six' for Z, expected an integer"},
      {"non-finite coefficient", with_line(13, "  set gen n 0 1 0 nan 0 0 0 -0.666"), 13, "bad number 'nan' for a2, expected a finite number"},
      {"bad Q", with_line(9, "reaction he4 he4 he4 -> c12 Q inf ec 0 sets 1"), 9, "bad number 'inf' for Q"},
      {"missing set", without_line(14), 14, "'end' line, expected 'set'"},
      {"no sets", with_line(9, "reaction he4 he4 he4 -> c12 Q 7.275 ec 0 sets 0"), 9, "0 sets, expected at least 1"},
      {"truncated in the reactions", first_lines(10), 11, "truncated file (end of file), expected reaction 2 of 2"},
      {"truncated in the species", first_lines(5), 6, "truncated file (end of file), expected species 2 of 3"},
      {"truncated before end", first_lines(14), 15, "truncated file (end of file), expected the 'end' line"},
      {"set field count", with_line(10, "  set cf88 r 0 -17.39 -4.4027 0 0 0 0"), 10, "10 fields on a set line, expected 11"},
      {"resonance flag", with_line(10, "  set cf88 x 0 -17.39 -4.4027 0 0 0 0 -3"), 10, "bad resonance flag 'x'"},
      {"reverse flag", with_line(10, "  set cf88 r v -17.39 -4.4027 0 0 0 0 -3"), 10, "bad reverse flag 'v', expected 0 or 1"},
      {"electron-capture flag", with_line(9, "reaction he4 he4 he4 -> c12 Q 7.275 ec 2 sets 1"), 9, "bad electron-capture flag '2'"},
      {"no arrow", with_line(9, "reaction he4 he4 he4 c12 Q 7.275 ec 0 sets 1"), 9, "no '->'"},
      {"reaction tail", with_line(9, "reaction he4 he4 he4 -> c12 Q 7.275 ep 0 sets 1"), 9, "expected 'Q <Q> ec <0|1> sets <count>'"},
      {"five reactants", with_line(9, "reaction he4 he4 he4 he4 he4 -> c12 Q 7.275 ec 0 sets 1"), 9, "5 reactants, expected 1 to 4"},
      {"no products", with_line(9, "reaction he4 he4 he4 he4 -> Q 7.275 ec 0 sets 1"), 9, "0 products, expected 1 to 4"},
      {"duplicate species", with_line(7, "c12 8 16 -4.737"), 7, "species 'c12' appears twice"},
      {"species count", with_line(4, "species -3"), 4, "bad number '-3' for species count, expected a count >= 0"},
      {"wrong keyword", with_line(8, "reaktions 2"), 8, "'reaktions' line, expected 'reactions <count>'"},
      {"a set where a reaction belongs", with_line(12, "  set gen n 0 1 0 -32.1 0 0 0 -0.666"), 12, "'set' line, expected 'reaction"},
      {"bad escape", with_line(5, "he%4 2 4 2.4249"), 5, "bad escape in a species name 'he%4'"},
      {"content after end", [] { auto l = valid_lines; l.push_back("reaction c12 -> c12 Q 1 ec 0 sets 1"); return l; }(), 16,
       "after 'end', expected the end of the file"},
  };
  for (const Case& c : cases) {
    const std::string message = error_of(c.lines);
    const std::string prefix = "tiny.znet:" + std::to_string(c.line) + ": ";
    EXPECT_EQ(message.rfind(prefix, 0), 0u) << c.what << ": " << message;
    EXPECT_NE(message.find(c.message), std::string::npos) << c.what << ": " << message;
  }
}

TEST(NetworkFileErrors, NetworkInvariantsAreCheckedAfterParsing) {
  // Z > A parses line by line but is not a nuclide: validate_network names the source.
  const std::string message = error_of(with_line(6, "c12 13 12 0"));
  EXPECT_EQ(message.rfind("tiny.znet: ", 0), 0u) << message;
  EXPECT_NE(message.find("c12"), std::string::npos) << message;
}

}  // namespace
}  // namespace zoneode

// Issue 31: the one set rule of both network readers (network/network_checks.hpp).
namespace zoneode {
namespace {

TEST(SameRateSet, CopiesWithinOneInTenThousandOnlyWithTheSameFlags) {
  RateSet set;
  set.label = "gen";
  set.a = {16.766534615046158, 0, -19.154846778175479, 0, 0, 0, -0.66666666666666663};
  RateSet copy = set;
  EXPECT_TRUE(same_rate_set(set, copy));
  copy.a[0] = 16.766536;  // the 7th digit: a rounded copy
  EXPECT_TRUE(same_rate_set(set, copy));
  copy.a[0] = 16.9;  // another fit
  EXPECT_FALSE(same_rate_set(set, copy));
  copy = set;
  copy.a[1] = 1e-3;  // a zero term that is not one
  EXPECT_FALSE(same_rate_set(set, copy));
  copy = set;
  copy.resonance = 'r';
  EXPECT_FALSE(same_rate_set(set, copy));
  copy = set;
  copy.reverse = true;
  EXPECT_FALSE(same_rate_set(set, copy));
  copy = set;
  copy.label = "nacr";
  EXPECT_FALSE(same_rate_set(set, copy));
}

}  // namespace
}  // namespace zoneode
