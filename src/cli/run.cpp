// A run: read the deck, build this rank's zones, integrate them over the outer steps through one
// backend, write the state files and report. Nothing here depends on which backend or method runs:
// backends/backend.hpp is the only interface used.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <utility>

#include "backends/backend.hpp"
#include "cli/cli.hpp"
#include "cli/preflight.hpp"
#include "cli/report.hpp"
#include "cli/self_check.hpp"
#include "cli/signals.hpp"
#include "common/atomic_file.hpp"
#include "common/errors.hpp"
#include "common/fnv1a.hpp"
#include "decomposition/decomposition.hpp"
#include "decomposition/rebalance.hpp"
#include "deck/deck.hpp"
#include "deck/yaml_schema.hpp"
#include "io/hdf5_state.hpp"
#include "io/state_layout.hpp"
#include "io/zone_input.hpp"
#include "network/compact.hpp"
#include "network/load.hpp"
#include "zones/zone_batch.hpp"
#include "zones/zone_memory.hpp"
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
  hash.add(static_cast<std::int32_t>(result.status));
  hash.add(result.steps);
  hash.add(result.energy_generation_rate);
  hash.add(global);
  return hash.value;
}

// Which zones this run integrates, from where, and over which outer steps.
struct RunPlan {
  std::int64_t zones = 0;
  std::int64_t first_step = 1;
  std::int64_t last_step = 1;
  std::string zone_file;  // the restart or from_file state file; "" when the deck builds the zones
  std::string zones_from;  // where the zone count comes from, for errors: the deck key or file and dataset
  ZoneBlock block;        // this rank's
};

// Zones this rank cannot hold are bad input, refused before any work or file (issue 11).
void check_zones_fit(const RunPlan& plan, int species, const MpiContext& mpi) {
  const std::uint64_t per_zone = host_bytes_per_zone(species);
  const MemoryLimit limit = host_memory_limit(mpi.local_size());
  std::uint64_t bytes = 0;
  const bool overflow = __builtin_mul_overflow(static_cast<std::uint64_t>(plan.block.count), per_zone, &bytes);
  if (!overflow && bytes <= limit.bytes) return;
  const std::string held = mpi.size() > 1 ? ", " + std::to_string(plan.block.count) + " on this rank," : "";
  throw InputError(plan.zones_from + ": " + std::to_string(plan.zones) + " zones" + held + " need " +
                   (overflow ? std::string("over 2^64") : std::to_string(bytes)) + " bytes of memory (" +
                   std::to_string(per_zone) + " bytes per zone: T9, rho, " + std::to_string(species) +
                   " abundances, its result and output columns), more than " + limit.what + "; at most " +
                   std::to_string(limit.bytes / per_zone) + " zones fit per rank");
}

RunPlan plan_run(const CliOptions& options, const Deck& deck, const Network& network, const std::string& hash,
                 const MpiContext& mpi) {
  RunPlan plan;
  plan.zones = deck.zones.count;
  plan.zones_from = deck.zones.count_where + ": zones.count";
  plan.last_step = deck.steps.count;
  if (!options.restart.empty()) {
    const StateFileInfo restart = read_state_info(options.restart);
    check_state_file_matches("--restart", options.restart, restart, network,
                             deck.zones.from_file.empty() ? plan.zones : 0);
    if (restart.network_hash != hash)
      throw InputError("--restart: '" + options.restart + "' was written with network " + restart.network_hash +
                      ", expected this deck's " + hash);
    if (restart.outer_step < 0 || restart.outer_step >= plan.last_step)
      throw InputError("--restart: '" + options.restart + "' is step " + std::to_string(restart.outer_step) +
                      ", expected a step in [0, steps.count = " + std::to_string(plan.last_step) + ")");
    plan.first_step = restart.outer_step + 1;
    plan.zones = restart.zones;
    plan.zone_file = options.restart;
    plan.zones_from = "--restart: '" + options.restart + "': /" + std::string(state_layout::abundances.name);
  } else if (!deck.zones.from_file.empty()) {
    const StateFileInfo input = read_state_info(deck.zones.from_file);
    check_state_file_matches(deck.zones.from_file_where + ": zones.from_file", deck.zones.from_file, input, network,
                             deck.zones.count);
    plan.zones = input.zones;
    plan.zone_file = deck.zones.from_file;
    plan.zones_from = deck.zones.from_file_where + ": zones.from_file: '" + deck.zones.from_file + "': /" +
                      std::string(state_layout::abundances.name);
  }
  plan.block = zone_block(plan.zones, mpi.size(), mpi.rank());
  check_zones_fit(plan, network.species_count(), mpi);
  return plan;
}

