// An on-disk cache of compiled device code (issue 36: the generated implicit kernels, compiled at
// run time). An entry is one file named by the hash of its key; the key (the generator's version,
// the compiler's and linker's versions, the architecture, the options and the hash of the source)
// is stored in the entry too, with the payload's size and checksum, and everything is checked on
// load: a truncated, corrupt or foreign entry is reported and rebuilt, never used. Entries are
// written atomically (a .partial file renamed), and a lock file serialises the compilation of one
// key, so that the ranks of a job sharing the folder compile once (per node where the folder is
// node-local) and the others load what the first wrote. Host only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace zoneode {

// The folder: $ZONEODE_KERNEL_CACHE where set, else $XDG_CACHE_HOME/zoneode, else ~/.cache/zoneode,
// else none ("" : compile every run).
std::string code_cache_directory();

// The entry's file for a key (in `directory`).
std::string code_cache_path(const std::string& directory, const std::string& key);

// The payload of the entry at `path` if it is whole and made for `key`; otherwise nullopt and, in
// `why`, what was wrong ("none", "truncated", "checksum", "another key", ...).
std::optional<std::string> code_cache_read(const std::string& path, const std::string& key, std::string* why = nullptr);

// Writes the entry atomically; throws std::runtime_error where the folder cannot be written.
void code_cache_write(const std::string& path, const std::string& key, const std::string& payload);

// What cached_compile did: where the code came from and why.
struct CachedCode {
  std::string payload;
  bool compiled = false;   // compiled now (else loaded)
  std::string note;        // e.g. "cache entry truncated: recompiled", "no cache folder"
  double seconds = 0.0;    // compiling time (0 when loaded)
};

// The code for `key`: loaded from the cache in `directory` where a valid entry exists, else made by
// `compile` (which may throw: nothing is written then) and stored. Holds the key's lock file while
// it checks and compiles. An unusable folder ("" or not writable) only means no caching (said in
// note).
CachedCode cached_compile(const std::string& directory, const std::string& key,
                          const std::function<std::string()>& compile);

}  // namespace zoneode
