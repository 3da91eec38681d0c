// The write-then-rename helper: a complete file or the previous one, never a partial one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/atomic_file.hpp"
#include "io_test.hpp"

namespace zoneode {
namespace {

namespace fs = std::filesystem;

class AtomicFile : public testing::FolderTest {
 protected:
  static std::string contents(const std::string& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
};

TEST_F(AtomicFile, ReplacesTheFileAndLeavesNoPartial) {
  write_file_atomically(path("summary.json"), "old\n");
  write_file_atomically(path("summary.json"), "new\n");
  EXPECT_EQ(contents(path("summary.json")), "new\n");
  EXPECT_FALSE(fs::exists(partial_path(path("summary.json"))));
}

TEST_F(AtomicFile, FailedWriteKeepsTheOldFileAndSaysWhy) {
  write_file_atomically(path("summary.json"), "old\n");
  fs::create_directories(partial_path(path("summary.json")) + "/blocker");  // the partial cannot be opened
  try {
    write_file_atomically(path("summary.json"), "new\n");
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("Is a directory"), std::string::npos) << error.what();
  }
  EXPECT_EQ(contents(path("summary.json")), "old\n");
}

TEST_F(AtomicFile, FailedRenameRemovesThePartial) {
  fs::create_directories(path("taken/blocker"));  // a non-empty folder where the file should go
  try {
    write_file_atomically(path("taken"), "new\n");
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("cannot rename"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(fs::exists(partial_path(path("taken"))));
  EXPECT_TRUE(fs::exists(path("taken/blocker")));
}

TEST_F(AtomicFile, MissingFolderIsAnErrorWithTheReason) {
  try {
    write_file_atomically(path("no/such/summary.json"), "text\n");
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("No such file or directory"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(fs::exists(path("no")));
}

}  // namespace
}  // namespace zoneode
