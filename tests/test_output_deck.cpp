// The output section's keys: overlap, chunk_zones, compression (defaults, values, errors naming
// file, line and key), and the storage checks made once the species count is known.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "deck/deck.hpp"
#include "deck/yaml_schema.hpp"
#include "io/state_storage.hpp"

namespace zoneode {
namespace {

namespace fs = std::filesystem;

const std::string base_deck = R"(network:
  source: decay_chain
  rates: [3.0, 0.7]
zones:
  count: 8
  temperature: {profile: constant, value: 1.0}
  density: {profile: constant, value: 1.0}
  composition:
    x0: 1.0
integrator:
  end_time: 1.0e-2
)";

class OutputDeckTest : public ::testing::Test {
 protected:
  std::string write(const std::string& output_section) {
    folder_ = fs::path(::testing::TempDir()) / ("zoneode_output_deck_" + std::to_string(::getpid()));
    fs::create_directories(folder_);
    const std::string path = (folder_ / "deck.yaml").string();
    std::ofstream(path) << base_deck << output_section;
    return path;
  }
  std::string error_of(const std::string& output_section, const std::vector<std::string>& overrides = {}) {
    try {
      load_deck(write(output_section), overrides);
    } catch (const DeckError& error) {
      return error.what();
    }
    ADD_FAILURE() << "no error for:\n" << output_section;
    return "";
  }
  void TearDown() override { fs::remove_all(folder_); }
  fs::path folder_;
};

TEST_F(OutputDeckTest, DefaultsAreOverlappedContiguousUncompressed) {
  const Deck deck = load_deck(write(""), {});
  EXPECT_TRUE(deck.output.overlap);
  EXPECT_EQ(deck.output.storage.chunk_zones, 0);
  EXPECT_FALSE(deck.output.storage.compressed());
  // The resolved deck records them, so that it repeats the run.
  EXPECT_NE(deck.resolved_yaml.find("overlap: true"), std::string::npos) << deck.resolved_yaml;
  EXPECT_NE(deck.resolved_yaml.find("chunk_zones: 0"), std::string::npos);
  EXPECT_NE(deck.resolved_yaml.find("compression: none"), std::string::npos);
}

TEST_F(OutputDeckTest, ValuesAreRead) {
  const Deck deck = load_deck(write("output:\n  overlap: false\n  chunk_zones: 4096\n  compression: shuffle+gzip-4\n"), {});
  EXPECT_FALSE(deck.output.overlap);
  EXPECT_EQ(deck.output.storage.chunk_zones, 4096);
  EXPECT_EQ(deck.output.storage.gzip_level, 4);
  EXPECT_TRUE(deck.output.storage.shuffle);
  EXPECT_NE(deck.output.storage_where.find("deck.yaml:14:16"), std::string::npos) << deck.output.storage_where;
  const Deck overridden = load_deck(write(""), {"output.compression=gzip-1", "output.chunk_zones=16"});
  EXPECT_EQ(overridden.output.storage.gzip_level, 1);
  EXPECT_EQ(overridden.output.storage.chunk_zones, 16);
}

TEST_F(OutputDeckTest, BadValuesNameFileLineAndKey) {
  const std::string bad_name = error_of("output:\n  compression: zip\n");
  EXPECT_EQ(bad_name.substr(bad_name.find("deck.yaml")),
            "deck.yaml:13:16: output.compression: expected none, gzip-N or shuffle+gzip-N with N in 1..9, got 'zip'");
  const std::string unchunked = error_of("output:\n  compression: gzip-4\n");
  EXPECT_NE(unchunked.find("deck.yaml:13:16: output.compression: expected none while output.chunk_zones is 0"),
            std::string::npos)
      << unchunked;
  EXPECT_NE(unchunked.find("got 'gzip-4'"), std::string::npos);
  EXPECT_NE(error_of("output:\n  chunk_zones: -1\n").find("output.chunk_zones: expected"), std::string::npos);
  EXPECT_NE(error_of("output:\n  overlap: sometimes\n").find("output.overlap: expected"), std::string::npos);
  // A huge value is quoted in part only.
  const std::string huge = error_of("", {"output.compression=" + std::string(100000, 'x')});
  EXPECT_LT(huge.size(), 400u) << huge.substr(0, 400);
}

TEST(StateStorageCheck, ChunksOverFourGibAreRefusedWithTheLargestThatFits) {
  StateStorage storage;
  storage.chunk_zones = 4000000;  // x 150 species x 8 B = 4.8e9 B
  try {
    check_state_storage(storage, 150, "deck.yaml:3:16");
    FAIL() << "no error";
  } catch (const InputError& error) {
    // (2^32 - 1) / (150 x 8) = 3579139 zones.
    EXPECT_STREQ(error.what(),
                 "deck.yaml:3:16: output.chunk_zones: 4000000 zones of 150 species make chunks of /abundances over "
                 "HDF5's 4 GiB; at most 3579139 zones");
  }
  storage.chunk_zones = 3579139;
  EXPECT_NO_THROW(check_state_storage(storage, 150, "deck.yaml:3:16"));
  storage.gzip_level = 6;
  storage.shuffle = true;
  EXPECT_NO_THROW(check_state_storage(storage, 150, "deck.yaml:3:16"));  // this HDF5 has deflate and shuffle
}

}  // namespace
}  // namespace zoneode
