#include "compare.hpp"

#include "common/json.hpp"

#include <hdf5.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <ostream>
#include <set>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <utility>

namespace zoneode::compare {

namespace {

// ---- HDF5 access, written once for every dataset and attribute ----

// A file could not be read: the comparison cannot be made (exit 2), as opposed to a difference.
struct FileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Owns one HDF5 identifier and closes it with the matching H5*close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, -1)), closer_(other.closer_) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, -1);
      closer_ = other.closer_;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  void reset() {
    if (id_ >= 0 && closer_ != nullptr) closer_(id_);
    id_ = -1;
  }
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

// The class of values an object holds, as far as the comparison cares.
enum class Kind { floating, integer, string, other };

Kind kind_of(H5T_class_t type_class) {
  switch (type_class) {
    case H5T_FLOAT: return Kind::floating;
    case H5T_INTEGER: return Kind::integer;
    case H5T_STRING: return Kind::string;
    default: return Kind::other;
  }
}

std::string class_name(H5T_class_t type_class) {
  switch (type_class) {
    case H5T_FLOAT: return "float";
    case H5T_INTEGER: return "integer";
    case H5T_STRING: return "string";
    case H5T_TIME: return "time";
    case H5T_BITFIELD: return "bitfield";
    case H5T_OPAQUE: return "opaque";
    case H5T_COMPOUND: return "compound";
    case H5T_REFERENCE: return "reference";
    case H5T_ENUM: return "enum";
    case H5T_VLEN: return "vlen";
    case H5T_ARRAY: return "array";
    default: return "unknown";
  }
}

std::string kind_name(Kind kind) {
  switch (kind) {
    case Kind::floating: return "float";
    case Kind::integer: return "integer";
    case Kind::string: return "string";
    default: return "other";
  }
}

// A dataset or an attribute: the two differ only in how they are read.
struct Source {
  hid_t id;
  bool attribute;
  std::string what;  // "FILE: /name" or "FILE: attribute name", for messages

  Handle type() const { return Handle(attribute ? H5Aget_type(id) : H5Dget_type(id), H5Tclose); }
  Handle space() const { return Handle(attribute ? H5Aget_space(id) : H5Dget_space(id), H5Sclose); }
};

// Type class and shape of one object, or why it is absent.
struct ObjectInfo {
  bool present = false;
  std::string unusable;  // present but not usable as such (e.g. a group where a dataset belongs)
  H5T_class_t type_class = H5T_NO_CLASS;
  std::size_t type_size = 0;
  bool variable_string = false;
  std::vector<hsize_t> dims;  // empty for a scalar

  long long elements() const {
    long long n = 1;
    for (hsize_t d : dims) n *= static_cast<long long>(d);
    return n;
  }
};

ObjectInfo describe(const Source& source) {
  ObjectInfo info;
  info.present = true;
  Handle type = source.type();
  Handle space = source.space();
  if (!type.valid() || !space.valid()) throw FileError(source.what + ": cannot read its type or shape");
  info.type_class = H5Tget_class(type.get());
  info.type_size = H5Tget_size(type.get());
  info.variable_string = info.type_class == H5T_STRING && H5Tis_variable_str(type.get()) > 0;
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) throw FileError(source.what + ": cannot read its shape");
  info.dims.resize(static_cast<std::size_t>(rank));
  if (rank > 0) H5Sget_simple_extent_dims(space.get(), info.dims.data(), nullptr);
  return info;
}

template <typename T>
hid_t native_type() {
  if constexpr (std::is_same_v<T, double>) return H5T_NATIVE_DOUBLE;
  else if constexpr (std::is_same_v<T, std::int64_t>) return H5T_NATIVE_INT64;
}

// Rows [first, first + count) along the first dimension; the whole object when absent.
struct RowRange {
  hsize_t first = 0;
  hsize_t count = 0;
};

