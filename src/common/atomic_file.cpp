#include "common/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace zoneode {

std::string partial_path(const std::string& path) { return path + ".partial"; }

void commit_partial_file(const std::string& path) {
  const std::string partial = partial_path(path);
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) {
    discard_partial_file(path);
    throw std::runtime_error("cannot rename '" + partial + "' to '" + path + "': " + error.message());
  }
}

void discard_partial_file(const std::string& path) {
  std::error_code ignored;  // the write already failed; its reason is the one to report
  std::filesystem::remove(partial_path(path), ignored);
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string partial = partial_path(path);
  std::ofstream out(partial, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write '" + partial + "': " + std::strerror(errno));
  out << text;
  out.close();
  if (!out) {
    const std::string reason = std::strerror(errno);
    discard_partial_file(path);
    throw std::runtime_error("writing '" + partial + "' failed: " + reason);
  }
  commit_partial_file(path);
}

}  // namespace zoneode
