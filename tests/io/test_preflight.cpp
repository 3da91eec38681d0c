// The parts of the checks before any work (cli/preflight.hpp) against hand-made truths; the whole
// checks run end to end in tests/hostile/files_and_outputs.sh and tests/fault/ranks_disagree.sh.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/preflight.hpp"
#include "common/errors.hpp"
#include "io_test.hpp"

namespace zoneode {
namespace {

namespace fs = std::filesystem;

class Preflight : public testing::FolderTest {};

TEST(PreflightParts, RankListsAreShort) {
  EXPECT_EQ(rank_list({1}), "1");
  EXPECT_EQ(rank_list({1, 3}), "1, 3");
  EXPECT_EQ(rank_list({1, 2}), "1, 2");
  EXPECT_EQ(rank_list({0, 1, 2, 3, 5, 7, 8, 9}), "0-3, 5, 7-9");
}

TEST(PreflightParts, ResultsRelevantKeys) {
  for (const char* key : {"integrator.rtol", "integrator.schedule", "integrator.method", "steps.temperature_factor",
                          "steps.density_factor", "physics.screening", "physics.self_heating"})
    EXPECT_TRUE(results_relevant_key(key)) << key;
  for (const char* key : {"steps.count", "output.prefix", "run.threads", "zones.decomposition", "validation.sample_zones",
                          "zones.mass_sum_tolerance", "network.preset"})
    EXPECT_FALSE(results_relevant_key(key)) << key;
}

TEST(PreflightParts, ChangedResultsKeysByValue) {
  const std::string stored = "network: {source: decay_chain}\nintegrator: {rtol: 1e-04, schedule: geometric, max_steps: 10}\n"
                             "steps: {count: 3, temperature_factor: 1}\noutput: {prefix: a}\n";
  // The same values written otherwise, and keys that do not change results: no difference.
  EXPECT_TRUE(changed_results_keys(stored, "integrator: {rtol: 0.0001, schedule: geometric, max_steps: 10.0}\n"
                                           "steps: {count: 9, temperature_factor: 1.0}\noutput: {prefix: b}\n")
                  .empty());
  const std::vector<std::string> changed = changed_results_keys(
      stored, "integrator: {rtol: 1e-3, schedule: adaptive, max_steps: 10, atol: 1}\nsteps: {temperature_factor: 2}\n");
  ASSERT_EQ(changed.size(), 3u);  // atol: absent from the stored deck (an older zoneode's), not compared
  EXPECT_EQ(changed[0], "integrator.rtol 1e-04 (file) vs 1e-3 (this run)");
  EXPECT_EQ(changed[1], "integrator.schedule geometric (file) vs adaptive (this run)");
  EXPECT_EQ(changed[2], "steps.temperature_factor 1 (file) vs 2 (this run)");
  // A key this run does not have.
  EXPECT_EQ(changed_results_keys("integrator: {newer: 1}\n", "integrator: {rtol: 1}\n"),
            std::vector<std::string>{"integrator.newer 1 (file) vs absent (this run)"});
  EXPECT_THROW(changed_results_keys("", "integrator: {}\n"), InputError);
  EXPECT_THROW(changed_results_keys("zones: {count: 1}\n", "integrator: {}\n"), InputError);
  EXPECT_THROW(changed_results_keys("integrator: [", "integrator: {}\n"), std::exception);
}

TEST_F(Preflight, DigestsTellContentApart) {
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  };
  std::string text(100000, 'a');
  const FileDigest a = file_digest(write("a", text), "test");
  EXPECT_EQ(a.size, 100000u);
  EXPECT_EQ(file_digest(write("copy", text), "test").hash, a.hash);
  text[54321] = 'b';  // one byte
  EXPECT_NE(file_digest(write("b", text), "test").hash, a.hash);
  EXPECT_NE(file_digest(write("short", text.substr(0, 99999)), "test").hash, a.hash);
  EXPECT_NE(file_digest(write("nul", std::string("a")), "test").hash,
            file_digest(write("nul2", std::string("a\0", 2)), "test").hash);
  // No regular file: named, never opened (a FIFO would block).
  fs::create_directory(path("folder"));
  try {
    file_digest(path("folder"), "--restart");
    FAIL();
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("--restart: '" + path("folder") + "' is a directory, expected a regular file"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(non_regular_kind(path("none")), "no such file");
  EXPECT_EQ(non_regular_kind(path("a")), "");
}

TEST_F(Preflight, OutputIdentityIsTheEntryAnInputIsAlsoItsTarget) {
  fs::create_directory(path("real"));
  std::ofstream(path("real/deck.yaml")) << "x";
  fs::create_directory_symlink(path("real"), path("linked"));
  fs::create_symlink(path("real/deck.yaml"), path("deck_link.yaml"));
  // A folder reached through a link is the same folder.
  EXPECT_EQ(output_identity(path("linked/deck.yaml")), output_identity(path("real/deck.yaml")));
  // An output replaces the link itself, not its target; an input is lost either way.
  EXPECT_NE(output_identity(path("deck_link.yaml")), output_identity(path("real/deck.yaml")));
  const std::vector<std::string> input = input_identities_of(path("deck_link.yaml"));
  ASSERT_EQ(input.size(), 2u);
  EXPECT_EQ(input[1], output_identity(path("real/deck.yaml")));
}

}  // namespace
}  // namespace zoneode