// Reads `source` (all of it, or `rows` of a dataset) as T: double, int64 or std::string, letting
// HDF5 convert numbers from their stored type. Strings may be fixed-length (null-terminated,
// null- or space-padded) or variable-length.
template <typename T>
std::vector<T> read_values(const Source& source, const ObjectInfo& info, std::optional<RowRange> rows = {}) {
  // Selections: the rows in the file and a matching contiguous block in memory.
  Handle file_space, memory_space;
  std::size_t count = static_cast<std::size_t>(info.elements());
  if (rows) {
    if (source.attribute || info.dims.empty()) throw FileError(source.what + ": cannot select rows");
    std::vector<hsize_t> start(info.dims.size(), 0), block = info.dims;
    start[0] = rows->first;
    block[0] = rows->count;
    file_space = source.space();
    memory_space = Handle(H5Screate_simple(static_cast<int>(block.size()), block.data(), nullptr), H5Sclose);
    if (!file_space.valid() || !memory_space.valid() ||
        H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, block.data(), nullptr) < 0)
      throw FileError(source.what + ": cannot select rows");
    count = 1;
    for (hsize_t d : block) count *= static_cast<std::size_t>(d);
  }
  auto read = [&](hid_t memory_type, void* buffer) {
    const herr_t status =
        source.attribute ? H5Aread(source.id, memory_type, buffer)
                         : H5Dread(source.id, memory_type, rows ? memory_space.get() : H5S_ALL,
                                   rows ? file_space.get() : H5S_ALL, H5P_DEFAULT, buffer);
    if (status < 0) throw FileError(source.what + ": cannot read the values");
  };

  std::vector<T> values(count);
  if (count == 0) return values;
  if constexpr (std::is_same_v<T, std::string>) {
    Handle file_type = source.type();
    if (!file_type.valid()) throw FileError(source.what + ": cannot read its type");
    if (info.variable_string) {
      Handle memory_type(H5Tcopy(H5T_C_S1), H5Tclose);
      H5Tset_size(memory_type.get(), H5T_VARIABLE);
      std::vector<char*> pointers(count, nullptr);
      read(memory_type.get(), pointers.data());
      for (std::size_t i = 0; i < count; ++i) {
        if (pointers[i] != nullptr) values[i] = pointers[i];
        H5free_memory(pointers[i]);
      }
    } else {
      // Read with the stored fixed-length type, then cut at the first NUL (and trailing spaces
      // for space padding): null-terminated and null-padded strings of any size compare equal.
      const std::size_t length = info.type_size;
      const bool space_padded = H5Tget_strpad(file_type.get()) == H5T_STR_SPACEPAD;
      std::vector<char> buffer(count * length + 1, '\0');
      read(file_type.get(), buffer.data());
      for (std::size_t i = 0; i < count; ++i) {
        const char* start = buffer.data() + i * length;
        std::string text(start, strnlen(start, length));
        if (space_padded) text.erase(text.find_last_not_of(' ') + 1);
        values[i] = std::move(text);
      }
    }
  } else {
    read(native_type<T>(), values.data());
  }
  return values;
}

// One opened state file.
class StateFile {
 public:
  explicit StateFile(const std::string& path) : path_(path) {
    std::error_code error;
    if (!std::filesystem::exists(path, error)) throw FileError("cannot open '" + path + "': no such file");
    if (std::filesystem::is_directory(path, error)) throw FileError("cannot open '" + path + "': it is a directory");
    const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
    if (is_hdf5 == 0) throw FileError("'" + path + "' is not an HDF5 file");
    if (is_hdf5 < 0) throw FileError("cannot read '" + path + "'");
    file_ = Handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file_.valid()) throw FileError("cannot open '" + path + "' as HDF5");
  }

  const std::string& path() const { return path_; }

  // Opens dataset `name` ("species/name": every link on the way must exist).
  // Returns an invalid handle when absent; `info` says why.
  Handle open_dataset(const std::string& name, ObjectInfo& info) const {
    info = ObjectInfo{};
    for (std::size_t slash = name.find('/'); ; slash = name.find('/', slash + 1)) {
      const std::string prefix = name.substr(0, slash);
      if (H5Lexists(file_.get(), prefix.c_str(), H5P_DEFAULT) <= 0) return {};
      if (slash == std::string::npos) break;
    }
    info.present = true;
    Handle object(H5Oopen(file_.get(), name.c_str(), H5P_DEFAULT), H5Oclose);
    if (!object.valid()) throw FileError(path_ + ": cannot open /" + name);
    if (H5Iget_type(object.get()) != H5I_DATASET) {
      info.unusable = "not a dataset";
      return {};
    }
    info = describe(dataset_source(object, name));
    return object;
  }

  Source dataset_source(const Handle& object, const std::string& name) const {
    return Source{object.get(), false, path_ + ": /" + name};
  }

  Handle open_attribute(const std::string& name, ObjectInfo& info) const {
    info = ObjectInfo{};
    if (H5Aexists(file_.get(), name.c_str()) <= 0) return {};
    Handle attribute(H5Aopen(file_.get(), name.c_str(), H5P_DEFAULT), H5Aclose);
    if (!attribute.valid()) throw FileError(path_ + ": cannot open attribute " + name);
    info = describe(attribute_source(attribute, name));
    return attribute;
  }

  Source attribute_source(const Handle& attribute, const std::string& name) const {
    return Source{attribute.get(), true, path_ + ": attribute " + name};
  }

  // Every dataset reachable by hard links, as "a/b" paths.
  std::set<std::string> dataset_names() const {
    std::set<std::string> names;
    auto visit = [](hid_t group, const char* name, const H5L_info_t* link, void* data) -> herr_t {
      if (link->type != H5L_TYPE_HARD) return 0;
      Handle object(H5Oopen(group, name, H5P_DEFAULT), H5Oclose);
      if (object.valid() && H5Iget_type(object.get()) == H5I_DATASET)
        static_cast<std::set<std::string>*>(data)->insert(name);
      return 0;
    };
    if (H5Lvisit(file_.get(), H5_INDEX_NAME, H5_ITER_INC, visit, &names) < 0)
      throw FileError(path_ + ": cannot list its datasets");
    return names;
  }

 private:
  std::string path_;
  Handle file_;
};

