// The comparison of two state files: structure first, then values pair by pair (compare.hpp).
#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <tuple>
#include <type_traits>

#include "state_reader.hpp"
#include "value_format.hpp"

namespace zoneode::compare {

namespace {

namespace layout = state_layout;
using layout::Shape;

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
struct Layout {
  Shape shape = Shape::per_zone;
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
    switch (layout_.shape) {
      case Shape::per_zone: report_.worst_zone = element; break;
      case Shape::per_zone_species:
        report_.worst_zone = element / layout_.columns;
        species = element % layout_.columns;
        break;
      case Shape::per_species: species = element; break;
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

SpeciesLists read_species(const StateFile& file) {
  return {file.species_names(), file.read_whole<std::int64_t>(layout::species_Z),
          file.read_whole<std::int64_t>(layout::species_A)};
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

// The file's format_version attribute; 0 when it has none (a file written by another program).
int format_version_of(const StateFile& file) {
  ObjectInfo info;
  const Hdf5Handle attribute = file.open_attribute(layout::version, info);
  if (!attribute.valid() || kind_of(info.type_class) != Kind::integer || info.elements() != 1) return 0;
  return static_cast<int>(read_values<std::int64_t>(file.attribute_source(attribute, info.stored_name), info).at(0));
}

DatasetReport compare_dataset(const StateFile& file_a, const StateFile& file_b, const layout::Dataset& spec,
                              const CompareOptions& options, const std::string& species_problem,
                              const std::vector<std::string>* species_names) {
  DatasetReport report;
  report.name = spec.name;
  const Kind kind = kind_of(spec.type);
  report.exact = kind != Kind::floating;
  if (!report.exact) report.tolerance = options.tolerance_for(spec.name);
  ObjectInfo info_a, info_b;
  const Hdf5Handle a = file_a.open_dataset(spec, info_a);
  const Hdf5Handle b = file_b.open_dataset(spec, info_b);
  // A dataset newer than a file's format cannot be in it: listed, not a difference (a file of the
  // current format that lacks it is one).
  const bool old_a = !info_a.present && format_version_of(file_a) < spec.since_version;
  const bool old_b = !info_b.present && format_version_of(file_b) < spec.since_version;
  if (old_a || old_b) {
    report.listed_only = report.older_format = true;
    report.where = std::string("absent in ") + (old_a && old_b ? "A and B" : old_a ? "A" : "B") +
                   ", whose format_version predates it (" + std::to_string(spec.since_version) + ")";
    return report;
  }
  const int rank = spec.shape == Shape::per_zone_species ? 2 : 1;
  report.problem = structural_problem(info_a, info_b, kind, rank, file_a.path(), file_b.path());
  if (!report.problem.empty()) return report;

  Layout layout{spec.shape, 1, species_names};
  if (spec.shape == Shape::per_zone_species) {
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
  const Source source_a = file_a.dataset_source(a, info_a.stored_name);
  const Source source_b = file_b.dataset_source(b, info_b.stored_name);
  switch (kind) {
    case Kind::floating: compare_rows<double>(source_a, info_a, source_b, info_b, layout, report); break;
    case Kind::integer: compare_rows<std::int64_t>(source_a, info_a, source_b, info_b, layout, report); break;
    case Kind::string: compare_rows<std::string>(source_a, info_a, source_b, info_b, layout, report); break;
    case Kind::other: break;
  }
  return report;
}

template <typename T>
AttributeReport compare_attribute(const StateFile& file_a, const StateFile& file_b, const layout::Attribute& spec,
                                  const Tolerance& tolerance) {
  AttributeReport report;
  report.name = spec.name;
  const Kind kind = kind_of(spec.type);
  ObjectInfo info_a, info_b;
  const Hdf5Handle a = file_a.open_attribute(spec, info_a);
  const Hdf5Handle b = file_b.open_attribute(spec, info_b);
  // The value of each side, when it is one value of the expected kind (shown even if the other
  // side is not comparable). A failed read is an error, not a difference.
  auto read_one = [&](const StateFile& file, const Hdf5Handle& handle, const ObjectInfo& info) -> std::optional<T> {
    if (!handle.valid() || kind_of(info.type_class) != kind || info.elements() != 1) return std::nullopt;
    return read_values<T>(file.attribute_source(handle, info.stored_name), info).at(0);
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

}  // namespace

const std::vector<std::string>& toleranced_datasets() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> list;
    for (const auto& spec : layout::zone_datasets)
      if (spec.compared && kind_of(spec.type) == Kind::floating) list.emplace_back(spec.name);
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
    if (d.name == state_layout::current_name(name)) return &d;
  return nullptr;
}

const AttributeReport* CompareReport::attribute(const std::string& name) const {
  for (const auto& a : attributes)
    if (a.name == state_layout::current_name(name)) return &a;
  return nullptr;
}

CompareReport compare_files(const std::string& path_a, const std::string& path_b, const CompareOptions& options) {
  silence_hdf5_error_stack();
  CompareReport report;
  report.file_a = path_a;
  report.file_b = path_b;
  try {
    const StateFile a(path_a);
    const StateFile b(path_b);

    // Species first: the abundance columns mean something only if both lists are the same.
    std::vector<DatasetReport> species_reports;
    for (const auto& spec : layout::species_datasets)
      if (spec.compared) species_reports.push_back(compare_dataset(a, b, spec, options, "", nullptr));
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

    for (const auto& spec : layout::zone_datasets) {
      if (spec.compared)
        report.datasets.push_back(compare_dataset(a, b, spec, options, species_problem,
                                                  lists_readable ? &species_names : nullptr));
    }
    report.datasets.insert(report.datasets.end(), species_reports.begin(), species_reports.end());

    for (const auto& spec : layout::compared_attributes) {
      switch (kind_of(spec.type)) {  // numbers under the global tolerances, the rest exactly
        case Kind::floating:
          report.attributes.push_back(compare_attribute<double>(a, b, spec, {options.rtol, options.atol}));
          break;
        case Kind::integer: report.attributes.push_back(compare_attribute<std::int64_t>(a, b, spec, {})); break;
        case Kind::string: report.attributes.push_back(compare_attribute<std::string>(a, b, spec, {})); break;
        case Kind::other: break;
      }
    }

    // Anything else is listed, so a new dataset in the layout is not silently ignored.
    std::set<std::string> compared;  // under both names: an old file's /steps is not an extra dataset
    auto add_compared = [&](const auto& specs) {
      for (const auto& spec : specs) {
        if (!spec.compared) continue;
        compared.insert(spec.name);
        if (spec.old_name != nullptr) compared.insert(spec.old_name);
      }
    };
    add_compared(layout::zone_datasets);
    add_compared(layout::species_datasets);

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


}  // namespace zoneode::compare
