// The command line: `zoneode DECK [options]` and `zoneode network info|export DECK [options]`.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace zoneode {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CliOptions {
  std::string command = "run";            // run | network-info | network-export | help | version
  std::string deck;
  std::vector<std::string> overrides;     // "section.key=value", later ones win
  std::string output;                     // network export: the file to write
  bool force = false;                     // overwrite an existing output
  bool quiet = false;                     // no resolved deck or per-species table
};

// Exit codes, documented in README.md.
enum ExitCode : int {
  exit_success = 0,
  exit_runtime_error = 1,   // something failed while running (I/O, internal)
  exit_input_error = 2,     // bad command line, deck or network file
  exit_zones_failed = 3,    // the run finished but some zones failed (see zones_by_status)
};

CliOptions parse_command_line(const std::vector<std::string>& arguments);
std::string usage_text();
int run_command(const CliOptions& options);

}  // namespace zoneode