// ---- Value comparison ----

// Shortest text that reads back as the same double.
std::string format_double(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string format_short(double value) {
  if (!std::isfinite(value)) return format_double(value);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", value);
  return buffer;
}

std::string format_value(double value) { return format_double(value); }
std::string format_value(std::int64_t value) { return std::to_string(value); }
std::string format_value(const std::string& value) { return "'" + value + "'"; }

struct PairResult {
  bool beyond = false;
  bool nan = false;
  double abs = 0.0;
  double rel = 0.0;
};

double relative(double difference, double a, double b) {
  const double scale = std::max(std::fabs(a), std::fabs(b));
  return scale == 0.0 ? 0.0 : difference / scale;
}

// |a - b| <= atol + rtol * max(|a|, |b|); NaN never passes (not even NaN vs NaN); equal values
// (including inf vs inf of one sign, and 0 vs -0) always pass.
PairResult compare_pair(double a, double b, const Tolerance& tolerance) {
  PairResult result;
  if (std::isnan(a) || std::isnan(b)) {
    result.beyond = result.nan = true;
    return result;
  }
  if (a == b) return result;
  if (std::isinf(a) || std::isinf(b)) {
    // inf vs finite: relative error 1 (its limit); inf vs -inf: 2 (the largest possible).
    result.abs = std::numeric_limits<double>::infinity();
    result.rel = std::isinf(a) && std::isinf(b) ? 2.0 : 1.0;
    result.beyond = true;
    return result;
  }
  result.abs = std::fabs(a - b);
  result.rel = relative(result.abs, a, b);
  result.beyond = !(result.abs <= tolerance.atol + tolerance.rtol * std::max(std::fabs(a), std::fabs(b)));
  return result;
}

PairResult compare_pair(std::int64_t a, std::int64_t b, const Tolerance&) {
  PairResult result;
  if (a == b) return result;
  const double da = static_cast<double>(a), db = static_cast<double>(b);
  result.abs = std::fabs(da - db);
  result.rel = relative(result.abs, da, db);
  result.beyond = true;
  return result;
}

PairResult compare_pair(const std::string& a, const std::string& b, const Tolerance&) {
  PairResult result;
  if (a == b) return result;
  result.abs = result.rel = 1.0;  // no magnitude for strings: "completely different"
  result.beyond = true;
  return result;
}

// How a flat element index maps to zones and species.
enum class Index { zone, zone_species, species };

struct Layout {
  Index index = Index::zone;
  long long columns = 1;
  const std::vector<std::string>* species_names = nullptr;  // file A's names, may be null
};

// Accumulates element comparisons into `report`; the worst pair is the largest
// (beyond, nan, rel, abs), the first such in index order.
class Accumulator {
 public:
  Accumulator(DatasetReport& report, const Layout& layout) : report_(report), layout_(layout) {}

  template <typename T>
  void add(const std::vector<T>& a, const std::vector<T>& b, long long offset) {
    const Tolerance tolerance = report_.tolerance;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const PairResult pair = compare_pair(a[i], b[i], tolerance);
      ++report_.values;
      if (pair.beyond) ++report_.beyond;
      if (pair.nan) ++report_.nans;
      report_.max_abs = std::max(report_.max_abs, pair.abs);
      report_.max_rel = std::max(report_.max_rel, pair.rel);
      const auto key = std::make_tuple(pair.beyond, pair.nan, pair.rel, pair.abs);
      if (key > worst_) {
        worst_ = key;
        locate(offset + static_cast<long long>(i));
        report_.worst_values = format_value(a[i]) + " vs " + format_value(b[i]);
      }
    }
  }

 private:
  void locate(long long element) {
    long long species = -1;
    switch (layout_.index) {
      case Index::zone: report_.worst_zone = element; break;
      case Index::zone_species:
        report_.worst_zone = element / layout_.columns;
        species = element % layout_.columns;
        break;
      case Index::species: species = element; break;
    }
    report_.worst_species_index = species;
    const auto* names = layout_.species_names;
    if (species >= 0 && names != nullptr && species < static_cast<long long>(names->size()))
      report_.worst_species = (*names)[static_cast<std::size_t>(species)];
  }

  DatasetReport& report_;
  const Layout& layout_;
  std::tuple<bool, bool, double, double> worst_{false, false, 0.0, 0.0};
};

// ---- What is compared ----

struct DatasetSpec {
  const char* name;
  Kind kind;
  int rank;
  Index index;
};

