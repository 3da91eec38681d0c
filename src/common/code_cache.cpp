#include "common/code_cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/fnv1a.hpp"

namespace zoneode {

namespace {

constexpr const char* magic = "zoneode-code-cache 1";

std::string hex(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::uint64_t hash_of(const std::string& text) {
  Fnv1a h;
  h.bytes(text.data(), text.size());
  return h.value;
}

// Creates `path` and its parents (mkdir -p); false where one cannot be made.
bool make_directories(const std::string& path) {
  if (path.empty()) return false;
  std::string partial;
  std::stringstream parts(path);
  std::string part;
  if (path[0] == '/') partial = "/";
  while (std::getline(parts, part, '/')) {
    if (part.empty()) continue;
    partial += part + "/";
    if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

// An exclusive flock on PATH.lock for this scope (none where the file cannot be opened).
class KeyLock {
 public:
  explicit KeyLock(const std::string& path) : fd_(open((path + ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644)) {
    if (fd_ >= 0) {
      while (flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
    }
  }
  ~KeyLock() {
    if (fd_ >= 0) close(fd_);  // releases the lock
  }
  KeyLock(const KeyLock&) = delete;
  KeyLock& operator=(const KeyLock&) = delete;

 private:
  int fd_;
};

}  // namespace

std::string code_cache_directory() {
  if (const char* set = std::getenv("ZONEODE_KERNEL_CACHE")) return set;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/zoneode";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/zoneode";
  return "";
}

std::string code_cache_path(const std::string& directory, const std::string& key) {
  return directory + "/" + hex(hash_of(key)) + ".code";
}

std::optional<std::string> code_cache_read(const std::string& path, const std::string& key, std::string* why) {
  auto fail = [&](const char* reason) -> std::optional<std::string> {
    if (why) *why = reason;
    return std::nullopt;
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("none");
  std::string line;
  if (!std::getline(in, line) || line != magic) return fail("not a zoneode cache entry");
  std::string stored_key;
  std::uint64_t key_size = 0;
  if (!std::getline(in, line)) return fail("truncated");
  try {
    key_size = std::stoull(line);
  } catch (...) {
    return fail("corrupt header");
  }
  if (key_size > (1u << 20)) return fail("corrupt header");
  stored_key.resize(key_size);
  if (!in.read(stored_key.data(), static_cast<std::streamsize>(key_size))) return fail("truncated");
  if (stored_key != key) return fail("another key");
  if (!std::getline(in, line)) return fail("truncated");  // the end of the key's line
  if (!std::getline(in, line)) return fail("truncated");
  unsigned long long size = 0, checksum = 0;
  if (std::sscanf(line.c_str(), "%llu %llx", &size, &checksum) != 2) return fail("corrupt header");
  std::string payload(size, '\0');
  if (!in.read(payload.data(), static_cast<std::streamsize>(size))) return fail("truncated");
  if (in.peek() != std::char_traits<char>::eof()) return fail("trailing bytes");
  if (hash_of(payload) != checksum) return fail("checksum");
  if (why) *why = "ok";
  return payload;
}

void code_cache_write(const std::string& path, const std::string& key, const std::string& payload) {
  const std::string partial = path + ".partial." + std::to_string(getpid());
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out << magic << "\n" << key.size() << "\n" << key << "\n" << payload.size() << " " << hex(hash_of(payload)) << "\n";
    out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    out.flush();
    if (!out) {
      std::remove(partial.c_str());
      throw std::runtime_error("cannot write the kernel cache entry " + path + ": " + std::strerror(errno));
    }
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(partial.c_str());
    throw std::runtime_error("cannot write the kernel cache entry " + path + ": " + std::strerror(error));
  }
}

CachedCode cached_compile(const std::string& directory, const std::string& key,
                          const std::function<std::string()>& compile) {
  CachedCode code;
  auto compile_now = [&] {
    const auto start = std::chrono::steady_clock::now();
    code.payload = compile();
    code.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    code.compiled = true;
  };
  if (directory.empty() || !make_directories(directory)) {
    code.note = directory.empty() ? "no cache folder (ZONEODE_KERNEL_CACHE, XDG_CACHE_HOME and HOME unset)"
                                  : "cache folder " + directory + " cannot be made: not cached";
    compile_now();
    return code;
  }
  const std::string path = code_cache_path(directory, key);
  const KeyLock lock(path);
  std::string why;
  if (std::optional<std::string> payload = code_cache_read(path, key, &why)) {
    code.payload = std::move(*payload);
    code.note = "loaded from " + path;
    return code;
  }
  compile_now();
  code.note = why == "none" ? "compiled, cached in " + path : "cache entry " + path + " unusable (" + why + "): recompiled";
  try {
    code_cache_write(path, key, code.payload);
  } catch (const std::exception& error) {
    code.note += std::string("; ") + error.what();
  }
  return code;
}

}  // namespace zoneode
