// Comparison of two zoneode HDF5 outputs (validation/README.md).
//
// compare_files() never passes what it could not compare: a missing dataset, a shape or type
// mismatch, differing species lists and NaN values are all differences. Only unreadable files
// (missing, not HDF5, a failed read) are errors.
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace zoneode::compare {

// A value pair (a, b) passes when |a - b| <= atol + rtol * max(|a|, |b|).
struct Tolerance {
  double rtol = 0.0;
  double atol = 0.0;
};

struct DatasetTolerance {
  double rtol = 0.0;
  std::optional<double> atol;  // unset: the global atol
};

struct CompareOptions {
  double rtol = 1e-12;
  double atol = 1e-30;  // abundances are mol/g; values near 1e-30 are noise, not physics
  // Overrides for the float datasets only: abundances, temperature, density, energy_generation_rate,
  // time_reached.
  std::map<std::string, DatasetTolerance> per_dataset;

  Tolerance tolerance_for(const std::string& dataset) const;
};

// The float datasets a per-dataset tolerance may name.
const std::vector<std::string>& toleranced_datasets();

struct DatasetReport {
  std::string name;         // path without the leading '/': "abundances", "species/name", ...
  bool exact = false;       // integers and strings: compared for equality, no tolerance
  Tolerance tolerance;      // used when !exact
  bool compared = false;    // values were compared element by element
  bool listed_only = false; // present in a file but not in the compared list: never a difference
  std::string where;        // listed_only: "A only", "B only" or "A and B"; or, with older_format, why
  bool older_format = false; // listed_only: a compared dataset absent from a file whose format predates it
  std::string problem;      // not comparable (missing, shape, type, species lists): a difference
  long long values = 0;     // elements compared
  double max_abs = 0.0;     // max |a - b| over non-NaN pairs
  double max_rel = 0.0;     // max |a - b| / max(|a|, |b|) (0 when both are 0) over non-NaN pairs
  // The worst pair: a NaN first, then the beyond-tolerance pair of largest relative error, else
  // the largest relative error; -1 / "" when all pairs are equal or the index does not apply.
  long long worst_zone = -1;
  long long worst_species_index = -1;
  std::string worst_species;  // name from file A's /species/name
  std::string worst_values;   // "a vs b" at the worst pair, full precision
  long long beyond = 0;       // pairs beyond tolerance (NaN pairs included); exact: unequal pairs
  long long nans = 0;         // pairs with a NaN on either side

  bool differs() const { return !listed_only && (!problem.empty() || beyond > 0); }
};

// The root attributes "time" (global tolerance), "outer_step" and "network_hash" (exactly).
struct AttributeReport {
  std::string name;
  std::string value_a, value_b;  // as text; "" when absent or unreadable
  std::string problem;           // non-empty: a difference

  bool differs() const { return !problem.empty(); }
};

struct CompareReport {
  std::string file_a, file_b;
  std::vector<DatasetReport> datasets;  // compared list first, then listed_only ones
  std::vector<AttributeReport> attributes;
  std::string error;  // non-empty: the comparison could not be made (exit 2)

  // 0: everything compared and within tolerance; 1: differences; 2: error.
  int exit_code() const;
  std::string verdict() const;  // "match", "differ" or "error"
  // Human-readable lines of every difference (datasets and attributes), for messages and tests.
  std::vector<std::string> problems() const;
  // By current or version-1 name ("steps" finds integrator_steps): io/state_layout.hpp.
  const DatasetReport* dataset(const std::string& name) const;
  const AttributeReport* attribute(const std::string& name) const;
};

CompareReport compare_files(const std::string& file_a, const std::string& file_b, const CompareOptions& options);

std::string report_text(const CompareReport& report);  // one line per dataset and attribute, then the verdict
std::string report_json(const CompareReport& report);  // the same, as one JSON object

// ---- Command line ----

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CommandLine {
  std::string file_a, file_b;
  CompareOptions options;
  std::optional<std::string> json;  // a file name, or "-" for stdout
  bool quiet = false;
  bool help = false;
};

std::string usage();
// Throws UsageError with a message naming the offending argument.
CommandLine parse_command_line(const std::vector<std::string>& arguments);

// The whole tool: parses `arguments` (without the program name), compares, writes the report to
// `out` and messages to `err`, returns the exit code (0, 1, 2).
int run_tool(const std::vector<std::string>& arguments, std::ostream& out, std::ostream& err);

}  // namespace zoneode::compare
