// The command line: parsing, help, and the commands other than a run.
#include "cli/cli.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>

#include "backends/backend.hpp"
#include "deck/deck.hpp"
#include "deck/yaml_schema.hpp"
#include "cli/preflight.hpp"
#include "cli/report.hpp"
#include "common/errors.hpp"
#include "common/numbers.hpp"
#include "network/compact.hpp"
#include "network/load.hpp"
#include "network/network_file.hpp"
#include "zoneode_version.hpp"

namespace zoneode {

namespace {

// "  NAME  summary" lines of one of the lists (common/*.def), indented for the help text.
template <typename Enum, std::size_t N>
std::string choice_lines(const Enum (&values)[N], std::string_view (*name)(Enum), std::string_view (*summary)(Enum)) {
  std::string lines;
  for (Enum value : values) {
    std::string line = "    " + std::string(name(value));
    line.resize(std::max<std::size_t>(line.size() + 2, 16), ' ');
    lines += line + std::string(summary(value)) + "\n";
  }
  return lines;
}

}  // namespace

std::string usage_text() {
  return R"(zoneode: a stiff reaction network integrated in every zone

usage:
  [mpirun -n R] zoneode DECK [--set section.key=value]... [--backend cpu|gpu] [--kernel NAME]
                             [--threads N] [--summary FILE] [--restart FILE] [--force] [--quiet]
                             [--progress SECONDS]
  zoneode network info DECK [--set section.key=value]...
  zoneode network export DECK --output FILE [--force] [--set section.key=value]...
  zoneode --help | --version | --list-kernels

  DECK                a YAML input deck (inputs/README.md documents every key)
  --set KEY=VALUE     override a deck value (wins over the file; the resolved deck is printed)
  --backend cpu|gpu   where zones are integrated (same as --set run.backend=...; gpu needs a
                      build with -DZONEODE_GPU=HIP or CUDA)
  --kernel NAME       GPU kernel variant (same as --set run.kernel=NAME; default final)
  --threads N         OpenMP threads per rank, CPU backend (same as --set run.threads=N)
  --summary FILE      write the JSON summary to FILE (same as --set run.summary=FILE)
  --restart FILE      continue from a state file written by this deck (step k), running k+1 on
  --restart-allow-changed  continue even where the restart file's deck differs from this one in
                      keys that change results (integrator, steps factors); the files then
                      differ from those of an uninterrupted run
  --force             overwrite existing output files (state files, network export)
  --output FILE       network export: the zoneode network file to write
  --quiet             do not print the resolved deck, the per-species table or progress lines
  --progress SECONDS  a progress line after an outer step at most every SECONDS (default 10;
                      0: after every outer step)
  --list-kernels      the GPU kernel variants built into this binary, one per line

signals: SIGTERM, SIGUSR1 or SIGINT (Ctrl-C; a second one ends the run at once) stop the run
  after the outer step in flight, with a checkpoint
  (OUTPUT_PREFIX_checkpoint.h5, printed as 'checkpoint: PATH outer_step K'); continue it with
  --restart PATH
exit status: 0 success, 1 runtime error, 2 bad input, 3 finished with failed zones,
  75 stopped early by a signal (resubmit with --restart from the checkpoint)

methods (integrator.method):
)" + choice_lines(integration_methods, integration_method_name, integration_method_summary) +
         "backends (run.backend):\n" + choice_lines(backend_kinds, backend_kind_name, backend_kind_summary) +
         "kernel variants (run.kernel; --list-kernels: those built into this binary):\n" +
         choice_lines(kernel_variants, kernel_variant_name, kernel_variant_summary);
}

namespace {

// The long options starting with `letter`, for the message about "-t": "--threads", or --help.
std::string long_options_like(char letter) {
  static const char* const options[] = {"--set", "--backend", "--kernel", "--threads", "--summary", "--restart",
                                        "--restart-allow-changed", "--force", "--output", "--quiet", "--progress",
                                        "--list-kernels", "--help", "--version"};
  std::string like;
  for (const char* option : options)
    if (option[2] == letter) like += (like.empty() ? "" : ", ") + std::string(option);
  return like.empty() ? "see --help" : "did you mean " + like + "?";
}

}  // namespace