constexpr DatasetSpec zone_datasets[] = {
    {"abundances", Kind::floating, 2, Index::zone_species},
    {"temperature", Kind::floating, 1, Index::zone},
    {"density", Kind::floating, 1, Index::zone},
    {"energy_generation_rate", Kind::floating, 1, Index::zone},
    {"steps", Kind::integer, 1, Index::zone},
    {"status", Kind::integer, 1, Index::zone},
};
constexpr DatasetSpec species_datasets[] = {
    {"species/name", Kind::string, 1, Index::species},
    {"species/Z", Kind::integer, 1, Index::species},
    {"species/A", Kind::integer, 1, Index::species},
};

std::string shape_text(const std::vector<hsize_t>& dims) {
  if (dims.empty()) return "scalar";
  std::string text;
  for (hsize_t d : dims) text += "[" + std::to_string(d) + "]";
  return text;
}

// Why objects `a` and `b` cannot be compared element-wise, or "" when they can. expected_rank -1:
// any shape with one element (attributes).
std::string structural_problem(const ObjectInfo& a, const ObjectInfo& b, Kind expected, int expected_rank,
                               const std::string& file_a, const std::string& file_b) {
  if (!a.present && !b.present) return "missing in both files";
  if (!a.present) return "missing in A (" + file_a + ")";
  if (!b.present) return "missing in B (" + file_b + ")";
  if (!a.unusable.empty()) return "in A: " + a.unusable;
  if (!b.unusable.empty()) return "in B: " + b.unusable;
  if (a.type_class != b.type_class)
    return "type class differs: " + class_name(a.type_class) + " in A vs " + class_name(b.type_class) + " in B";
  if (kind_of(a.type_class) != expected)
    return "expected " + kind_name(expected) + ", found " + class_name(a.type_class) + " in both files";
  // Strings may be stored with any length; numbers must have one width (a float32 file cannot
  // be bit-identical to a float64 one).
  if (expected != Kind::string && a.type_size != b.type_size)
    return "type differs: " + std::to_string(a.type_size * 8) + "-bit " + kind_name(expected) + " in A vs " +
           std::to_string(b.type_size * 8) + "-bit in B";
  if (expected_rank < 0) {
    if (a.elements() != 1 || b.elements() != 1)
      return "expected a scalar, found " + shape_text(a.dims) + " in A and " + shape_text(b.dims) + " in B";
    return "";
  }
  if (a.dims != b.dims) return "shape differs: " + shape_text(a.dims) + " in A vs " + shape_text(b.dims) + " in B";
  if (static_cast<int>(a.dims.size()) != expected_rank)
    return "expected " + std::to_string(expected_rank) + " dimension(s), found " + shape_text(a.dims);
  return "";
}

struct SpeciesLists {
  std::vector<std::string> names;
  std::vector<std::int64_t> Z, A;
};

template <typename T>
std::vector<T> read_whole(const StateFile& file, const std::string& name) {
  ObjectInfo info;
  Handle object = file.open_dataset(name, info);
  if (!object.valid()) throw FileError(file.path() + ": cannot open /" + name);
  return read_values<T>(file.dataset_source(object, name), info);
}

SpeciesLists read_species(const StateFile& file) {
  return {read_whole<std::string>(file, "species/name"), read_whole<std::int64_t>(file, "species/Z"),
          read_whole<std::int64_t>(file, "species/A")};
}

// "" when the lists are equal, else where they first differ.
std::string species_difference(const SpeciesLists& a, const SpeciesLists& b) {
  auto describe_entry = [](const SpeciesLists& list, std::size_t i, bool with_nuclei) {
    if (i >= list.names.size()) return std::string("(end of list)");
    std::string text = "'" + list.names[i] + "'";
    if (with_nuclei) text += " (Z=" + std::to_string(list.Z[i]) + ", A=" + std::to_string(list.A[i]) + ")";
    return text;
  };
  const std::size_t n = std::max(a.names.size(), b.names.size());
  for (std::size_t i = 0; i < n; ++i) {
    const bool both = i < a.names.size() && i < b.names.size();
    const bool name_equal = both && a.names[i] == b.names[i];
    const bool nuclei_equal = both && a.Z[i] == b.Z[i] && a.A[i] == b.A[i];
    if (name_equal && nuclei_equal) continue;
    const bool with_nuclei = name_equal;  // same name: the difference is in Z or A
    return "species lists differ: first mismatch at index " + std::to_string(i) + ": " +
           describe_entry(a, i, with_nuclei) + " vs " + describe_entry(b, i, with_nuclei);
  }
  return "";
}

