// The parts of the checks before any work that need no MPI (cli/preflight.hpp).
#include <fcntl.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "cli/preflight.hpp"
#include "common/errors.hpp"
#include "common/file_kind.hpp"
#include "common/numbers.hpp"
#include "deck/yaml_schema.hpp"
#include "io/hdf5_handle.hpp"
#include "io/state_layout.hpp"

namespace zoneode {

namespace fs = std::filesystem;

// ---- Content digest ----

namespace {

// A 64-bit mix of 8-byte words (not FNV byte by byte: this reads whole files). Enough to tell two
// files apart by accident; not against an adversary.
struct WordHash {
  std::uint64_t value = 0x9e3779b97f4a7c15ull;
  void word(std::uint64_t w) {
    value ^= w + 0x9e3779b97f4a7c15ull + (value << 6) + (value >> 2);
    value *= 0xff51afd7ed558ccdull;
    value ^= value >> 32;
  }
  void bytes(const unsigned char* data, std::size_t size) {
    std::size_t k = 0;
    for (; k + 8 <= size; k += 8) {
      std::uint64_t w;
      std::memcpy(&w, data + k, 8);
      word(w);
    }
    std::uint64_t tail = size - k;  // the tail's length too: "a" and "a\0" differ
    for (; k < size; ++k) tail = (tail << 8) | data[k];
    word(tail);
  }
};

// Every rank reads what it hashes (the page cache serves the ranks of a node after the first):
// at most 64 MiB each, whatever the file's size.
constexpr std::uint64_t whole_file_limit = 64ull << 20;  // [bytes] hashed in full up to this
constexpr std::uint64_t end_window = 16ull << 20;         // [bytes] first and last, beyond it
constexpr std::uint64_t sample_window = 64ull << 10;       // [bytes] each of the samples between
constexpr int samples = 512;  // 32 MiB

}  // namespace

std::string non_regular_kind(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) return "no such file";
  if (fs::is_regular_file(status)) return "";
  return file_kind_name(status.type());
}

