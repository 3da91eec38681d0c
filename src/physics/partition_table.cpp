#include "physics/partition_table.hpp"

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/errors.hpp"
#include "common/numbers.hpp"

#ifndef ZONEODE_DATA_DIR
#error "ZONEODE_DATA_DIR must name inputs/data (CMake sets it)"
#endif

namespace zoneode {

namespace {

[[noreturn]] void fail(const std::string& path, int line, const std::string& what) {
  throw InputError(path + ":" + std::to_string(line) + ": " + what);
}

std::vector<std::string> rest_of_line(std::istringstream& fields) {
  std::vector<std::string> rest;
  for (std::string field; fields >> field;) rest.push_back(field);
  return rest;
}

std::vector<double> numbers(const std::vector<std::string>& fields, const std::string& path, int line) {
  std::vector<double> values;
  for (const std::string& field : fields) {
    const std::optional<double> value = parse_whole_number(field);
    if (!value) fail(path, line, "'" + excerpt(field) + "' is not a number, expected a finite number");
    values.push_back(*value);
  }
  return values;
}

}  // namespace

const std::vector<double>* PartitionTable::find(const std::string& name) const {
  const auto it = G.find(name);
  return it == G.end() ? nullptr : &it->second;
}

double PartitionTable::tabulated_to_T9(const std::string& name) const {
  const auto it = held_above_T9.find(name);
  return it == held_above_T9.end() ? grid_T9.back() : it->second;
}

PartitionTable read_partition_table(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot open '" + path + "', expected a readable partition-function table");
  skip_byte_order_mark(in);
  PartitionTable table;
  table.source = path;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (const auto hash = text.find('#'); hash != std::string::npos) text.resize(hash);
    std::istringstream fields(text);
    std::string name;
    if (!(fields >> name)) continue;
    if (name == "T9") {
      if (!table.grid_T9.empty()) fail(path, line, "a second T9 line, expected one grid");
      table.grid_T9 = numbers(rest_of_line(fields), path, line);
      if (table.grid_T9.size() < 2) fail(path, line, "T9 grid of fewer than 2 points, expected at least 2");
      for (std::size_t k = 1; k < table.grid_T9.size(); ++k)
        if (!(table.grid_T9[k] > table.grid_T9[k - 1])) fail(path, line, "T9 grid not increasing, expected increasing T9");
      if (!(table.grid_T9[0] > 0.0)) fail(path, line, "T9 grid starts at or below 0, expected T9 > 0");
      continue;
    }
    if (table.grid_T9.empty()) fail(path, line, "nuclide '" + excerpt(name) + "' before the T9 line, expected the grid first");
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // A row may stop early only by saying so ("held"): a value missing by mistake is refused.
    std::vector<std::string> fields_after_name = rest_of_line(fields);
    const bool held = !fields_after_name.empty() && fields_after_name.back() == "held";
    if (held) fields_after_name.pop_back();
    std::vector<double> values = numbers(fields_after_name, path, line);
    const std::size_t points = table.grid_T9.size();
    if (held && (values.empty() || values.size() >= points)) {
      fail(path, line, "nuclide '" + excerpt(name) + "' has " + std::to_string(values.size()) +
                           " values before 'held', expected 1 to " + std::to_string(points - 1) +
                           " (held: G at the first T9s, its last value held above)");
    }
    if (!held && values.size() != points) {
      fail(path, line, "nuclide '" + excerpt(name) + "' has " + std::to_string(values.size()) + " values, expected " +
                           std::to_string(points) + " (one per T9; a row that stops early ends in 'held')");
    }
    for (double g : values)
      if (!(g > 0.0)) fail(path, line, "nuclide '" + excerpt(name) + "' has G " + format_number(g) + ", expected G > 0");
    if (table.G.count(name)) fail(path, line, "nuclide '" + excerpt(name) + "' listed twice, expected once");
    if (held) {
      table.held_above_T9[name] = table.grid_T9[values.size() - 1];
      values.resize(points, values.back());
    }
    table.G.emplace(name, std::move(values));
  }
  if (in.bad()) throw InputError(path + ": read error");
  if (table.grid_T9.empty()) throw InputError(path + ": no T9 line, expected a T9 grid and one line per nuclide");
  return table;
}

std::string shipped_partition_table_name() { return "/partition_functions/rt2000_frdm_rpz24.txt"; }

std::string find_shipped_data_folder(const std::string& beside) {
  return find_shipped_data_folder(beside, shipped_partition_table_name());
}

std::string find_shipped_data_folder(const std::string& beside, const std::string& name) {
  // The order: $ZONEODE_DATA_DIR; the data folder as installed beside the running program or library
  // (bin/ or lib/ -> share/zoneode/data: an installed or Spack-built zoneode, moved prefixes included);
  // the source tree (a build tree's binaries); the configured install prefix.
  std::vector<std::string> folders;
  if (const char* from_environment = std::getenv("ZONEODE_DATA_DIR"); from_environment && *from_environment)
    folders.emplace_back(from_environment);
  if (!beside.empty()) folders.push_back(beside);
  folders.emplace_back(ZONEODE_DATA_DIR);
  folders.emplace_back(ZONEODE_INSTALL_DATA_DIR);
  for (const std::string& folder : folders) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(folder + name, error)) continue;
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(folder, error);
    return error ? folder : canonical.string();
  }
  return "";
}

namespace {
std::atomic<const std::string*> data_beside_code{nullptr};  // set_shipped_data_beside's folder
}

void set_shipped_data_beside(const std::string& folder) {
  static const std::string kept = folder;  // the first caller's, for the process's life
  data_beside_code.store(&kept);
}

std::string shipped_data_file(const std::string& name) {
  // None found: the source tree's path, which the reader then names as missing (issue 40: an
  // installed zoneode read the partition table, and the mass table, from the source tree only).
  std::string beside;
  if (const std::string* library = data_beside_code.load()) {
    beside = *library;
  } else {
    std::error_code error;
    const std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) beside = (program.parent_path() / ZONEODE_PROGRAM_TO_DATA_DIR).string();
  }
  const std::string folder = find_shipped_data_folder(beside, name);
  return (folder.empty() ? std::string(ZONEODE_DATA_DIR) : folder) + name;
}

std::string default_partition_table_path() { return shipped_data_file(shipped_partition_table_name()); }

}  // namespace zoneode