void build_zones(const Deck& deck, const Network& network, const RunPlan& plan, ZoneBatch& batch) {
  if (!plan.zone_file.empty()) {
    read_zone_block(plan.zone_file, plan.zones, plan.block, network, deck.zones.mass_sum_tolerance, batch);
    return;
  }
  const ZoneBuilder builder(deck.zones, network);
  for (std::int64_t zone = 0; zone < batch.count; ++zone) {
    batch.temperature[zone] = builder.temperature(batch.first_global_index + zone);
    batch.density[zone] = builder.density(batch.first_global_index + zone);
    std::copy(builder.abundances().begin(), builder.abundances().end(), batch.zone_abundances(zone));
  }
}

// Integrates every zone of this rank through the backend, at most max_batch_zones() at a time;
// adds this rank's integration and transfer times.
void integrate_all(Backend& backend, ZoneBatch& batch, double& integrate_seconds, double& transfer_seconds) {
  const std::int64_t most = backend.max_batch_zones();
  for (std::int64_t first = 0; first < batch.count; first += most) {
    const ZoneSpan span = batch.span(first, std::min(most, batch.count - first));
    const double upload_start = MPI_Wtime();
    backend.upload(span);
    const double integrate_start = MPI_Wtime();
    backend.integrate();
    const double download_start = MPI_Wtime();
    backend.download(span);
    integrate_seconds += download_start - integrate_start;
    transfer_seconds += (integrate_start - upload_start) + (MPI_Wtime() - download_start);
  }
}

// The per-zone statistics of one outer step, added to the run's totals.
void add_step_statistics(const ZoneBatch& batch, const MpiContext& mpi, RunSummary& summary, double& max_drift) {
  std::int64_t local_steps = 0, local_rejected = 0, local_failed = 0, local_rhs = 0, local_jacobians = 0, local_lu = 0;
  for (const ZoneResult& result : batch.results) {
    max_drift = std::fmax(max_drift, result.max_mass_drift);
    local_steps += result.steps;
    local_rejected += result.rejected_steps;
    local_failed += result.status != zone_ok ? 1 : 0;
    local_rhs += result.rhs_evaluations;
    local_jacobians += result.jacobian_evaluations;
    local_lu += result.factorizations;
  }
  summary.steps += mpi.sum(local_steps);
  summary.rejected_steps += mpi.sum(local_rejected);
  summary.failed_zone_steps += mpi.sum(local_failed);
  summary.rhs_evaluations += mpi.sum(local_rhs);
  summary.jacobian_evaluations += mpi.sum(local_jacobians);
  summary.factorizations += mpi.sum(local_lu);
}

// Statistics of the last outer step, reduced over ranks, and the result hash.
void add_final_statistics(const ZoneBatch& batch, const MpiContext& mpi, RunSummary& summary) {
  std::array<std::int64_t, zone_status_count> by_status{};
  double low = INFINITY, high = -INFINITY;
  std::uint64_t result_hash = 0;
  for (std::int64_t zone = 0; zone < batch.count; ++zone) {
    const ZoneResult& result = batch.results[zone];
    ++by_status[result.status];
    low = std::fmin(low, result.energy_generation_rate);
    high = std::fmax(high, result.energy_generation_rate);
    result_hash += zone_hash(batch.zone_abundances(zone), batch.species_count, result, batch.first_global_index + zone);
  }
  for (int s = 0; s < zone_status_count; ++s) summary.zones_by_status[s] = mpi.sum(by_status[s]);
  summary.min_energy_rate = mpi.min(low);
  summary.max_energy_rate = mpi.max(high);
  std::uint64_t total_hash = 0;
  MPI_Allreduce(&result_hash, &total_hash, 1, MPI_UINT64_T, MPI_SUM, mpi.comm());
  summary.result_hash = hex64(total_hash);
}

