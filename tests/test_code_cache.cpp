// The on-disk cache of compiled device code (src/common/code_cache.*, issue 36): a second run loads
// what the first compiled; a corrupt, truncated or foreign entry is rebuilt, never used; a failed
// compilation writes nothing; processes sharing the folder compile once.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "common/code_cache.hpp"

namespace zoneode {
namespace {

struct TemporaryFolder {
  std::string path;
  TemporaryFolder() {
    char name[] = "/tmp/zoneode-code-cache-XXXXXX";
    path = mkdtemp(name);
  }
  ~TemporaryFolder() { std::filesystem::remove_all(path); }
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

TEST(CodeCache, SecondRunLoadsWhatTheFirstCompiled) {
  TemporaryFolder folder;
  const std::string directory = folder.path + "/nested/cache";  // made as needed
  int compilations = 0;
  auto compile = [&] {
    ++compilations;
    return std::string("code\0with\nbytes", 15);
  };
  const CachedCode first = cached_compile(directory, "key one", compile);
  EXPECT_TRUE(first.compiled);
  EXPECT_EQ(first.payload, std::string("code\0with\nbytes", 15));
  const CachedCode second = cached_compile(directory, "key one", compile);
  EXPECT_FALSE(second.compiled) << second.note;
  EXPECT_EQ(second.payload, first.payload);
  EXPECT_EQ(compilations, 1);
  EXPECT_EQ(second.seconds, 0.0);
  // Another key is another entry.
  EXPECT_TRUE(cached_compile(directory, "key two", compile).compiled);
  EXPECT_EQ(compilations, 2);
}

TEST(CodeCache, DamagedOrForeignEntriesAreRebuiltNeverUsed) {
  TemporaryFolder folder;
  const std::string key = "generator 1; nvrtc 13.0; sm_90";
  const std::string good = "the linked code";
  const std::string path = code_cache_path(folder.path, key);
  code_cache_write(path, key, good);
  std::string why;
  ASSERT_EQ(code_cache_read(path, key, &why).value_or(""), good) << why;
  const std::string whole = read_file(path);

  struct Damage {
    const char* name;
    std::string text;
    const char* expected_why;
  };
  std::string flipped = whole;
  flipped[flipped.size() - 3] ^= 0x20;  // a payload byte
  const Damage damages[] = {
      {"truncated", whole.substr(0, whole.size() - 4), "truncated"},
      {"payload byte flipped", flipped, "checksum"},
      {"trailing bytes", whole + "x", "trailing bytes"},
      {"empty", "", "not a zoneode cache entry"},
      {"another program's file", "\x7f" "ELF...", "not a zoneode cache entry"},
  };
  for (const Damage& damage : damages) {
    SCOPED_TRACE(damage.name);
    write_file(path, damage.text);
    EXPECT_FALSE(code_cache_read(path, key, &why).has_value());
    EXPECT_EQ(why, damage.expected_why);
    int compilations = 0;
    const CachedCode code = cached_compile(folder.path, key, [&] {
      ++compilations;
      return good;
    });
    EXPECT_EQ(compilations, 1) << "a damaged entry must be rebuilt";
    EXPECT_TRUE(code.compiled);
    EXPECT_NE(code.note.find("unusable"), std::string::npos) << code.note;
    EXPECT_EQ(code_cache_read(path, key).value_or(""), good) << "the rebuilt entry replaces the damaged one";
  }
  // An entry for another key at this key's file (a hash collision, or a file copied by hand).
  code_cache_write(path, "another key", "foreign code");
  EXPECT_FALSE(code_cache_read(path, key, &why).has_value());
  EXPECT_EQ(why, "another key");
}

TEST(CodeCache, FailedCompilationWritesNothingAndNoFolderMeansNoCache) {
  TemporaryFolder folder;
  EXPECT_THROW(cached_compile(folder.path, "k", []() -> std::string { throw std::runtime_error("NVRTC failed"); }),
               std::runtime_error);
  std::string why;
  EXPECT_FALSE(code_cache_read(code_cache_path(folder.path, "k"), "k", &why).has_value());
  EXPECT_EQ(why, "none");
  int compilations = 0;
  auto compile = [&] {
    ++compilations;
    return std::string("x");
  };
  const CachedCode uncached = cached_compile("", "k", compile);
  EXPECT_TRUE(uncached.compiled);
  EXPECT_NE(uncached.note.find("no cache folder"), std::string::npos);
  // A folder that cannot be made (under a regular file): compiled, not cached, said.
  write_file(folder.path + "/file", "");
  const CachedCode unwritable = cached_compile(folder.path + "/file/cache", "k", compile);
  EXPECT_TRUE(unwritable.compiled);
  EXPECT_NE(unwritable.note.find("cannot be made"), std::string::npos) << unwritable.note;
  EXPECT_EQ(compilations, 2);
}

TEST(CodeCache, TheFolderComesFromTheEnvironment) {
  const char* saved = std::getenv("ZONEODE_KERNEL_CACHE");
  const std::string restore = saved ? saved : "";
  const char* saved_xdg = std::getenv("XDG_CACHE_HOME");
  const std::string restore_xdg = saved_xdg ? saved_xdg : "";
  setenv("ZONEODE_KERNEL_CACHE", "/some/folder", 1);
  EXPECT_EQ(code_cache_directory(), "/some/folder");
  unsetenv("ZONEODE_KERNEL_CACHE");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(code_cache_directory(), "/xdg/zoneode");
  unsetenv("XDG_CACHE_HOME");
  if (saved) setenv("ZONEODE_KERNEL_CACHE", restore.c_str(), 1);
  if (saved_xdg) setenv("XDG_CACHE_HOME", restore_xdg.c_str(), 1);
}

// Ranks of a job sharing the folder: four processes ask for one key at once; the lock lets one
// compile (slowly), the others wait and load its entry.
TEST(CodeCache, ProcessesSharingTheFolderCompileOnce) {
  TemporaryFolder folder;
  const std::string counter = folder.path + "/compilations";
  constexpr int processes = 4;
  pid_t children[processes];
  for (pid_t& child : children) {
    child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      const CachedCode code = cached_compile(folder.path + "/cache", "shared key", [&] {
        std::ofstream(counter, std::ios::app) << "x";
        usleep(300000);  // a compilation the others must wait for
        return std::string("shared code");
      });
      _exit(code.payload == "shared code" ? 0 : 1);
    }
  }
  for (pid_t child : children) {
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(read_file(counter), "x") << "compiled more than once";
}

}  // namespace
}  // namespace zoneode