CliOptions parse_command_line(const std::vector<std::string>& arguments) {
  CliOptions options;
  std::vector<std::string> positional;
  // The options given that only a run reads ("network info --threads 4" was accepted, ignored).
  std::vector<std::string> run_only;
  for (std::size_t k = 0; k < arguments.size(); ++k) {
    const std::string& argument = arguments[k];
    auto is = [&](const std::string& flag) { return argument == flag || argument.rfind(flag + "=", 0) == 0; };
    // A flag's value: never empty, and never the next option ("--summary --quiet" would
    // otherwise write a file named --quiet).
    auto value = [&](const std::string& flag) -> std::string {
      std::string text;
      if (argument.size() > flag.size()) {
        text = argument.substr(flag.size() + 1);  // --flag=value
      } else {
        if (k + 1 >= arguments.size()) throw UsageError(flag + " needs a value");
        text = arguments[++k];
        if (text.rfind("--", 0) == 0) throw UsageError(flag + " needs a value, got the option '" + text + "'");
      }
      if (text.empty()) throw UsageError(flag + " needs a value, got ''");
      return text;
    };
    if (argument == "--help" || argument == "-h") {
      options.command = "help";
      return options;
    } else if (argument == "--version") {
      options.command = "version";
      return options;
    } else if (argument == "--list-kernels") {
      options.command = "list-kernels";
      return options;
    } else if (is("--set")) {
      options.overrides.push_back(value("--set"));
    } else if (is("--backend")) {
      options.overrides.push_back("run.backend=" + yaml_string_literal(value("--backend")));
      run_only.push_back("--backend");
    } else if (is("--kernel")) {
      options.overrides.push_back("run.kernel=" + yaml_string_literal(value("--kernel")));
      run_only.push_back("--kernel");
    } else if (is("--threads")) {
      options.overrides.push_back("run.threads=" + yaml_string_literal(value("--threads")));
      run_only.push_back("--threads");
    } else if (is("--summary")) {
      options.overrides.push_back("run.summary=" + yaml_string_literal(value("--summary")));
      run_only.push_back("--summary");
    } else if (is("--output")) {
      options.output = value("--output");
    } else if (is("--restart")) {
      options.restart = value("--restart");
      run_only.push_back("--restart");
    } else if (argument == "--force") {
      options.force = true;
    } else if (argument == "--restart-allow-changed") {
      options.restart_allow_changed = true;
      run_only.push_back("--restart-allow-changed");
    } else if (is("--progress")) {
      // The whole field, as every number of the deck (stod took " 5" and "5 s" was refused only
      // for its tail).
      const std::string text = value("--progress");
      const std::optional<double> seconds = parse_whole_number(text);
      if (!seconds || !(*seconds >= 0.0))
        throw UsageError("--progress needs a number of seconds >= 0, got '" + excerpt(text) + "'");
      options.progress_seconds = *seconds;
      run_only.push_back("--progress");
    } else if (argument == "--quiet") {
      options.quiet = true;
    } else if (argument.rfind("--", 0) == 0) {
      throw UsageError("unknown option '" + excerpt(argument) + "'");
    } else if (argument.size() > 1 && argument[0] == '-') {
      // "-t 2" read as two decks said "more than one deck given".
      throw UsageError("unknown option '" + excerpt(argument) + "': options are long ones (" +
                       long_options_like(argument[1]) + ")");
    } else {
      positional.push_back(argument);
    }
  }
  if (!positional.empty() && positional[0] == "network") {
    if (positional.size() != 3 || (positional[1] != "info" && positional[1] != "export"))
      throw UsageError("expected 'zoneode network info DECK' or 'zoneode network export DECK --output FILE'");
    options.command = "network-" + positional[1];
    options.deck = positional[2];
    if (options.command == "network-export" && options.output.empty())
      throw UsageError("network export needs --output FILE");
    const std::string command = "network " + positional[1];
    if (!run_only.empty())
      throw UsageError(command + ": " + run_only.front() +
                       " belongs to a run (network commands take --set, --quiet and, for export, --output and --force)");
    if (options.command == "network-info" && !options.output.empty())
      throw UsageError(command + ": --output belongs to 'network export' (network info prints)");
    if (options.command == "network-info" && options.force)
      throw UsageError(command + ": --force belongs to a run or 'network export' (network info writes nothing)");
  } else {
    if (positional.empty()) throw UsageError("no deck given");
    if (positional.size() > 1)
      throw UsageError("more than one deck given: '" + excerpt(positional[0]) + "' and '" + excerpt(positional[1]) +
                       "' (one deck a run; options start with --)");
    options.deck = positional[0];
    if (!options.output.empty()) throw UsageError("--output belongs to 'network export'");
    if (options.restart_allow_changed && options.restart.empty())
      throw UsageError("--restart-allow-changed needs --restart FILE");
  }
  return options;
}

