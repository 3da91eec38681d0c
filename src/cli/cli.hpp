// The command line: `zoneode DECK [options]` and `zoneode network info|export DECK [options]`.
#pragma once

#include <stdexcept>

#include "decomposition/mpi_context.hpp"
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
  std::string restart;                    // continue from this state file
  bool force = false;                     // overwrite existing outputs
  bool restart_allow_changed = false;     // --restart although the file's deck differs in results-relevant keys
  bool quiet = false;                     // no resolved deck, per-species table or progress lines
  double progress_seconds = 10.0;         // at most one progress line per this many seconds [s]
};

// Exit codes, documented in README.md.
enum ExitCode : int {
  exit_success = 0,
  exit_runtime_error = 1,   // something failed while running (I/O, internal)
  exit_input_error = 2,     // bad command line, deck or network file
  exit_zones_failed = 3,    // the run finished but some zones failed (see zones_by_status)
  exit_stopped = 75,        // stopped early by SIGTERM/SIGUSR1 after a checkpoint (EX_TEMPFAIL: resubmit)
};

CliOptions parse_command_line(const std::vector<std::string>& arguments);
std::string usage_text();
int run_command(const CliOptions& options, const MpiContext& mpi);
// The run itself (src/cli/run.cpp).
int run_deck(const CliOptions& options, const MpiContext& mpi);

// An error already reported on stderr by one rank; every rank exits with `code`.
class ReportedError : public std::runtime_error {
 public:
  ReportedError(int code) : std::runtime_error("reported"), code(code) {}
  int code;
};

}  // namespace zoneode
