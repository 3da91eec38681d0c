// A run: read the deck, build this rank's zones, integrate them over the outer steps, write the
// state files and report.
#include <mpi.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli/cli.hpp"
#include "cli/report.hpp"
#include "common/atomic_file.hpp"
#include "common/errors.hpp"
#include "common/fnv1a.hpp"
#include "decomposition/decomposition.hpp"
#include "deck/deck.hpp"
#include "deck/yaml_schema.hpp"
#include "integrators/cpu_backend.hpp"
#include "io/hdf5_state.hpp"
#include "network/compact.hpp"
#include "network/load.hpp"
#include "zones/zones.hpp"
#include "zoneode_version.hpp"

namespace zoneode {

namespace {

// Runs `work` on every rank. If it throws on any rank, the lowest such rank prints its message and
// every rank throws ReportedError(code): ranks never diverge on an error.
template <typename Work>
void collectively(const MpiContext& mpi, int code, Work&& work) {
  bool failed = false;
  std::string message;
  try {
    work();
  } catch (const ReportedError&) {
    throw;
  } catch (const std::exception& error) {
    failed = true;
    message = error.what();
  }
  const int reporter = mpi.first_rank_with(failed);
  if (reporter < 0) return;
  if (reporter == mpi.rank()) {
    std::cerr << "zoneode: " << (mpi.size() > 1 && reporter > 0 ? "rank " + std::to_string(reporter) + ": " : "")
              << message << "\n";
  }
  throw ReportedError(code);
}

// Final state hash, independent of the decomposition: each zone's bits hashed, mixed with its
// global index, and summed (mod 2^64) over zones and ranks.
std::uint64_t zone_hash(const double* Y, int species, const ZoneResult& result, std::int64_t global) {
  Fnv1a hash;
  hash.bytes(Y, species * sizeof(double));
  hash.add(result.status);
  hash.add(result.steps);
  hash.add(result.energy_generation_rate);
  hash.add(global);
  return hash.value;
}

// Checks the zones read from a file: T9, rho finite and > 0, abundances finite and >= 0.
void check_zone_values(const std::string& file, const ZoneBatch& batch) {
  for (std::int64_t zone = 0; zone < batch.count; ++zone) {
    const std::int64_t global = batch.first_global_index + zone;
    auto fail = [&](const std::string& what) {
      throw InputError(file + ": zone " + std::to_string(global) + ": " + what);
    };
    if (!(batch.temperature[zone] > 0.0) || !std::isfinite(batch.temperature[zone]))
      fail("/temperature: expected a finite T9 > 0, got " + std::to_string(batch.temperature[zone]));
    if (!(batch.density[zone] > 0.0) || !std::isfinite(batch.density[zone]))
      fail("/density: expected a finite rho > 0, got " + std::to_string(batch.density[zone]));
    for (int i = 0; i < batch.species_count; ++i) {
      const double y = batch.abundances[zone * batch.species_count + i];
      if (!(y >= 0.0) || !std::isfinite(y))
        fail("/abundances: species " + std::to_string(i) + ": expected a finite abundance >= 0, got " + std::to_string(y));
    }
  }
}

// A state file's zones must be this deck's: same species in the same order (and zone count).
void check_state_file_matches(const std::string& where, const std::string& file, const StateFileInfo& info,
                              const Network& network, std::int64_t zones) {
  if (info.species.size() != network.species.size()) {
    throw DeckError(where + ": '" + file + "' holds " + std::to_string(info.species.size()) +
                    " species, expected the network's " + std::to_string(network.species.size()));
  }
  for (std::size_t i = 0; i < info.species.size(); ++i) {
    if (info.species[i] != network.species[i].name) {
      throw DeckError(where + ": '" + file + "' species " + std::to_string(i) + " is '" + info.species[i] +
                      "', expected '" + network.species[i].name + "' (the network's species, in its order)");
    }
  }
  if (zones > 0 && info.zones != zones) {
    throw DeckError(where + ": '" + file + "' holds " + std::to_string(info.zones) + " zones, expected " +
                    std::to_string(zones));
  }
}

}  // namespace

int run_deck(const CliOptions& options, const MpiContext& mpi) {
  const double start = MPI_Wtime();
  std::ostringstream discard;
  std::ostream& out = mpi.root() ? std::cout : discard;  // rank 0 speaks for all
  out << "zoneode " << ZONEODE_VERSION << " (commit " << ZONEODE_GIT_COMMIT << ", " << ZONEODE_COMPILER << ", "
      << ZONEODE_BUILD_TYPE << ", " << hdf5_write_mode() << " HDF5)\n";

  // Every rank reads the same deck and network: an input error happens on all of them alike.
  Deck deck;
  Network network;
  collectively(mpi, exit_input_error, [&] {
    deck = load_deck(options.deck, options.overrides);
    network = load_network(deck.network);
  });
  out << "deck " << deck.file << "\n";
  for (const auto& item : options.overrides) out << "  command line overrides the deck: " << item << "\n";
  if (!options.quiet) out << "---- resolved deck ----\n" << deck.resolved_yaml << "-----------------------\n";
  std::optional<CompactNetwork> compacted;
  collectively(mpi, exit_input_error, [&] { compacted.emplace(network); });
  const CompactNetwork& compact = *compacted;
  print_network(network, compact, false, out);
  const std::string hash = hex64(network_hash(network));
  const int species = network.species_count();

  // Where the initial state comes from, and which outer steps this run takes.
  StateFileInfo restart;
  std::int64_t zones = deck.zones.count;
  std::int64_t first_step = 1;
  const std::int64_t last_step = deck.steps.count;
  collectively(mpi, exit_input_error, [&] {
    if (!options.restart.empty()) {
      restart = read_state_info(options.restart);
      check_state_file_matches("--restart", options.restart, restart, network, deck.zones.from_file.empty() ? zones : 0);
      if (restart.network_hash != hash)
        throw DeckError("--restart: '" + options.restart + "' was written with network " + restart.network_hash +
                        ", expected this deck's " + hash);
      if (restart.outer_step < 0 || restart.outer_step >= last_step)
        throw DeckError("--restart: '" + options.restart + "' is step " + std::to_string(restart.outer_step) +
                        ", expected a step in [0, steps.count = " + std::to_string(last_step) + ")");
      first_step = restart.outer_step + 1;
      zones = restart.zones;
    } else if (!deck.zones.from_file.empty()) {
      const StateFileInfo input = read_state_info(deck.zones.from_file);
      check_state_file_matches(deck.zones.from_file_where + ": zones.from_file", deck.zones.from_file, input, network,
                               deck.zones.count);
      zones = input.zones;
    }
  });
  ZoneBlock block;
  collectively(mpi, exit_input_error, [&] { block = zone_block(zones, mpi.size(), mpi.rank()); });

  // Never overwrite an output without --force, and find that out before any work.
  collectively(mpi, exit_input_error, [&] {
    if (!mpi.root() || options.force) return;
    for (std::int64_t step = options.restart.empty() ? 0 : first_step; step <= last_step; ++step) {
      if (deck.output.writes(step, last_step) && std::filesystem::exists(deck.output.file(step)))
        throw InputError("'" + deck.output.file(step) + "' exists; use --force to overwrite it");
    }
  });

  if (deck.run.threads > 0) omp_set_num_threads(deck.run.threads);
  const int threads = omp_get_max_threads();

  ZoneBatch batch;
  collectively(mpi, exit_runtime_error, [&] { batch.resize(block.count, species); });
  batch.first_global_index = block.first;
  collectively(mpi, exit_input_error, [&] {
    const std::string& file = !options.restart.empty() ? options.restart : deck.zones.from_file;
    if (!file.empty()) {
      read_state_block(file, zones, block, species, batch.temperature.data(), batch.density.data(), batch.abundances.data());
      check_zone_values(file, batch);
      return;
    }
    const ZoneBuilder builder(deck.zones, network);
    for (std::int64_t zone = 0; zone < batch.count; ++zone) {
      batch.temperature[zone] = builder.temperature(block.first + zone);
      batch.density[zone] = builder.density(block.first + zone);
      std::copy(builder.abundances().begin(), builder.abundances().end(), batch.zone_abundances(zone));
    }
  });
  out << "zones " << zones << " on " << mpi.size() << " rank(s) x " << threads << " thread(s), outer steps "
      << first_step << ".." << last_step << "\n"
      << std::flush;

  RunSummary summary;
  summary.setup_seconds = mpi.max(MPI_Wtime() - start);
  summary.ranks = mpi.size();
  summary.threads = threads;
  summary.hdf5_mode = hdf5_write_mode();
  summary.first_outer_step = first_step;
  summary.outer_steps = last_step - first_step + 1;

  std::vector<double> energy;
  std::vector<std::int64_t> steps;
  std::vector<std::int32_t> status;
  collectively(mpi, exit_runtime_error, [&] {
    energy.assign(batch.count, 0.0);
    steps.assign(batch.count, 0);
    status.assign(batch.count, 0);
  });
  const double burn_time = deck.integrator.end_time - deck.integrator.start_time;
  auto write_step = [&](std::int64_t step) {
    for (std::int64_t zone = 0; zone < batch.count; ++zone) {
      energy[zone] = batch.results[zone].energy_generation_rate;
      steps[zone] = batch.results[zone].steps;
      status[zone] = batch.results[zone].status;
    }
    LocalState state{zones, block, batch.abundances.data(), batch.temperature.data(), batch.density.data(),
                     energy.data(), steps.data(), status.data()};
    StateAttributes attributes;
    // Computed, not accumulated, so that a restarted run writes the same value.
    attributes.time = static_cast<double>(step) * burn_time;
    attributes.outer_step = step;
    attributes.network_hash = hash;
    attributes.deck = deck.resolved_yaml;
    attributes.ranks = mpi.size();
    attributes.threads = threads;
    attributes.integrate_seconds = summary.integrate_seconds;
    mpi.barrier();
    const double write_start = MPI_Wtime();
    collectively(mpi, exit_runtime_error, [&] { write_state_file(mpi, deck.output.file(step), network, state, attributes); });
    summary.output_seconds += mpi.max(MPI_Wtime() - write_start);
    summary.output_bytes += static_cast<double>(zones) * (species * 8.0 + 3 * 8.0 + 8.0 + 4.0);
    ++summary.files_written;
    out << "  wrote " << deck.output.file(step) << "\n" << std::flush;
  };
  if (options.restart.empty() && deck.output.writes(0, last_step)) write_step(0);
  double max_drift = 0.0;  // over zones and outer steps (each step's drift is from its own start)

  for (std::int64_t step = first_step; step <= last_step; ++step) {
    mpi.barrier();
    const double integrate_start = MPI_Wtime();
    integrate_zones_cpu(compact, deck.integrator, batch);
    // The figure of merit: integration only, the slowest rank's time.
    summary.integrate_seconds += mpi.max(MPI_Wtime() - integrate_start);
    // The prescribed history: T9 and rho at the end of this step, the conditions of the next.
    for (std::int64_t zone = 0; zone < batch.count; ++zone) {
      batch.temperature[zone] *= deck.steps.temperature_factor;
      batch.density[zone] *= deck.steps.density_factor;
    }
    std::int64_t local_steps = 0, local_rejected = 0, local_failed = 0;
    for (const auto& result : batch.results) {
      max_drift = std::fmax(max_drift, result.max_mass_drift);
      local_steps += result.steps;
      local_rejected += result.rejected_steps;
      local_failed += result.status != zone_ok ? 1 : 0;
    }
    summary.steps += mpi.sum(local_steps);
    summary.rejected_steps += mpi.sum(local_rejected);
    summary.failed_zone_steps += mpi.sum(local_failed);
    if (deck.output.writes(step, last_step)) write_step(step);
  }

  // Statistics of the last outer step, reduced over ranks.
  summary.deck = deck.file;
  summary.network = network.name;
  summary.network_hash = hash;
  summary.species = species;
  summary.reactions = network.reaction_count();
  summary.rate_sets = compact.set_count();
  summary.creation_terms = compact.creation_terms();
  summary.destruction_terms = compact.destruction_terms();
  summary.zones = zones;
  std::array<std::int64_t, zone_status_count> by_status{};
  double low = INFINITY, high = -INFINITY;
  std::uint64_t result_hash = 0;
  for (std::int64_t zone = 0; zone < batch.count; ++zone) {
    const ZoneResult& result = batch.results[zone];
    ++by_status[result.status >= 0 && result.status < zone_status_count ? result.status : 0];
    low = std::fmin(low, result.energy_generation_rate);
    high = std::fmax(high, result.energy_generation_rate);
    result_hash += zone_hash(batch.zone_abundances(zone), species, result, block.first + zone);
  }
  for (int s = 0; s < zone_status_count; ++s) summary.zones_by_status[s] = mpi.sum(by_status[s]);
  summary.max_mass_drift = mpi.max(max_drift);
  summary.min_energy_rate = mpi.min(low);
  summary.max_energy_rate = mpi.max(high);
  std::uint64_t total_hash = 0;
  MPI_Allreduce(&result_hash, &total_hash, 1, MPI_UINT64_T, MPI_SUM, mpi.comm());
  summary.result_hash = hex64(total_hash);

  print_summary(summary, out);
  if (!deck.run.summary.empty()) {
    collectively(mpi, exit_runtime_error, [&] {
      if (mpi.root()) write_file_atomically(deck.run.summary, summary_json(summary));
    });
    out << "summary written to " << deck.run.summary << "\n";
  }
  if (summary.failed_zone_steps > 0) {
    if (mpi.root())
      std::cerr << "zoneode: " << summary.failed_zone_steps << " zone-step(s) failed, " << summary.failed_zones()
                << " zone(s) in the last outer step (a failed zone keeps its last state that passed the checks)\n";
    return exit_zones_failed;
  }
  return exit_success;
}

}  // namespace zoneode