template <typename T>
void compare_rows(const Source& a, const ObjectInfo& info_a, const Source& b, const ObjectInfo& info_b,
                  const Layout& layout, DatasetReport& report) {
  Accumulator accumulator(report, layout);
  // Read in blocks of rows (about 2^20 values) so memory stays bounded for large files.
  const long long per_row = info_a.dims.empty() ? 1 : info_a.elements() / std::max<long long>(1, info_a.dims[0]);
  const hsize_t rows = info_a.dims.empty() ? 1 : info_a.dims[0];
  const hsize_t block = static_cast<hsize_t>(std::max<long long>(1, (1LL << 20) / std::max<long long>(1, per_row)));
  for (hsize_t first = 0; first < rows; first += block) {
    const RowRange range{first, std::min(block, rows - first)};
    accumulator.add(read_values<T>(a, info_a, range), read_values<T>(b, info_b, range),
                    static_cast<long long>(first) * per_row);
  }
  report.compared = true;
}

DatasetReport compare_dataset(const StateFile& file_a, const StateFile& file_b, const DatasetSpec& spec,
                              const CompareOptions& options, const std::string& species_problem,
                              const std::vector<std::string>* species_names) {
  DatasetReport report;
  report.name = spec.name;
  report.exact = spec.kind != Kind::floating;
  if (!report.exact) report.tolerance = options.tolerance_for(spec.name);
  ObjectInfo info_a, info_b;
  Handle a = file_a.open_dataset(spec.name, info_a);
  Handle b = file_b.open_dataset(spec.name, info_b);
  report.problem = structural_problem(info_a, info_b, spec.kind, spec.rank, file_a.path(), file_b.path());
  if (!report.problem.empty()) return report;

  Layout layout{spec.index, 1, species_names};
  if (spec.index == Index::zone_species) {
    // Columns are meaningful only through the species list; never compare them without it.
    if (!species_problem.empty()) {
      report.problem = "not comparable: " + species_problem;
      return report;
    }
    layout.columns = static_cast<long long>(info_a.dims[1]);
    if (species_names == nullptr || layout.columns != static_cast<long long>(species_names->size())) {
      report.problem = "not comparable: " + std::to_string(layout.columns) + " species columns but " +
                       std::to_string(species_names ? species_names->size() : 0) + " names in /species/name";
      return report;
    }
  }
  const Source source_a = file_a.dataset_source(a, spec.name), source_b = file_b.dataset_source(b, spec.name);
  switch (spec.kind) {
    case Kind::floating: compare_rows<double>(source_a, info_a, source_b, info_b, layout, report); break;
    case Kind::integer: compare_rows<std::int64_t>(source_a, info_a, source_b, info_b, layout, report); break;
    case Kind::string: compare_rows<std::string>(source_a, info_a, source_b, info_b, layout, report); break;
    case Kind::other: break;
  }
  return report;
}

template <typename T>
AttributeReport compare_attribute(const StateFile& file_a, const StateFile& file_b, const std::string& name,
                                  Kind kind, const Tolerance& tolerance) {
  AttributeReport report;
  report.name = name;
  ObjectInfo info_a, info_b;
  Handle a = file_a.open_attribute(name, info_a);
  Handle b = file_b.open_attribute(name, info_b);
  // The value of each side, when it is one value of the expected kind (shown even if the other
  // side is not comparable). A failed read is an error, not a difference.
  auto read_one = [&](const StateFile& file, const Handle& handle, const ObjectInfo& info) -> std::optional<T> {
    if (!handle.valid() || kind_of(info.type_class) != kind || info.elements() != 1) return std::nullopt;
    return read_values<T>(file.attribute_source(handle, name), info).at(0);
  };
  const std::optional<T> value_a = read_one(file_a, a, info_a), value_b = read_one(file_b, b, info_b);
  if (value_a) report.value_a = format_value(*value_a);
  if (value_b) report.value_b = format_value(*value_b);
  report.problem = structural_problem(info_a, info_b, kind, -1, file_a.path(), file_b.path());
  if (!report.problem.empty()) return report;
  if (!value_a || !value_b) {  // the structural check should have caught this already
    report.problem = "not comparable";
    return report;
  }
  const PairResult pair = compare_pair(*value_a, *value_b, tolerance);
  if (pair.nan) report.problem = "NaN";
  else if (pair.beyond) {
    report.problem = "differ";
    if constexpr (std::is_same_v<T, double>)
      report.problem += " (abs " + format_short(pair.abs) + ", rel " + format_short(pair.rel) + "; rtol " +
                        format_short(tolerance.rtol) + ", atol " + format_short(tolerance.atol) + ")";
  }
  return report;
}

// ---- Output helpers ----

// JSON has no inf: such numbers are written as the string "inf".
std::string json_number(double value) {
  return std::isfinite(value) ? format_double(value) : json_string(format_double(value));
}

std::string dataset_status(const DatasetReport& d) {
  if (d.listed_only) return "not compared";
  return d.differs() ? "differ" : "match";
}

double parse_number(const std::string& text, const std::string& what) {
  double value = 0.0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(begin, end, value);
  if (text.empty() || error != std::errc() || stop != end)
    throw UsageError(what + ": '" + text + "' is not a number");
  if (!std::isfinite(value) || value < 0.0) throw UsageError(what + ": '" + text + "' must be finite and >= 0");
  return value;
}

}  // namespace