// The checkpoint of a stopped run: one per output prefix, overwritten by the next (never an output).
std::string checkpoint_file(const OutputDeck& output) { return output.prefix + "_checkpoint.h5"; }

// Re-cuts the blocks by the cost of the step just done (accepted plus rejected integrator steps
// per zone) and moves T9, rho and abundances to their new ranks. Zone results are not moved: the
// next step overwrites them. Returns the zones this rank received from others.
std::int64_t rebalance_by_cost(const MpiContext& mpi, std::vector<std::int64_t>& cuts, ZoneBatch& batch,
                               RunPlan& plan) {
  std::vector<std::int64_t> costs(batch.count);
  for (std::int64_t zone = 0; zone < batch.count; ++zone)
    costs[zone] = std::max<std::int64_t>(1, batch.results[zone].steps + batch.results[zone].rejected_steps);
  std::vector<std::int64_t> new_cuts = cost_balanced_cuts(mpi, costs, plan.block.first, plan.zones);
  if (new_cuts == cuts) return 0;
  const int species = batch.species_count;
  const std::int64_t per_zone = 2 + species;  // T9, rho, Y[species]
  std::vector<double> packed(static_cast<std::size_t>(batch.count * per_zone));
  for (std::int64_t zone = 0; zone < batch.count; ++zone) {
    double* out = packed.data() + zone * per_zone;
    out[0] = batch.temperature[zone];
    out[1] = batch.density[zone];
    std::copy(batch.zone_abundances(zone), batch.zone_abundances(zone) + species, out + 2);
  }
  packed = move_zones(mpi, cuts, new_cuts, packed, per_zone);
  const ZoneBlock old_block = plan.block;
  plan.block = block_of(new_cuts, mpi.rank());
  cuts = std::move(new_cuts);
  batch.resize(plan.block.count, species);
  batch.first_global_index = plan.block.first;
  for (std::int64_t zone = 0; zone < batch.count; ++zone) {
    const double* in = packed.data() + zone * per_zone;
    batch.temperature[zone] = in[0];
    batch.density[zone] = in[1];
    std::copy(in + 2, in + 2 + species, batch.zone_abundances(zone));
  }
  const std::int64_t kept = std::max<std::int64_t>(
      0, std::min(old_block.first + old_block.count, plan.block.first + plan.block.count) -
             std::max(old_block.first, plan.block.first));
  return plan.block.count - kept;
}

}  // namespace

