// zoneode-compare's reports: one line per check for people, one JSON object for scripts.
#include "compare.hpp"

#include <cmath>
#include <sstream>

#include "common/json.hpp"
#include "value_format.hpp"

namespace zoneode::compare {

namespace {

// JSON has no inf: such numbers are written as the string "inf".
std::string json_number(double value) {
  return std::isfinite(value) ? format_double(value) : json_string(format_double(value));
}

std::string dataset_status(const DatasetReport& d) {
  if (d.listed_only) return "not compared";
  return d.differs() ? "differ" : "match";
}

}  // namespace

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
      out << label(d.name) << "not compared (" << d.where << (d.older_format ? ")\n" : "; not in the compared list)\n");
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

}  // namespace zoneode::compare
