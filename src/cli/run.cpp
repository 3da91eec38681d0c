// The commands: run a deck, describe or export its network.
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli/cli.hpp"
#include "cli/summary.hpp"
#include "deck/deck.hpp"
#include "deck/yaml_schema.hpp"
#include "integrators/cpu_backend.hpp"
#include "network/compact.hpp"
#include "network/load.hpp"
#include "network/network_file.hpp"
#include "zones/zones.hpp"
#include "zoneode_version.hpp"

namespace zoneode {

std::string usage_text() {
  return R"(zoneode: a stiff reaction network integrated in every zone

usage:
  zoneode DECK [--set section.key=value]... [--threads N] [--summary FILE] [--quiet]
  zoneode network info DECK [--set section.key=value]...
  zoneode network export DECK --output FILE [--force] [--set section.key=value]...
  zoneode --help | --version

  DECK                a YAML input deck (inputs/README.md documents every key)
  --set KEY=VALUE     override a deck value (wins over the file; the resolved deck is printed)
  --threads N         OpenMP threads per process (same as --set run.threads=N)
  --summary FILE      write the JSON summary to FILE (same as --set run.summary=FILE)
  --output FILE       network export: the zoneode network file to write
  --force             network export: overwrite an existing FILE
  --quiet             do not print the resolved deck or the per-species table

exit status: 0 success, 1 runtime error, 2 bad input, 3 finished with failed zones
)";
}

CliOptions parse_command_line(const std::vector<std::string>& arguments) {
  CliOptions options;
  std::vector<std::string> positional;
  for (std::size_t k = 0; k < arguments.size(); ++k) {
    const std::string& argument = arguments[k];
    auto value = [&](const std::string& flag) -> std::string {
      const auto equals = argument.find('=');
      if (argument.rfind(flag + "=", 0) == 0) return argument.substr(equals + 1);
      if (k + 1 >= arguments.size()) throw UsageError(flag + " needs a value");
      return arguments[++k];
    };
    auto is = [&](const std::string& flag) { return argument == flag || argument.rfind(flag + "=", 0) == 0; };
    if (argument == "--help" || argument == "-h") {
      options.command = "help";
      return options;
    } else if (argument == "--version") {
      options.command = "version";
      return options;
    } else if (is("--set")) {
      options.overrides.push_back(value("--set"));
    } else if (is("--threads")) {
      options.overrides.push_back("run.threads=" + value("--threads"));
    } else if (is("--summary")) {
      options.overrides.push_back("run.summary=" + value("--summary"));
    } else if (is("--output")) {
      options.output = value("--output");
    } else if (argument == "--force") {
      options.force = true;
    } else if (argument == "--quiet") {
      options.quiet = true;
    } else if (argument.rfind("--", 0) == 0) {
      throw UsageError("unknown option '" + argument + "'");
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
  } else {
    if (positional.size() != 1) throw UsageError(positional.empty() ? "no deck given" : "more than one deck given");
    options.deck = positional[0];
  }
  if (options.command != "network-export" && (!options.output.empty() || options.force))
    throw UsageError("--output and --force belong to 'network export'");
  return options;
}

namespace {

using clock_type = std::chrono::steady_clock;
double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

std::string hex64(std::uint64_t value) {
  char buffer[20];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(value));
  return buffer;
}

void print_network(const Network& network, const CompactNetwork& compact, bool per_species, std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line,
                "network %s (hash %s): %d species, %d reactions, %lld rate sets, %lld F+ terms, %lld F- terms "
                "(%lld flux terms), %.1f KiB compact\n",
                network.name.c_str(), hex64(network_hash(network)).c_str(), network.species_count(),
                network.reaction_count(), static_cast<long long>(compact.set_count()),
                static_cast<long long>(compact.creation_terms()), static_cast<long long>(compact.destruction_terms()),
                static_cast<long long>(compact.flux_terms()), compact.bytes() / 1024.0);
  out << line;
  if (!per_species) return;
  out << "  species    Z    A   F+ terms  F- terms\n";
  for (int i = 0; i < network.species_count(); ++i) {
    std::snprintf(line, sizeof line, "  %-8s %3d  %3d  %8d  %8d\n", network.species[i].name.c_str(),
                  network.species[i].Z, network.species[i].A,
                  compact.creation_offsets[i + 1] - compact.creation_offsets[i],
                  compact.destruction_offsets[i + 1] - compact.destruction_offsets[i]);
    out << line;
  }
}

std::uint64_t hash_results(const ZoneBatch& batch) {
  std::uint64_t hash = 1469598103934665603ull;
  auto bytes = [&](const void* data, std::size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t k = 0; k < size; ++k) {
      hash ^= p[k];
      hash *= 1099511628211ull;
    }
  };
  bytes(batch.abundances.data(), batch.abundances.size() * sizeof(double));
  for (const auto& result : batch.results) {
    bytes(&result.status, sizeof result.status);
    bytes(&result.steps, sizeof result.steps);
    bytes(&result.energy_generation_rate, sizeof result.energy_generation_rate);
  }
  return hash;
}