int run_deck(const CliOptions& options, const MpiContext& mpi) {
  const double start = MPI_Wtime();
  trap_stop_signals();  // before any work: a signal during set-up stops the run after its first step
  std::ostringstream discard;
  std::ostream& out = mpi.root() ? std::cout : discard;  // rank 0 speaks for all
  out << "zoneode " << ZONEODE_VERSION << " (commit " << ZONEODE_GIT_COMMIT << ", " << ZONEODE_COMPILER << ", "
      << ZONEODE_BUILD_TYPE << ", " << hdf5_write_mode() << " HDF5)\n";

  // Every rank reads the same deck and network: an input error happens on all of them alike.
  Deck deck;
  Network network;
  std::optional<CompactNetwork> compacted;
  collectively(mpi, exit_input_error, [&] {
    deck = load_deck(options.deck, options.overrides);
    network = load_network(deck.network);
    compacted.emplace(network);
  });
  out << "deck " << deck.file << "\n";
  for (const auto& item : options.overrides) out << "  command line overrides the deck: " << item << "\n";
  if (!options.quiet) out << "---- resolved deck ----\n" << deck.resolved_yaml << "-----------------------\n";
  const CompactNetwork& compact = *compacted;
  print_network(network, compact, false, out);
  const std::string hash = hex64(network_hash(network));
  check_inputs_before_any_work(options, deck, hash, mpi);  // cli/preflight.hpp

  RunPlan plan;
  collectively(mpi, exit_input_error, [&] { plan = plan_run(options, deck, network, hash, mpi); });
  check_outputs_before_any_work(options, deck, plan.first_step, plan.last_step, mpi);  // cli/preflight.hpp

  std::unique_ptr<Backend> backend;
  collectively(mpi, exit_input_error, [&] {
    backend = make_backend({deck.integrator.method, deck.run.backend, deck.run.kernel},
                           {deck.run.threads, mpi.local_rank(), deck.run.batch_zones});
  });
  collectively(mpi, exit_runtime_error, [&] { backend->prepare(compact, deck.integrator); });
  const BackendDescription described = backend->describe();

  // The zones' memory: what check_zones_fit passed may still not be there (other processes, this
  // one's own); that too is the zone count's fault, named as such (exit 2), not a bare bad_alloc.
  auto allocate_zones = [&](auto&& allocate) {
    collectively(mpi, exit_input_error, [&] {
      try {
        allocate();
      } catch (const std::exception& error) {  // std::bad_alloc, std::length_error
        throw InputError(plan.zones_from + ": " + std::to_string(plan.zones) + " zones: cannot allocate the " +
                         std::to_string(plan.block.count) + " zones of this rank, " +
                         std::to_string(host_bytes_per_zone(network.species_count())) + " bytes each (" +
                         error.what() + ")");
      }
    });
  };
  ZoneBatch batch;
  allocate_zones([&] { batch.resize(plan.block.count, network.species_count()); });
  batch.first_global_index = plan.block.first;
  collectively(mpi, exit_input_error, [&] { build_zones(deck, network, plan, batch); });
  out << "zones " << plan.zones << " on " << mpi.size() << " rank(s), " << integration_method_name(deck.integrator.method)
      << " method, " << described.backend << " backend, kernel " << described.kernel_variant << ", outer steps "
      << plan.first_step << ".." << plan.last_step << "\n";
  const std::vector<std::string> devices = mpi.gather(described.device + ": " + described.launch);
  for (std::size_t rank = 0; rank < devices.size(); ++rank) out << "  rank " << rank << " -> " << devices[rank] << "\n";
  out << std::flush;

  RunSummary summary;
  summary.setup_seconds = mpi.max(MPI_Wtime() - start);
  summary.ranks = mpi.size();
  summary.threads = described.threads;
  summary.backend = described.backend;
  summary.kernel_variant = described.kernel_variant;
  summary.device = described.device;
  summary.hdf5_mode = hdf5_write_mode();
  summary.first_outer_step = plan.first_step;
  summary.outer_steps = plan.last_step - plan.first_step + 1;
  summary.decomposition = std::string(decomposition_name(deck.zones.decomposition));
  summary.work_counted = deck.integrator.method == IntegrationMethod::implicit;

  // The accuracy self-check starts from the zones' state before the first outer step of this run.
  std::unique_ptr<SelfCheck> self_check;
  if (deck.validation.sample_zones > 0) {
    collectively(mpi, exit_runtime_error, [&] {
      self_check = std::make_unique<SelfCheck>(mpi, deck.validation, deck.integrator, network, compact, batch,
                                               plan.zones);
    });
    summary.self_checked = true;
  }

  std::vector<double> energy;
  std::vector<std::int64_t> steps;
  std::vector<std::int32_t> status;
  std::vector<double> time_reached;
  allocate_zones([&] {
    energy.assign(batch.count, 0.0);
    steps.assign(batch.count, 0);
    status.assign(batch.count, 0);
    time_reached.assign(batch.count, 0.0);
  });
  const double burn_time = deck.integrator.end_time - deck.integrator.start_time;
  auto write_step = [&](std::int64_t step, bool checkpoint) {
    // Sized here: the cost decomposition moves zones between ranks after a step.
    energy.resize(batch.count);
    steps.resize(batch.count);
    status.resize(batch.count);
    time_reached.resize(batch.count);
    for (std::int64_t zone = 0; zone < batch.count; ++zone) {
      energy[zone] = batch.results[zone].energy_generation_rate;
      steps[zone] = batch.results[zone].steps;
      status[zone] = batch.results[zone].status;
      // Step 0, the initial state, is at start_time.
      time_reached[zone] = step == 0 ? deck.integrator.start_time : batch.results[zone].time_reached;
    }
    LocalState state{plan.zones,    plan.block,   batch.abundances.data(), batch.temperature.data(),
                     batch.density.data(), energy.data(), steps.data(),            status.data(),
                     time_reached.data()};
    StateAttributes attributes;
    // Computed, not accumulated, so that a restarted run writes the same value.
    attributes.time = static_cast<double>(step) * burn_time;
    attributes.outer_step = step;
    attributes.network_hash = hash;
    attributes.deck = deck.resolved_yaml;
    attributes.backend = described.backend;
    attributes.kernel_variant = described.kernel_variant;
    attributes.device = described.device;
    attributes.launch = described.launch;
    attributes.ranks = mpi.size();
    attributes.threads = described.threads;
    attributes.integrate_seconds = summary.integrate_seconds;
    attributes.checkpoint = checkpoint;
    if (self_check && step >= plan.first_step) {
      const SelfCheckResult& check = self_check->result();
      attributes.self_checked = true;
      attributes.self_check_max_relative_error = check.compared_zones > 0 ? check.max_relative_error : NAN;
      attributes.self_check_energy_rate_error = check.compared_zones > 0 ? check.max_energy_rate_error : NAN;
      attributes.self_check_worst_zone = check.worst_zone;
      attributes.self_check_zones = check.zones;
      attributes.self_check_compared_zones = check.compared_zones;
      attributes.self_check_rtol = check.rtol;
    }
    const std::string file = checkpoint ? checkpoint_file(deck.output) : deck.output.file(step);
    mpi.barrier();
    const double write_start = MPI_Wtime();
    collectively(mpi, exit_runtime_error, [&] { write_state_file(mpi, file, network, state, attributes); });
    summary.output_seconds += mpi.max(MPI_Wtime() - write_start);
    summary.output_bytes += static_cast<double>(plan.zones) * (network.species_count() * 8.0 + 4 * 8.0 + 8.0 + 4.0);
    ++summary.files_written;
    if (checkpoint) out << "checkpoint: " << file << " outer_step " << step << "\n" << std::flush;
    else out << "  wrote " << file << "\n" << std::flush;
  };
  if (options.restart.empty() && deck.output.writes(0, plan.last_step)) write_step(0, false);

  std::vector<std::int64_t> cuts = count_cuts(plan.zones, mpi.size());  // the blocks of every rank
  double rank_integrate_seconds = 0.0;    // this rank's own, over the outer steps
  std::int64_t rank_integrator_steps = 0;  // accepted and rejected, this rank's zones
  std::int64_t zones_received = 0;
  const double loop_start = MPI_Wtime();
  double last_progress = loop_start;
  int stop_signal = 0;  // agreed by all ranks: the highest signal number any rank received, 0 for none
  std::int64_t stopped_after = -1;

  double max_drift = 0.0;  // over zones and outer steps (each step's drift is from its own start)
  for (std::int64_t step = plan.first_step; step <= plan.last_step; ++step) {
    mpi.barrier();
    double integrate_seconds = 0.0, transfer_seconds = 0.0;
    collectively(mpi, exit_runtime_error, [&] { integrate_all(*backend, batch, integrate_seconds, transfer_seconds); });
    // The figure of merit: integration only, the slowest rank's time.
    summary.integrate_seconds += mpi.max(integrate_seconds);
    rank_integrate_seconds += integrate_seconds;
    for (const ZoneResult& result : batch.results) rank_integrator_steps += result.steps + result.rejected_steps;
    summary.transfer_seconds += mpi.max(transfer_seconds);
    // The prescribed history: T9 and rho at the end of this step, the conditions of the next.
    for (std::int64_t zone = 0; zone < batch.count; ++zone) {
      batch.temperature[zone] *= deck.steps.temperature_factor;
      batch.density[zone] *= deck.steps.density_factor;
    }
    add_step_statistics(batch, mpi, summary, max_drift);
    if (self_check) {
      collectively(mpi, exit_runtime_error, [&] {
        summary.self_check =
            self_check->after_outer_step(batch, deck.steps.temperature_factor, deck.steps.density_factor);
      });
    }
    if (deck.output.writes(step, plan.last_step)) write_step(step, false);

    // Stop requests: every rank agrees (one reduction) before any acts on them.
    stop_signal = mpi.max_int(stop_signal_received());
    if (stop_signal != 0) {
      if (step == plan.last_step) {
        if (mpi.root())
          std::cerr << "zoneode: " << stop_signal_name(stop_signal) << " in the last outer step: the run is complete\n";
        break;
      }
      stopped_after = step;
      summary.outer_steps = step - plan.first_step + 1;
      if (!deck.output.prefix.empty()) {
        write_step(step, true);
      } else if (mpi.root()) {
        std::cerr << "zoneode: stopped by " << stop_signal_name(stop_signal) << " after outer step " << step
                  << "; no checkpoint: the deck has no output.prefix\n";
      }
      break;
    }
    if (deck.zones.decomposition == Decomposition::cost && mpi.size() > 1 && step < plan.last_step) {
      const double rebalance_start = MPI_Wtime();
      collectively(mpi, exit_runtime_error, [&] { zones_received += rebalance_by_cost(mpi, cuts, batch, plan); });
      summary.rebalance_seconds += mpi.max(MPI_Wtime() - rebalance_start);
    }
    const double now = MPI_Wtime();
    if (!options.quiet && step < plan.last_step && now - last_progress >= options.progress_seconds) {
      last_progress = now;
      const std::int64_t done = step - plan.first_step + 1, left = plan.last_step - step;
      char line[256];
      std::snprintf(line, sizeof line,
                    "progress: outer step %lld of %lld, zones done %lld of %lld, elapsed %.1f s, about %.1f s remaining\n",
                    static_cast<long long>(step), static_cast<long long>(plan.last_step),
                    static_cast<long long>(done * plan.zones),
                    static_cast<long long>((plan.last_step - plan.first_step + 1) * plan.zones), now - start,
                    (now - loop_start) / static_cast<double>(done) * static_cast<double>(left));
      out << line << std::flush;
    }
  }
  summary.integrate_seconds_per_rank = {mpi.min(rank_integrate_seconds),
                                        mpi.sum_double(rank_integrate_seconds) / mpi.size(),
                                        mpi.max(rank_integrate_seconds)};
  summary.integrator_steps_per_rank = {mpi.min(static_cast<double>(rank_integrator_steps)),
                                       static_cast<double>(mpi.sum(rank_integrator_steps)) / mpi.size(),
                                       mpi.max(static_cast<double>(rank_integrator_steps))};
  summary.zones_moved = mpi.sum(zones_received);

  summary.deck = deck.file;
  summary.network = network.name;
  summary.network_hash = hash;
  summary.species = network.species_count();
  summary.reactions = network.reaction_count();
  summary.rate_sets = compact.set_count();
  summary.creation_terms = compact.creation_terms();
  summary.destruction_terms = compact.destruction_terms();
  summary.zones = plan.zones;
  summary.max_mass_drift = mpi.max(max_drift);
  add_final_statistics(batch, mpi, summary);
  summary.stopped_after_outer_step = stopped_after;
  if (stopped_after >= 0 && !deck.output.prefix.empty()) summary.checkpoint = checkpoint_file(deck.output);

  print_summary(summary, out);
  if (!deck.run.summary.empty()) {
    collectively(mpi, exit_runtime_error, [&] {
      if (mpi.root()) write_file_atomically(deck.run.summary, summary_json(summary));
    });
    out << "summary written to " << deck.run.summary << "\n";
  }
  if (summary.failed_zone_steps > 0 && mpi.root())
    std::cerr << "zoneode: " << summary.failed_zone_steps << " zone-step(s) failed, " << summary.failed_zones()
              << " zone(s) in the last outer step (a failed zone keeps its last state that passed the checks)\n";
  if (stopped_after >= 0) return exit_stopped;  // unfinished: resubmit from the checkpoint
  if (summary.failed_zone_steps > 0) return exit_zones_failed;
  return exit_success;
}

}  // namespace zoneode