// ---- Public API ----

const std::vector<std::string>& toleranced_datasets() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> list;
    for (const auto& spec : zone_datasets)
      if (spec.kind == Kind::floating) list.emplace_back(spec.name);
    return list;
  }();
  return names;
}

Tolerance CompareOptions::tolerance_for(const std::string& dataset) const {
  const auto found = per_dataset.find(dataset);
  if (found == per_dataset.end()) return {rtol, atol};
  return {found->second.rtol, found->second.atol.value_or(atol)};
}

int CompareReport::exit_code() const {
  if (!error.empty()) return 2;
  for (const auto& d : datasets)
    if (d.differs()) return 1;
  for (const auto& a : attributes)
    if (a.differs()) return 1;
  return 0;
}

std::string CompareReport::verdict() const {
  switch (exit_code()) {
    case 0: return "match";
    case 1: return "differ";
    default: return "error";
  }
}

std::vector<std::string> CompareReport::problems() const {
  std::vector<std::string> lines;
  for (const auto& d : datasets) {
    if (!d.differs()) continue;
    if (!d.problem.empty()) lines.push_back(d.name + ": " + d.problem);
    else lines.push_back(d.name + ": " + std::to_string(d.beyond) + " of " + std::to_string(d.values) +
                         (d.exact ? " differ" : " beyond tolerance"));
  }
  for (const auto& a : attributes)
    if (a.differs()) lines.push_back("attribute " + a.name + ": " + a.problem);
  return lines;
}

const DatasetReport* CompareReport::dataset(const std::string& name) const {
  for (const auto& d : datasets)
    if (d.name == name) return &d;
  return nullptr;
}

const AttributeReport* CompareReport::attribute(const std::string& name) const {
  for (const auto& a : attributes)
    if (a.name == name) return &a;
  return nullptr;
}

CompareReport compare_files(const std::string& path_a, const std::string& path_b, const CompareOptions& options) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // our messages name file and object instead
  CompareReport report;
  report.file_a = path_a;
  report.file_b = path_b;
  try {
    const StateFile a(path_a);
    const StateFile b(path_b);

    // Species first: the abundance columns mean something only if both lists are the same.
    std::vector<DatasetReport> species_reports;
    for (const auto& spec : species_datasets)
      species_reports.push_back(compare_dataset(a, b, spec, options, "", nullptr));
    std::string species_problem;
    std::vector<std::string> species_names;
    const bool lists_readable = std::all_of(species_reports.begin(), species_reports.end(),
                                            [](const DatasetReport& r) { return r.problem.empty(); });
    if (lists_readable) {
      const SpeciesLists lists_a = read_species(a), lists_b = read_species(b);
      auto consistent = [](const SpeciesLists& l) { return l.Z.size() == l.names.size() && l.A.size() == l.names.size(); };
      if (!consistent(lists_a) || !consistent(lists_b))
        species_problem = "species lists not comparable: /species/name, /species/Z and /species/A differ in length";
      else
        species_problem = species_difference(lists_a, lists_b);
      species_names = lists_a.names;
    } else {
      species_problem = "species lists not comparable (see species/name, species/Z, species/A)";
    }
    for (auto& r : species_reports) {  // name species mismatches by A's names
      if (r.worst_species_index >= 0 && r.worst_species_index < static_cast<long long>(species_names.size()))
        r.worst_species = species_names[static_cast<std::size_t>(r.worst_species_index)];
    }

    for (const auto& spec : zone_datasets)
      report.datasets.push_back(compare_dataset(a, b, spec, options, species_problem,
                                                lists_readable ? &species_names : nullptr));
    report.datasets.insert(report.datasets.end(), species_reports.begin(), species_reports.end());

    report.attributes.push_back(compare_attribute<double>(a, b, "time", Kind::floating, {options.rtol, options.atol}));
    report.attributes.push_back(compare_attribute<std::int64_t>(a, b, "step", Kind::integer, {}));
    report.attributes.push_back(compare_attribute<std::string>(a, b, "network_hash", Kind::string, {}));

    // Anything else is listed, so a new dataset in the layout is not silently ignored.
    std::set<std::string> compared;
    for (const auto& spec : zone_datasets) compared.insert(spec.name);
    for (const auto& spec : species_datasets) compared.insert(spec.name);
    const std::set<std::string> names_a = a.dataset_names(), names_b = b.dataset_names();
    std::set<std::string> all = names_a;
    all.insert(names_b.begin(), names_b.end());
    for (const auto& name : all) {
      if (compared.count(name)) continue;
      DatasetReport extra;
      extra.name = name;
      extra.listed_only = true;
      const bool in_a = names_a.count(name) > 0, in_b = names_b.count(name) > 0;
      extra.where = in_a && in_b ? "A and B" : in_a ? "A only" : "B only";
      report.datasets.push_back(extra);
    }
  } catch (const std::exception& error) {
    report.error = error.what();
  }
  return report;
}