int run_deck(const CliOptions& options) {
  const auto start = clock_type::now();
  std::cout << "zoneode " << ZONEODE_VERSION << " (commit " << ZONEODE_GIT_COMMIT << ", " << ZONEODE_COMPILER
            << ", " << ZONEODE_BUILD_TYPE << ")\n";
  const Deck deck = load_deck(options.deck, options.overrides);
  std::cout << "deck " << deck.file << "\n";
  for (const auto& item : options.overrides) std::cout << "  command line overrides the deck: " << item << "\n";
  if (!options.quiet) std::cout << "---- resolved deck ----\n" << deck.resolved_yaml << "-----------------------\n";

  const Network network = load_network(deck.network);
  const CompactNetwork compact(network);
  print_network(network, compact, false, std::cout);

  if (deck.run.threads > 0) omp_set_num_threads(deck.run.threads);
  const int threads = omp_get_max_threads();

  const ZoneBuilder builder(deck.zones, network);
  ZoneBatch batch;
  batch.resize(deck.zones.count, network.species_count());
  batch.first_global_index = 0;
  for (std::int64_t zone = 0; zone < batch.count; ++zone) {
    const std::int64_t global = batch.first_global_index + zone;
    batch.temperature[zone] = builder.temperature(global);
    batch.density[zone] = builder.density(global);
    std::copy(builder.abundances().begin(), builder.abundances().end(), batch.zone_abundances(zone));
  }
  std::cout << "zones " << batch.count << " on " << threads << " thread(s)\n" << std::flush;

  RunSummary summary;
  summary.setup_seconds = seconds_since(start);
  const auto integrate_start = clock_type::now();
  integrate_zones_cpu(compact, deck.integrator, batch);
  summary.integrate_seconds = seconds_since(integrate_start);

  summary.deck = deck.file;
  summary.network = network.name;
  summary.network_hash = hex64(network_hash(network));
  summary.species = network.species_count();
  summary.reactions = network.reaction_count();
  summary.rate_sets = compact.set_count();
  summary.creation_terms = compact.creation_terms();
  summary.destruction_terms = compact.destruction_terms();
  summary.zones = batch.count;
  summary.threads = threads;
  summary.min_energy_rate = INFINITY;
  summary.max_energy_rate = -INFINITY;
  for (const auto& result : batch.results) {
    summary.steps += result.steps;
    summary.rejected_steps += result.rejected_steps;
    const int status = result.status >= 0 && result.status < zone_status_count ? result.status : 0;
    ++summary.zones_by_status[status];
    summary.max_mass_drift = std::fmax(summary.max_mass_drift, result.max_mass_drift);
    summary.min_energy_rate = std::fmin(summary.min_energy_rate, result.energy_generation_rate);
    summary.max_energy_rate = std::fmax(summary.max_energy_rate, result.energy_generation_rate);
  }
  summary.result_hash = hex64(hash_results(batch));
  print_summary(summary, std::cout);
  if (!deck.run.summary.empty()) {
    try {
      write_text_file_atomically(deck.run.summary, summary_json(summary));
    } catch (const std::exception& error) {
      std::cerr << "zoneode: " << error.what() << "\n";
      return exit_runtime_error;
    }
    std::cout << "summary written to " << deck.run.summary << "\n";
  }
  if (summary.failed_zones() > 0) {
    std::cerr << "zoneode: " << summary.failed_zones() << " of " << summary.zones
              << " zones failed (their state is the last one that passed the checks)\n";
    return exit_zones_failed;
  }
  return exit_success;
}

int network_command(const CliOptions& options) {
  const Deck deck = load_deck(options.deck, options.overrides);
  const Network network = load_network(deck.network);
  const CompactNetwork compact(network);
  if (options.command == "network-info") {
    print_network(network, compact, !options.quiet, std::cout);
    return exit_success;
  }
  if (std::filesystem::exists(options.output) && !options.force) {
    std::cerr << "zoneode: '" << options.output << "' exists; use --force to overwrite it\n";
    return exit_input_error;
  }
  write_network_file(network, options.output);
  print_network(network, compact, false, std::cout);
  std::cout << "written to " << options.output << "\n";
  return exit_success;
}

}  // namespace

int run_command(const CliOptions& options) {
  if (options.command == "help") {
    std::cout << usage_text();
    return exit_success;
  }
  if (options.command == "version") {
    std::cout << "zoneode " << ZONEODE_VERSION << " (commit " << ZONEODE_GIT_COMMIT << ", " << ZONEODE_COMPILER << ")\n";
    return exit_success;
  }
  try {
    if (options.command == "run") return run_deck(options);
    return network_command(options);
  } catch (const DeckError& error) {
    std::cerr << "zoneode: " << error.what() << "\n";
    return exit_input_error;
  } catch (const std::invalid_argument& error) {
    std::cerr << "zoneode: " << error.what() << "\n";
    return exit_input_error;
  } catch (const std::runtime_error& error) {
    // Network and file readers report their own file and line.
    std::cerr << "zoneode: " << error.what() << "\n";
    return exit_input_error;
  } catch (const std::exception& error) {
    std::cerr << "zoneode: internal error: " << error.what() << "\n";
    return exit_runtime_error;
  }
}

}  // namespace zoneode
