// zoneode-compare's command line: options, usage and the exit status.
#include "compare.hpp"
#include "common/numbers.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <ostream>

namespace zoneode::compare {

namespace {

double parse_number(const std::string& text, const std::string& what) {
  const std::optional<double> value = parse_whole_number(text, NonFinite::allow);
  if (!value) throw UsageError(what + ": '" + text + "' is not a number");
  if (!std::isfinite(*value) || *value < 0.0) throw UsageError(what + ": '" + text + "' must be finite and >= 0");
  return *value;
}

}  // namespace

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