std::string report_text(const CompareReport& report) {
  std::ostringstream out;
  out << "A: " << report.file_a << "\nB: " << report.file_b << "\n";
  if (!report.error.empty()) {
    out << "verdict: error: " << report.error << "\n";
    return out.str();
  }
  auto label = [](const std::string& name) {
    std::string padded = name;
    if (padded.size() < 24) padded.resize(24, ' ');
    return padded + " ";
  };
  int checks = 0, differing = 0;
  for (const auto& d : report.datasets) {
    if (d.listed_only) {
      out << label(d.name) << "not compared (" << d.where << "; not in the compared list)\n";
      continue;
    }
    ++checks;
    if (d.differs()) ++differing;
    out << label(d.name) << (d.differs() ? "differ  " : "match   ");
    if (!d.problem.empty()) {
      out << d.problem << "\n";
      continue;
    }
    if (d.exact) {
      out << "exact: " << d.beyond << " of " << d.values << " differ";
    } else {
      out << d.beyond << " of " << d.values << " beyond tolerance, " << d.nans << " NaN; max abs "
          << format_short(d.max_abs) << ", max rel " << format_short(d.max_rel);
    }
    if (d.worst_zone >= 0 || d.worst_species_index >= 0) {
      out << "; worst at";
      if (d.worst_zone >= 0) out << " zone " << d.worst_zone;
      if (d.worst_species_index >= 0)
        out << " species " << d.worst_species_index << (d.worst_species.empty() ? "" : " '" + d.worst_species + "'");
      out << ": " << d.worst_values;
    }
    if (!d.exact) out << " (rtol " << format_short(d.tolerance.rtol) << ", atol " << format_short(d.tolerance.atol) << ")";
    out << "\n";
  }
  for (const auto& a : report.attributes) {
    ++checks;
    if (a.differs()) ++differing;
    out << label("attribute " + a.name) << (a.differs() ? "differ  " : "match   ");
    auto shown = [](const std::string& value) { return value.empty() ? std::string("(none)") : value; };
    out << shown(a.value_a) << " vs " << shown(a.value_b);
    if (a.differs()) out << ": " << a.problem;
    out << "\n";
  }
  out << "verdict: " << report.verdict() << " (" << differing << " of " << checks << " checks differ)\n";
  return out.str();
}

std::string report_json(const CompareReport& report) {
  std::ostringstream out;
  out << "{\n  \"file_a\": " << json_string(report.file_a) << ",\n  \"file_b\": " << json_string(report.file_b)
      << ",\n  \"verdict\": " << json_string(report.verdict()) << ",\n  \"exit_code\": " << report.exit_code();
  if (!report.error.empty()) out << ",\n  \"error\": " << json_string(report.error);
  out << ",\n  \"datasets\": {";
  const char* separator = "\n";
  for (const auto& d : report.datasets) {
    out << separator << "    " << json_string(d.name) << ": {\"status\": " << json_string(dataset_status(d));
    separator = ",\n";
    if (d.listed_only) {
      out << ", \"where\": " << json_string(d.where) << "}";
      continue;
    }
    out << ", \"comparison\": " << json_string(d.exact ? "exact" : "tolerance");
    if (!d.exact) out << ", \"rtol\": " << json_number(d.tolerance.rtol) << ", \"atol\": " << json_number(d.tolerance.atol);
    out << ", \"compared\": " << (d.compared ? "true" : "false");
    if (!d.problem.empty()) out << ", \"problem\": " << json_string(d.problem);
    out << ", \"values\": " << d.values << ", \"max_abs\": " << json_number(d.max_abs)
        << ", \"max_rel\": " << json_number(d.max_rel) << ", \"beyond\": " << d.beyond << ", \"nans\": " << d.nans
        << ", \"worst_zone\": " << d.worst_zone << ", \"worst_species_index\": " << d.worst_species_index
        << ", \"worst_species\": " << json_string(d.worst_species) << ", \"worst_values\": " << json_string(d.worst_values)
        << "}";
  }
  out << (report.datasets.empty() ? "},\n" : "\n  },\n") << "  \"attributes\": {";
  separator = "\n";
  for (const auto& a : report.attributes) {
    out << separator << "    " << json_string(a.name) << ": {\"status\": " << json_string(a.differs() ? "differ" : "match")
        << ", \"a\": " << json_string(a.value_a) << ", \"b\": " << json_string(a.value_b);
    if (!a.problem.empty()) out << ", \"problem\": " << json_string(a.problem);
    out << "}";
    separator = ",\n";
  }
  out << (report.attributes.empty() ? "}\n}\n" : "\n  }\n}\n");
  return out.str();
}