FileDigest file_digest(const std::string& path, const std::string& what) {
  const std::string kind = non_regular_kind(path);
  if (kind == "no such file") throw InputError(what + ": '" + excerpt(path) + "': no such file");
  // stat, never open, first: open() of a FIFO blocks for ever (a signal does not end it).
  if (!kind.empty()) throw InputError(what + ": '" + excerpt(path) + "' is " + kind + ", expected a regular file");
  // O_NONBLOCK: should it have become a FIFO since, open returns at once and fstat says so.
  const int descriptor = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (descriptor < 0) throw InputError(what + ": cannot read '" + excerpt(path) + "': " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{descriptor};
  struct stat status {};
  if (fstat(descriptor, &status) != 0 || !S_ISREG(status.st_mode))
    throw InputError(what + ": '" + excerpt(path) + "' is no regular file, expected one");
  FileDigest digest;
  digest.size = static_cast<std::uint64_t>(status.st_size);
  WordHash hash;
  hash.word(digest.size);
  std::vector<unsigned char> buffer(1 << 20);
  auto read_range = [&](std::uint64_t offset, std::uint64_t length) {
    hash.word(offset);
    while (length > 0) {
      const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(length, buffer.size()));
      const ssize_t got = pread(descriptor, buffer.data(), chunk, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw InputError(what + ": reading '" + excerpt(path) + "' failed: " + std::strerror(errno));
      if (got == 0) throw InputError(what + ": '" + excerpt(path) + "' became shorter while read");
      hash.bytes(buffer.data(), static_cast<std::size_t>(got));
      offset += static_cast<std::uint64_t>(got);
      length -= static_cast<std::uint64_t>(got);
    }
  };
  if (digest.size <= whole_file_limit) {
    read_range(0, digest.size);
  } else {
    read_range(0, end_window);
    const std::uint64_t middle = digest.size - 2 * end_window - sample_window;
    for (int k = 0; k < samples; ++k) read_range(end_window + middle / (samples - 1) * k, sample_window);
    read_range(digest.size - end_window, end_window);
  }
  digest.hash = hash.value;
  return digest;
}

// ---- The restart file's deck ----

bool results_relevant_key(const std::string& dotted_key) {
  return dotted_key.rfind("integrator.", 0) == 0 || dotted_key.rfind("physics.", 0) == 0 ||
         dotted_key == "steps.temperature_factor" || dotted_key == "steps.density_factor";
}

std::vector<std::string> changed_results_keys(const std::string& stored, const std::string& current) {
  if (stored.empty()) throw InputError("the file holds no deck");
  const YAML::Node file_deck = load_yaml_text(stored, "its deck");
  const YAML::Node run_deck = load_yaml_text(current, "this deck");
  // (IsDefined first: yaml-cpp throws on asking the type of a key that is absent.)
  const auto is_map = [](const YAML::Node& node) { return node.IsDefined() && node.IsMap(); };
  if (!is_map(file_deck) || !is_map(file_deck["integrator"]))
    throw InputError("its deck has no integrator section, expected a resolved zoneode deck");
  // Every results-relevant key of either deck, section by section, in this run's order.
  std::vector<std::string> keys;
  for (const char* section : {"integrator", "physics", "steps"}) {
    for (const YAML::Node& deck : {run_deck, file_deck}) {
      if (!is_map(deck)) continue;
      const YAML::Node map = deck[section];
      if (!is_map(map)) continue;
      for (auto it = map.begin(); it != map.end(); ++it) {
        if (!it->first.IsScalar()) continue;
        const std::string key = std::string(section) + "." + it->first.Scalar();
        if (results_relevant_key(key) && std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
      }
    }
  }
  auto value_of = [&](const YAML::Node& deck, const std::string& key) -> std::optional<std::string> {
    const std::size_t dot = key.find('.');
    if (!is_map(deck)) return std::nullopt;
    const YAML::Node section = deck[key.substr(0, dot)];
    if (!is_map(section)) return std::nullopt;
    const YAML::Node value = section[key.substr(dot + 1)];
    if (!value.IsDefined() || value.IsNull()) return std::nullopt;
    return value.IsScalar() ? value.Scalar() : emit_yaml(value);
  };
  std::vector<std::string> changed;
  for (const std::string& key : keys) {
    const std::optional<std::string> in_file = value_of(file_deck, key), in_run = value_of(run_deck, key);
    if (!in_file) continue;  // not recorded: a deck of an older zoneode, before the key existed
    if (in_run) {
      // Numbers by value: "1e-4" and "0.0001" are one value.
      const std::optional<double> a = parse_whole_number(*in_file), b = parse_whole_number(*in_run);
      if (a && b ? *a == *b : *in_file == *in_run) continue;
    }
    changed.push_back(key + " " + excerpt(*in_file, 40) + " (file) vs " + (in_run ? excerpt(*in_run, 40) : "absent") +
                      " (this run)");
  }
  return changed;
}

// ---- Output paths ----

std::string resolved_folder(const std::string& folder) {
  const fs::path absolute = fs::absolute(folder);
  std::error_code error;
  const fs::path resolved = fs::weakly_canonical(absolute, error);
  return (error ? absolute.lexically_normal() : resolved).string();
}

std::string output_identity(const std::string& path) {
  const fs::path absolute = fs::absolute(path);
  return (fs::path(resolved_folder(absolute.parent_path().string())) / absolute.filename()).string();
}

std::vector<std::string> input_identities_of(const std::string& path) {
  std::vector<std::string> identities{output_identity(path)};
  std::error_code error;
  const fs::path resolved = fs::weakly_canonical(fs::absolute(path), error);
  if (!error && resolved.string() != identities.front()) identities.push_back(resolved.string());
  return identities;
}

bool is_zoneode_checkpoint(const std::string& path) {
  if (!non_regular_kind(path).empty()) return false;
  const Hdf5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid() || H5Aexists(file, state_layout::checkpoint.name) <= 0) return false;
  const Hdf5Handle attribute(H5Aopen(file, state_layout::checkpoint.name, H5P_DEFAULT), H5Aclose);
  const Hdf5Handle space(attribute.valid() ? H5Aget_space(attribute) : -1, H5Sclose);
  std::int32_t value = 0;
  return space.valid() && H5Sget_simple_extent_npoints(space) == 1 &&
         H5Aread(attribute, H5T_NATIVE_INT32, &value) >= 0 && value == 1;
}

bool is_zoneode_summary(const std::string& path) {
  if (!non_regular_kind(path).empty()) return false;
  static constexpr std::string_view start = "{\n  \"zoneode_version\": ";  // summary_json (cli/report.cpp)
  std::ifstream in(path, std::ios::binary);
  std::string head(start.size(), '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  return in && head == start;
}

}  // namespace zoneode