namespace {

int network_command(const CliOptions& options) {
  const Deck deck = load_deck(options.deck, options.overrides);
  const Network network = load_network(deck.network);
  const CompactNetwork compact(network, deck.physics);
  if (options.command == "network-info") {
    print_network(network, compact, !options.quiet, std::cout);
    if (!options.quiet) print_implicit_work(compact, std::cout);
    if (deck.network.source == NetworkSource::reaclib || deck.network.source == NetworkSource::file) {
      // The source's own Q values beside the masses' (network/q_values.hpp).
      NetworkSpec header_spec = deck.network;
      header_spec.q_values = QValueSource::header;
      Network header_network = load_network(header_spec);
      print_q_values(header_network, deck.network.q_values, options.quiet ? 5 : 20, std::cout);
    }
    return exit_success;
  }
  // The output path rule of a run (cli/preflight.hpp): never an input, existing only with --force.
  check_network_export_path(options, deck);
  try {
    write_network_file(network, options.output);
  } catch (const std::exception& error) {
    std::cerr << "zoneode: " << error.what() << "\n";
    return exit_runtime_error;
  }
  print_network(network, compact, false, std::cout);
  std::cout << "written to " << options.output << "\n";
  return exit_success;
}

}  // namespace

int run_command(const CliOptions& options, const MpiContext& mpi) {
  if (options.command == "help" || options.command == "version" || options.command == "list-kernels") {
    if (mpi.root()) {
      if (options.command == "help") std::cout << usage_text();
      else if (options.command == "version")
        std::cout << "zoneode " << ZONEODE_VERSION << " (commit " << ZONEODE_GIT_COMMIT << ", " << ZONEODE_COMPILER << ")\n";
      else if (const std::vector<KernelVariant> variants = built_kernel_variants(); variants.empty())
        // Said on stderr: stdout stays the list (empty) for scripts that read it.
        std::cerr << "zoneode: no GPU kernel variants: this binary was built without a GPU backend (ZONEODE_GPU "
                     "OFF); it runs run.backend: cpu only\n";
      else
        for (KernelVariant variant : variants) std::cout << kernel_variant_name(variant) << "\n";
    }
    return exit_success;
  }
  if (options.command == "run") {
    try {
      return run_deck(options, mpi);
    } catch (const ReportedError& error) {
      return error.code;  // every rank agreed on it
    } catch (const InputError& error) {
      // Bad input found outside the agreed checks: exit 2 still, but end the other ranks too.
      std::cerr << "zoneode: rank " << mpi.rank() << ": " << error.what() << "\n";
      if (mpi.size() > 1) MPI_Abort(mpi.comm(), exit_input_error);
      return exit_input_error;
    } catch (const std::exception& error) {
      // Not agreed on: other ranks may be waiting in a collective call, so end them all.
      std::cerr << "zoneode: rank " << mpi.rank() << ": internal error: " << error.what() << "\n";
      if (mpi.size() > 1) MPI_Abort(mpi.comm(), exit_runtime_error);
      return exit_runtime_error;
    }
  }
  if (!mpi.root()) return exit_success;  // network commands are serial: rank 0 does them
  try {
    return network_command(options);
  } catch (const std::exception& error) {
    // Deck, network and file readers name their file and line.
    std::cerr << "zoneode: " << error.what() << "\n";
    return exit_input_error;
  }
}

}  // namespace zoneode