std::string usage() {
  std::string names;
  for (const auto& name : toleranced_datasets()) names += (names.empty() ? "" : ", ") + name;
  return "usage: zoneode-compare A.h5 B.h5 [--rtol R] [--atol A] [--tolerance DATASET=RTOL[,ATOL]]...\n"
         "                       [--json FILE|-] [--quiet]\n"
         "Compares two zoneode state files; a value pair passes when |a-b| <= atol + rtol*max(|a|,|b|).\n"
         "  --rtol R        relative tolerance (default 1e-12)\n"
         "  --atol A        absolute tolerance (default 1e-30)\n"
         "  --tolerance D=RTOL[,ATOL]  for one dataset D (" + names + "); ATOL defaults to --atol\n"
         "  --json FILE|-   also write the report as JSON to FILE, or to stdout instead of the text\n"
         "  --quiet         no text report (exit status only; errors still go to stderr)\n"
         "Exit status: 0 within tolerance, 1 differences, 2 error (file missing or unreadable, bad arguments).\n"
         "See validation/README.md.\n";
}

CommandLine parse_command_line(const std::vector<std::string>& arguments) {
  CommandLine line;
  std::vector<std::string> files;
  bool options_done = false;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& argument = arguments[i];
    if (options_done || argument.size() < 2 || argument[0] != '-') {
      files.push_back(argument);
      continue;
    }
    if (argument == "--") {
      options_done = true;
      continue;
    }
    // "--name value" or "--name=value".
    const std::size_t equals = argument.find('=');
    const std::string name = argument.substr(0, equals);
    const std::optional<std::string> inline_value =
        equals == std::string::npos ? std::nullopt : std::optional<std::string>(argument.substr(equals + 1));
    auto value = [&]() -> std::string {
      if (inline_value) return *inline_value;
      if (i + 1 >= arguments.size()) throw UsageError(name + " needs a value");
      return arguments[++i];
    };
    auto no_value = [&] {
      if (inline_value) throw UsageError(name + " takes no value");
    };
    if (name == "--rtol") {
      line.options.rtol = parse_number(value(), "--rtol");
    } else if (name == "--atol") {
      line.options.atol = parse_number(value(), "--atol");
    } else if (name == "--tolerance") {
      const std::string spec = value();
      const std::size_t split = spec.find('=');
      if (split == std::string::npos) throw UsageError("--tolerance '" + spec + "': expected DATASET=RTOL[,ATOL]");
      const std::string dataset = spec.substr(0, split);
      const auto& known = toleranced_datasets();
      if (std::find(known.begin(), known.end(), dataset) == known.end()) {
        std::string names;
        for (const auto& n : known) names += (names.empty() ? "" : ", ") + n;
        throw UsageError("--tolerance: unknown dataset '" + dataset + "'; expected one of " + names);
      }
      const std::string numbers = spec.substr(split + 1);
      const std::size_t comma = numbers.find(',');
      DatasetTolerance tolerance;
      const std::string what = "--tolerance " + dataset;
      tolerance.rtol = parse_number(numbers.substr(0, comma), what);
      if (comma != std::string::npos) tolerance.atol = parse_number(numbers.substr(comma + 1), what);
      line.options.per_dataset[dataset] = tolerance;
    } else if (name == "--json") {
      line.json = value();
      if (line.json->empty()) throw UsageError("--json needs a file name or '-'");
    } else if (name == "--quiet" || name == "-q") {
      no_value();
      line.quiet = true;
    } else if (name == "--help" || name == "-h") {
      no_value();
      line.help = true;
    } else {
      throw UsageError("unknown option '" + argument + "'");
    }
  }
  if (line.help) return line;
  if (files.size() != 2)
    throw UsageError("expected two files A.h5 B.h5, got " + std::to_string(files.size()) + " file argument(s)");
  line.file_a = files[0];
  line.file_b = files[1];
  return line;
}

int run_tool(const std::vector<std::string>& arguments, std::ostream& out, std::ostream& err) {
  CommandLine line;
  try {
    line = parse_command_line(arguments);
  } catch (const UsageError& error) {
    err << "zoneode-compare: " << error.what() << "\n(zoneode-compare --help for usage)\n";
    return 2;
  }
  if (line.help) {
    out << usage();
    return 0;
  }
  const CompareReport report = compare_files(line.file_a, line.file_b, line.options);
  if (!report.error.empty()) err << "zoneode-compare: " << report.error << "\n";
  const bool json_to_stdout = line.json && *line.json == "-";
  if (line.json) {
    const std::string json = report_json(report);
    if (json_to_stdout) {
      out << json;
    } else {
      std::ofstream file(*line.json);
      file << json;
      file.close();
      if (!file) {
        err << "zoneode-compare: cannot write the JSON report '" << *line.json << "'\n";
        return 2;
      }
    }
  }
  if (!line.quiet && !json_to_stdout) out << report_text(report);
  return report.exit_code();
}

}  // namespace zoneode::compare
