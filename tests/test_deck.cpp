// Deck errors name the file, line, column, key and what was expected; overrides win.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

#include "deck/deck.hpp"
#include "deck/yaml_schema.hpp"
#include "network/analytic.hpp"
#include "zones/zones.hpp"

namespace zoneode {
namespace {

namespace fs = std::filesystem;

const char* valid_deck = R"(network:
  source: decay_chain
  rates: [3.0, 0.7]
zones:
  count: 8
  temperature: {profile: constant, value: 1.0}
  density: {profile: log, min: 1.0e4, max: 1.0e6}
  composition:
    x0: 1.0
integrator:
  end_time: 1.0e-2
)";

class DeckTest : public ::testing::Test {
 protected:
  std::string write(const std::string& text, const std::string& name = "deck.yaml") {
    folder_ = fs::path(::testing::TempDir()) / ("zoneode_deck_" + std::to_string(::getpid()) + "_" +
                                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(folder_);
    const std::string path = (folder_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  // The message of the DeckError that loading throws (fails the test if none).
  std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
    const std::string path = write(text);
    try {
      load_deck(path, overrides);
    } catch (const DeckError& error) {
      return error.what();
    }
    ADD_FAILURE() << "no error for deck:\n" << text;
    return "";
  }
  void TearDown() override { fs::remove_all(folder_); }
  fs::path folder_;
};

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST_F(DeckTest, ValidDeckReadsEveryValue) {
  const Deck deck = load_deck(write(valid_deck), {});
  EXPECT_EQ(deck.network.source, NetworkSource::decay_chain);
  EXPECT_EQ(deck.network.rates, (std::vector<double>{3.0, 0.7}));
  EXPECT_EQ(deck.zones.count, 8);
  EXPECT_EQ(deck.zones.density.kind, FieldProfileKind::log);
  EXPECT_DOUBLE_EQ(deck.integrator.end_time, 1e-2);
  EXPECT_DOUBLE_EQ(deck.integrator.dt_fraction, 0.01);  // default
  EXPECT_EQ(deck.integrator.schedule, StepSchedule::geometric);
  // The resolved deck holds the defaults and loads back to the same settings.
  EXPECT_NE(deck.resolved_yaml.find("dt_fraction: 0.01"), std::string::npos) << deck.resolved_yaml;
  const Deck again = load_deck(write(deck.resolved_yaml, "resolved.yaml"), {});
  EXPECT_EQ(again.resolved_yaml, deck.resolved_yaml);
}

TEST_F(DeckTest, UnknownKeyNamesLineColumnAndKnownKeys) {
  const std::string message = error_of(replaced(valid_deck, "  end_time: 1.0e-2", "  end_time: 1.0e-2\n  end_tme: 3"));
  EXPECT_NE(message.find("deck.yaml:12:3: unknown key 'integrator.end_tme'"), std::string::npos) << message;
  EXPECT_NE(message.find("end_time"), std::string::npos) << message;
}

TEST_F(DeckTest, WrongTypeNamesKeyAndExpectation) {
  const std::string message = error_of(replaced(valid_deck, "count: 8", "count: many"));
  EXPECT_NE(message.find("deck.yaml:5:10: zones.count: expected an integer >= 1, got 'many'"), std::string::npos)
      << message;
}

TEST_F(DeckTest, OutOfRangeValue) {
  const std::string message = error_of(replaced(valid_deck, "value: 1.0", "value: -2"));
  EXPECT_NE(message.find("deck.yaml:6:"), std::string::npos) << message;
  EXPECT_NE(message.find("zones.temperature.value: expected a number > 0, got '-2'"), std::string::npos) << message;
}

// network.isotope_band: the preset's value unless given (s150r's 4, the others 1), and a clear
// error outside [0.25, 16].
TEST_F(DeckTest, GeneratorIsotopeBandDefaultsToThePresetsAndIsRangeChecked) {
  const std::string generator = "network:\n  source: generator\n  preset: s150r\nzones:";
  const std::string deck_text = replaced(replaced(valid_deck, "network:\n  source: decay_chain\n  rates: [3.0, 0.7]\nzones:", generator),
                                         "x0: 1.0", "he4: 1.0");
  EXPECT_EQ(load_deck(write(deck_text), {}).network.generator.isotope_band, 4.0);
  EXPECT_EQ(load_deck(write(deck_text), {"network.preset=s150"}).network.generator.isotope_band, 1.0);
  EXPECT_EQ(load_deck(write(deck_text), {"network.isotope_band=2.5"}).network.generator.isotope_band, 2.5);
  const std::string message = error_of(replaced(deck_text, "preset: s150r", "preset: s150r\n  isotope_band: 0.1"));
  EXPECT_NE(message.find("deck.yaml:4:17: network.isotope_band: expected a number in [0.25, 16], got '0.1'"), std::string::npos)
      << message;
}

TEST_F(DeckTest, MissingRequiredKey) {
  const std::string message = error_of(replaced(valid_deck, "  end_time: 1.0e-2\n", "  dt_fraction: 0.1\n"));
  EXPECT_NE(message.find("integrator.end_time: expected a number > 0 (this key is required)"), std::string::npos)
      << message;
}

TEST_F(DeckTest, CompositionMustSumToOne) {
  const std::string message = error_of(replaced(valid_deck, "x0: 1.0", "x0: 0.5"));
  EXPECT_NE(message.find("zones.composition: expected mass fractions summing to 1"), std::string::npos) << message;
}

TEST_F(DeckTest, EndBeforeStart) {
  const std::string message = error_of(valid_deck, {"integrator.start_time=1"});
  EXPECT_NE(message.find("integrator.end_time: expected a time > start_time"), std::string::npos) << message;
}

TEST_F(DeckTest, SyntaxErrorHasLine) {
  const std::string message = error_of(replaced(valid_deck, "rates: [3.0, 0.7]", "rates: [3.0, 0.7"));
  EXPECT_NE(message.find("deck.yaml:"), std::string::npos) << message;
  EXPECT_NE(message.find("YAML syntax error"), std::string::npos) << message;
}

TEST_F(DeckTest, MissingDeckFile) {
  try {
    load_deck("/nonexistent/zoneode.yaml", {});
    FAIL();
  } catch (const DeckError& error) {
    EXPECT_STREQ(error.what(), "cannot open deck '/nonexistent/zoneode.yaml'");
  }
}

TEST_F(DeckTest, OverridesWinAndAreNamedInErrors) {
  const Deck deck = load_deck(write(valid_deck), {"integrator.end_time=5e-3", "zones.count=3"});
  EXPECT_DOUBLE_EQ(deck.integrator.end_time, 5e-3);
  EXPECT_EQ(deck.zones.count, 3);
  EXPECT_NE(deck.resolved_yaml.find("end_time: 0.005"), std::string::npos) << deck.resolved_yaml;
  const std::string bad = error_of(valid_deck, {"integrator.end_time=soon"});
  EXPECT_EQ(bad, "--set integrator.end_time=soon: integrator.end_time: expected a number > 0, got 'soon'");
  const std::string unknown = error_of(valid_deck, {"integrator.end_tme=1"});
  EXPECT_NE(unknown.find("--set integrator.end_tme=1: unknown key 'integrator.end_tme'"), std::string::npos) << unknown;
  const std::string malformed = error_of(valid_deck, {"integrator"});
  EXPECT_EQ(malformed, "--set integrator: expected section.key=value");
  const std::string not_section = error_of(valid_deck, {"zones.count.x=1"});
  EXPECT_EQ(not_section, "--set zones.count.x=1: 'count' is not a section");
}

TEST_F(DeckTest, RelativeNetworkFileResolvesAgainstTheDeckFolder) {
  const std::string text = replaced(valid_deck, "  source: decay_chain\n  rates: [3.0, 0.7]", "  source: file\n  file: net.txt");
  const std::string deck_path = write(text);
  // A missing network file is a deck error at the key's line.
  try {
    load_deck(deck_path, {});
    FAIL();
  } catch (const DeckError& error) {
    EXPECT_NE(std::string(error.what()).find("deck.yaml:3:9: network.file: expected an existing file, got '" +
                                             (folder_ / "net.txt").string() + "'"),
              std::string::npos)
        << error.what();
  }
  std::ofstream(folder_ / "net.txt") << "zoneode-network 1\n";
  const Deck deck = load_deck(deck_path, {});
  EXPECT_EQ(deck.network.file, (folder_ / "net.txt").string());
  // The resolved deck records the absolute path, so it repeats the run from another folder.
  EXPECT_NE(deck.resolved_yaml.find("file: " + (folder_ / "net.txt").string()), std::string::npos) << deck.resolved_yaml;
}

TEST_F(DeckTest, OverriddenListsAndSectionsAreNamedAsOverrides) {
  const std::string list = error_of(valid_deck, {"network.rates=[1,-2]"});
  EXPECT_EQ(list, "--set network.rates=[1,-2]: network.rates[1]: expected a number > 0, got '-2'");
  const std::string section = error_of(valid_deck, {"zones={count: 2, temperature: {profile: constant, value: 0}}"});
  EXPECT_NE(section.find("--set zones={count: 2, temperature: {profile: constant, value: 0}}: "
                         "zones.temperature.value: expected a number > 0, got '0'"),
            std::string::npos)
      << section;
  const std::string exclusive = error_of(valid_deck, {"integrator.rtol=0"});
  EXPECT_NE(exclusive.find("integrator.rtol: expected a number in (0, 1], got '0'"), std::string::npos) << exclusive;
  // dt_fraction has an inclusive floor: below it t + dt would not advance t (issue 11).
  const std::string floor = error_of(valid_deck, {"integrator.dt_fraction=1e-300"});
  EXPECT_NE(floor.find("integrator.dt_fraction: expected a number in [1e-12, 10], got '1e-300'"), std::string::npos)
      << floor;
}

TEST_F(DeckTest, CompositionSpeciesMustExistInTheNetwork) {
  const Deck deck = load_deck(write(replaced(valid_deck, "x0: 1.0", "x0: 0.5\n    he4: 0.5")), {});
  const Network network = decay_chain_network(deck.network.rates);
  try {
    ZoneBuilder builder(deck.zones, network);
    FAIL();
  } catch (const DeckError& error) {
    EXPECT_NE(std::string(error.what()).find("deck.yaml:10:10: zones.composition.he4: expected a species of network"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(DeckTest, ChoicesAreListed) {
  const std::string message = error_of(replaced(valid_deck, "source: decay_chain", "source: magic"));
  EXPECT_NE(message.find("network.source: expected one of generator, reaclib, file, decay_chain, reversible_pair, got 'magic'"),
            std::string::npos)
      << message;
}

TEST_F(DeckTest, UnknownNetworkSourceIsADeckErrorAtItsKey) {
  const std::string message = error_of(replaced(valid_deck, "source: decay_chain", "source: magic"));
  EXPECT_NE(message.find("deck.yaml:2:11: network.source: expected one of "), std::string::npos) << message;
  const std::string by_override = error_of(valid_deck, {"network.source=magic"});
  EXPECT_NE(by_override.find("--set network.source=magic: network.source: expected one of"), std::string::npos)
      << by_override;
}

// The GPU's explicit methods do not carry T9 in the state (kernels/README.md): self-heating with
// them on the GPU is refused at its key before any work; the implicit methods (implicit, bdf) and
// the CPU take it.
TEST_F(DeckTest, SelfHeatingWithAnExplicitMethodOnTheGpuIsRefusedAtItsKey) {
  for (const char* method : {"asymptotic", "qss2"}) {
    const std::string message =
        error_of(valid_deck, {"physics.self_heating=true", "run.backend=gpu", std::string("integrator.method=") + method});
    EXPECT_NE(message.find(std::string("physics.self_heating: expected false with integrator.method ") + method +
                           " on run.backend gpu"),
              std::string::npos)
        << message;
  }
  for (const char* method : {"implicit", "bdf"})
    EXPECT_TRUE(load_deck(write(valid_deck), {"physics.self_heating=true", "run.backend=gpu",
                                              std::string("integrator.method=") + method, "integrator.schedule=adaptive"})
                    .physics.self_heating);
  EXPECT_TRUE(load_deck(write(valid_deck), {"physics.self_heating=true", "integrator.method=qss2"}).physics.self_heating);
}

// physics.eos (table by default, exact for a CPU run compared with the GPU's exact gas) is read only
// with self-heating on, and names its choices when wrong.
TEST_F(DeckTest, EosChoiceIsReadWithSelfHeatingOnly) {
  EXPECT_EQ(load_deck(write(valid_deck), {"physics.self_heating=true"}).physics.eos, EosEvaluation::table);
  EXPECT_EQ(load_deck(write(valid_deck), {"physics.self_heating=true", "physics.eos=exact"}).physics.eos,
            EosEvaluation::exact);
  const std::string wrong = error_of(valid_deck, {"physics.self_heating=true", "physics.eos=fast"});
  EXPECT_NE(wrong.find("physics.eos: expected one of table, exact, got 'fast'"), std::string::npos) << wrong;
  const std::string unheated = error_of(valid_deck, {"physics.eos=exact"});
  EXPECT_NE(unheated.find("physics.eos: expected self_heating: true with an eos"), std::string::npos) << unheated;
}

TEST_F(DeckTest, UnknownProfileIsADeckErrorAtItsKey) {
  const std::string message = error_of(replaced(valid_deck, "profile: log,", "profile: spiral,"));
  EXPECT_NE(message.find("deck.yaml:7:22: zones.density.profile: expected one of constant, linear, log, random, log_random, "
                         "got 'spiral'"),
            std::string::npos)
      << message;
  const std::string by_override = error_of(valid_deck, {"zones.temperature.profile=log_uniform"});
  EXPECT_NE(by_override.find("zones.temperature.profile: expected one of"), std::string::npos) << by_override;
}

TEST_F(DeckTest, EveryNetworkSourceAndProfileHasOneName) {
  std::set<std::string_view> names;
  for (NetworkSource source : network_sources) names.insert(network_source_name(source));
  EXPECT_EQ(names.size(), std::size(network_sources));
  for (FieldProfileKind kind : field_profile_kinds) {
    const std::string deck = replaced(valid_deck, "profile: constant, value: 1.0",
                                      "profile: " + std::string(field_profile_name(kind)) + ", value: 1.0, min: 1, max: 2");
    const std::string text = kind == FieldProfileKind::constant ? valid_deck : replaced(deck, "value: 1.0, ", "");
    EXPECT_EQ(load_deck(write(text), {}).zones.temperature.kind, kind) << field_profile_name(kind);
    EXPECT_EQ(FieldProfile(field_profile_name(kind), 0.0, 1.0, 2.0).kind, kind);
  }
  EXPECT_THROW(FieldProfile("spiral", 0.0, 1.0, 2.0), std::invalid_argument);
}

// Issue 40: YAML aliases. One inside its own anchor made a cycle that the tree walks followed until
// the stack overflowed (SIGSEGV); nested ones ("billion laughs") were expanded by those walks.
TEST_F(DeckTest, AnAliasInsideItsOwnAnchorIsRefusedAtItsPlace) {
  for (const char* extra : {"extra: &a [1, *a]\n", "extra: &m {k: *m}\n", "extra: &o [[1, [*o]]]\n"}) {
    const std::string message = error_of(std::string(valid_deck) + extra);
    EXPECT_NE(message.find("deck.yaml:12:"), std::string::npos) << message;
    EXPECT_NE(message.find("an alias inside the list or map its anchor names (a recursive alias"), std::string::npos)
        << message;
  }
  const std::string from_set = error_of(valid_deck, {"zones.extra=&a [1, *a]"});
  EXPECT_NE(from_set.find("--set zones.extra=&a [1, *a]: the value:1:"), std::string::npos) << from_set;
}

TEST_F(DeckTest, AnAliasCountsAsWhatItRepeats) {
  // Each level a list of ten aliases of the one before: a0 is 11 values (the list and its ten), a1
  // 111, ..., a4 111,111; a5's first alias passes 200,000 (123,465 + 111,111), at line 18 column 12.
  std::string laughs = "extra:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level <= 5; ++level) {
    laughs += "  a" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
    for (int k = 0; k < 10; ++k) laughs += (k ? ", *a" : "*a") + std::to_string(level - 1);
    laughs += "]\n";
  }
  const std::string message = error_of(std::string(valid_deck) + laughs);
  EXPECT_NE(message.find("deck.yaml:18:12:"), std::string::npos) << message;
  EXPECT_NE(message.find("more than 200000 values (scalars, lists and maps, an alias counted as the values it repeats)"),
            std::string::npos)
      << message;
  // Up to a4 (123,465 values) it reads through to the key check: an alias is no error in itself.
  const std::string four = laughs.substr(0, laughs.find("  a5:"));
  EXPECT_NE(error_of(std::string(valid_deck) + four).find("unknown key 'extra'"), std::string::npos);
  // Depth: an alias 60 levels deep inside 45 levels of lists is 106 levels.
  const std::string deep = "d: &d " + std::string(60, '[') + "1" + std::string(60, ']') + "\nextra: " +
                           std::string(45, '[') + "*d" + std::string(45, ']') + "\n";
  const std::string too_deep = error_of(std::string(valid_deck) + deep);
  EXPECT_NE(too_deep.find("nested more than 100 levels deep (an alias counted as what it repeats)"), std::string::npos)
      << too_deep;
}

TEST_F(DeckTest, AliasesOfValuesStillRead) {
  const Deck deck = load_deck(write(replaced(valid_deck, "  end_time: 1.0e-2", "  end_time: &t 1.0e-2\n  dt_initial: *t")), {});
  EXPECT_DOUBLE_EQ(deck.integrator.dt_initial, 1e-2);
}

TEST_F(DeckTest, AMergeKeyIsNamed) {
  const std::string message =
      error_of("base: &b {count: 8}\n" + replaced(valid_deck, "  count: 8\n", "  <<: *b\n"));
  EXPECT_NE(message.find("zones.<<: a YAML merge key ('<<: *anchor'), which this reader does not apply"),
            std::string::npos)
      << message;
}

TEST_F(DeckTest, KernelChoiceIsStaticUnlessCalibratedIsAsked) {
  EXPECT_FALSE(load_deck(write(valid_deck), {}).run.tuning.calibrated);  // the default keeps bits rank-independent
  EXPECT_TRUE(load_deck(write(valid_deck), {"run.kernel_choice=calibrated"}).run.tuning.calibrated);
  EXPECT_FALSE(load_deck(write(valid_deck), {"run.kernel_choice=static"}).run.tuning.calibrated);
  const std::string message = error_of(valid_deck, {"run.kernel_choice=fastest"});
  EXPECT_NE(message.find("run.kernel_choice"), std::string::npos) << message;
  EXPECT_NE(message.find("calibrated"), std::string::npos) << message;
}

TEST(YamlStringLiteral, ReadsBackAsTheTextGiven) {
  for (const std::string text : {"run #1.json", "run.json", "a: b", "[1, 2]", "*a", "&a x", "null", "~", "true",
                                 "4", "'q'", "\"dq\"", "tab\there", "ünïcode", "- item", "x # y", "{}", ""}) {
    const std::string literal = yaml_string_literal(text);
    const YAML::Node read = load_yaml_text(literal, "test");
    ASSERT_TRUE(read.IsScalar()) << text << " -> " << literal;
    EXPECT_EQ(read.Scalar(), text) << literal;
  }
  EXPECT_EQ(yaml_string_literal("out/run-1.json"), "out/run-1.json");  // plain words stay plain (messages)
  EXPECT_EQ(yaml_string_literal("4"), "4");
}

// Issue 40: look-alike letters named where the eye cannot tell them apart: in an unknown key (a
// Cyrillic 'о' in "cоunt"), and in the network's species name when the deck has the ASCII one.
TEST_F(DeckTest, LookAlikeLettersAreNamedInKeysAndInTheNetworksNames) {
  const std::string key = error_of(valid_deck, {"zones.c\xd0\xbeunt=8"});
  EXPECT_NE(key.find("unknown key 'zones.c\xd0\xbeunt' (its character 8, U+043E, is no ASCII character"),
            std::string::npos)
      << key;
  const Deck deck = load_deck(write(valid_deck), {});
  Network network = decay_chain_network(deck.network.rates);
  network.species[0].name = "\xd1\x85" "0";  // a Cyrillic 'х' and 0
  try {
    ZoneBuilder builder(deck.zones, network);
    FAIL();
  } catch (const DeckError& error) {
    EXPECT_NE(std::string(error.what()).find("got 'x0'; the network has '\xd1\x85" "0' (its character 1, U+0445, is no ASCII"),
              std::string::npos)
        << error.what();
  }
}

TEST(NonAsciiNote, NamesTheFirstCharacterOutsideAscii) {
  EXPECT_EQ(non_ascii_note("he4"), "");
  EXPECT_EQ(non_ascii_note("h\xd0\xb5" "4"),
            " (its character 2, U+0435, is no ASCII character: names are ASCII; a look-alike letter?)");
  EXPECT_NE(non_ascii_note("o\xef\xbc\x91" "6").find("its character 2, U+FF11"), std::string::npos);  // fullwidth 1
  EXPECT_NE(non_ascii_note("c\xff").find("its character 2, byte 0xFF"), std::string::npos);
}

}  // namespace
}  // namespace zoneode
