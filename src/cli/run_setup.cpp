// A run's set-up: the deck and network read on every rank, the plan (zones, outer steps, files),
// the outputs checked before any work, the backend, this rank's zones, the summary's fixed fields,
// the self-check, and the initial state's file.
#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

#include "cli/preflight.hpp"
#include "cli/run_steps.hpp"
#include "cli/signals.hpp"
#include "common/errors.hpp"
#include "common/numbers.hpp"
#include "decomposition/binding.hpp"
#include "decomposition/rebalance.hpp"
#include "deck/yaml_schema.hpp"
#include "io/state_layout.hpp"
#include "io/zone_input.hpp"
#include "network/load.hpp"
#include "physics/eos.hpp"
#include "physics/self_heating.hpp"
#include "zones/zone_memory.hpp"
#include "zones/zones.hpp"
#include "zoneode_version.hpp"

namespace zoneode {

namespace {

// Whether the state of some outer step is written beside the next one: output.overlap, an MPI
// that lets the writer thread call it, and a write before the last step (the last one is written
// at once). Sets `why` when output.overlap asked for it and it is off anyway.
bool output_overlaps(const Deck& deck, std::int64_t first_written, std::int64_t last_step, const MpiContext& mpi,
                     std::string& why) {
  const OutputDeck& output = deck.output;
  if (!output.overlap || output.prefix.empty()) return false;
  bool written_before_last = false;
  for (std::int64_t step = first_written; step < last_step && !written_before_last; ++step)
    written_before_last = output.writes(step, last_step);
  if (!written_before_last) return false;
  if (!mpi.serialized_threads()) {
    why = "this MPI provides " + mpi.thread_level_name() + ", the writer thread needs MPI_THREAD_SERIALIZED";
    return false;
  }
  return true;
}

// Zones this rank cannot hold are bad input, refused before any work or file (issue 11).
void check_zones_fit(const RunPlan& plan, int species, bool snapshot_copy, const MpiContext& mpi) {
  const std::uint64_t per_zone = host_bytes_per_zone(species, snapshot_copy);
  const MemoryLimit limit = host_memory_limit(mpi.local_size());
  std::uint64_t bytes = 0;
  const bool overflow = __builtin_mul_overflow(static_cast<std::uint64_t>(plan.block.count), per_zone, &bytes);
  if (!overflow && bytes <= limit.bytes) return;
  const std::string held = mpi.size() > 1 ? ", " + std::to_string(plan.block.count) + " on this rank," : "";
  throw InputError(plan.zones_from + ": " + std::to_string(plan.zones) + " zones" + held + " need " +
                   (overflow ? std::string("over 2^64") : std::to_string(bytes)) + " bytes of memory (" +
                   std::to_string(per_zone) + " bytes per zone: T9, rho, " + std::to_string(species) +
                   " abundances, its result and output columns" +
                   (snapshot_copy ? ", and their copy for the overlapped write (output.overlap)" : "") +
                   "), more than " + limit.what + "; at most " + std::to_string(limit.bytes / per_zone) +
                   " zones fit per rank");
}

// Why a restart file's network hash is not this deck's, as far as the file tells: with partition
// functions the hash covers the table's content, and state files record the table they were
// written with (attribute partition_table), so an edited table is named as the reason (issue 40:
// the message only asked whether it was). Files without that attribute keep the question.
std::string restart_network_mismatch(const std::string& file, const StateFileInfo& restart, const std::string& hash,
                                     const std::string& table, bool partition_functions) {
  const std::string message = "--restart: '" + file + "' was written with network " + restart.network_hash +
                              ", expected this deck's " + hash;
  const auto split = [](const std::string& attribute) {  // "PATH: N bytes, content HASH" -> {PATH, "N bytes, ..."}
    const std::size_t colon = attribute.rfind(": ");
    if (colon == std::string::npos) return std::pair<std::string, std::string>{"", attribute};
    return std::pair<std::string, std::string>{attribute.substr(0, colon), attribute.substr(colon + 2)};
  };
  if (!restart.partition_table.empty()) {
    const auto [then_path, then_digest] = split(restart.partition_table);
    if (!partition_functions)
      return message + ": the file was written with physics.partition_functions on (table '" + then_path +
             "'), this deck has them off: continue with the deck that wrote it";
    const auto [now_path, now_digest] = split(table);
    if (then_digest != now_digest)
      return message + ": " +
             (then_path == now_path ? "the partition-function table '" + now_path + "' changed since the file was written"
                                    : "this deck's partition-function table '" + now_path +
                                          "' is not the one the file was written with ('" + then_path + "')") +
             " (then " + then_digest + "; now " + now_digest +
             "), and the network hash covers it: continue with that table as it was, or start afresh";
    return message + ": the network itself differs (the partition-function table is the one the file was written "
                     "with, " + now_digest + ")";
  }
  if (partition_functions)
    return message + " (with partition functions the hash covers the table's content: was the table edited, or the "
                     "file written without partition functions or by a zoneode older than that?)";
  return message;
}

RunPlan plan_run(const CliOptions& options, const Deck& deck, const Network& network, const std::string& hash,
                 const std::string& partition_table, const MpiContext& mpi, OverlappedOutput& overlapped) {
  RunPlan plan;
  plan.zones = deck.zones.count;
  plan.zones_from = deck.zones.count_where + ": zones.count";
  plan.last_step = deck.steps.count;
  if (!options.restart.empty()) {
    const StateFileInfo restart = read_state_info(options.restart);
    check_state_file_matches("--restart", options.restart, restart, network,
                             deck.zones.from_file.empty() ? plan.zones : 0);
    if (restart.network_hash != hash)
      throw InputError(restart_network_mismatch(options.restart, restart, hash, partition_table,
                                                deck.physics.partition_functions));
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
  check_state_storage(deck.output.storage, network.species_count(), deck.output.storage_where, plan.zones);
  const std::int64_t first_written = options.restart.empty() ? 0 : plan.first_step;
  overlapped.enabled = output_overlaps(deck, first_written, plan.last_step, mpi, overlapped.disabled_why);
  check_zones_fit(plan, network.species_count(), overlapped.enabled, mpi);
  return plan;
}

void build_zones(const Deck& deck, const Network& network, const RunPlan& plan, ZoneBatch& batch) {
  if (!plan.zone_file.empty()) {
    read_zone_block(plan.zone_file, plan.zones, plan.block, network, deck.zones.mass_sum_tolerance, batch);
  } else {
    const ZoneBuilder builder(deck.zones, network);
    for (std::int64_t zone = 0; zone < batch.count; ++zone) {
      batch.temperature[zone] = builder.temperature(batch.first_global_index + zone);
      batch.density[zone] = builder.density(batch.first_global_index + zone);
      std::copy(builder.abundances().begin(), builder.abundances().end(), batch.zone_abundances(zone));
    }
  }
  // Self-heating holds T9 at its floor (an endothermic burn never cools below it): a zone that
  // starts below it would be lifted to it without a word (issue 40), so it is refused instead.
  if (deck.physics.self_heating) {
    for (std::int64_t zone = 0; zone < batch.count; ++zone) {
      if (batch.temperature[zone] >= self_heating_min_T9) continue;
      throw InputError((plan.zone_file.empty() ? deck.file + ": zones.temperature" : plan.zone_file) +
                       ": zone " + std::to_string(batch.first_global_index + zone) + " starts at T9 " +
                       format_number(batch.temperature[zone]) + ", below self-heating's floor: expected T9 >= " +
                       format_number(self_heating_min_T9) +
                       " [GK] with physics.self_heating: true (it holds T9 there), or self_heating off");
    }
  }
}

// The zones' memory: what check_zones_fit passed may still not be there (other processes, this
// one's own); that too is the zone count's fault, named as such (exit 2), not a bare bad_alloc.
template <typename Allocate>
void allocate_zones(const Run& run, Allocate&& allocate) {
  collectively(run.mpi, exit_input_error, [&] {
    try {
      allocate();
    } catch (const std::exception& error) {  // std::bad_alloc, std::length_error
      throw InputError(run.plan.zones_from + ": " + std::to_string(run.plan.zones) + " zones: cannot allocate the " +
                       std::to_string(run.plan.block.count) + " zones of this rank, " +
                       std::to_string(host_bytes_per_zone(run.network.species_count(), run.overlapped.enabled)) +
                       " bytes each (" +
                       error.what() + ")");
    }
  });
}

// Every rank reads the same deck and network: an input error happens on all of them alike.
void load_inputs(Run& run) {
  IntegratedNetwork integrated;
  collectively(run.mpi, exit_input_error, [&] {
    run.deck = load_deck(run.options.deck, run.options.overrides);
    run.network = load_network(run.deck.network);
    run.compact.emplace(run.network, run.deck.physics);
    integrated = integrated_network(run.deck, run.network);  // cli/preflight.hpp
  });
  run.out << "deck " << run.deck.file << "\n";
  for (const auto& item : run.options.overrides) run.out << "  command line overrides the deck: " << item << "\n";
  if (!run.options.quiet)
    run.out << "---- resolved deck ----\n" << run.deck.resolved_yaml << "-----------------------\n";
  print_network(run.network, *run.compact, false, run.out);
  if (run.deck.physics.partition_functions) {  // the nuclides taken as G = 1, in the header as in the summary
    RunSummary& summary = run.summary;
    summary.partition_functions = true;
    summary.partition_untabulated = run.compact->pf_untabulated;
    summary.partition_held = run.compact->pf_held;
    summary.partition_table = run.compact->pf_table;
    for (const std::string& warning : {partition_untabulated_warning(summary), partition_held_warning(summary)}) {
      run.out << warning;
      if (!warning.empty() && run.mpi.root()) std::cerr << "zoneode: " << warning.substr(warning.find("warning"));
    }
  }
  run.partition_table = integrated.partition_table;
  if (run.network_hash = integrated.hash; integrated.hash != hex64(network_hash(run.network)))
    run.out << "  state files carry " << integrated.described << "\n";
  if (!integrated.warning.empty() && run.mpi.root()) std::cerr << "zoneode: warning: " << integrated.warning << "\n";
  check_inputs_before_any_work(run.options, run.deck, integrated, run.mpi);  // cli/preflight.hpp
}

// The plan, and the outputs checked and their folders made, before any work.
void plan_outputs(Run& run) {
  collectively(run.mpi, exit_input_error, [&] {
    run.plan = plan_run(run.options, run.deck, run.network, run.network_hash, run.partition_table, run.mpi,
                        run.overlapped);
  });
  check_outputs_before_any_work(run.options, run.deck, run.plan.first_step, run.plan.last_step, run.mpi);  // preflight.hpp
}

// The backend made and prepared; what it says it is becomes the run's provenance.
void start_backend(Run& run) {
  const Deck& deck = run.deck;
  collectively(run.mpi, exit_input_error, [&] {
    run.backend = make_backend({deck.integrator.method, deck.run.backend, deck.run.kernel},
                               {deck.run.threads, run.mpi.local_rank(), deck.run.batch_zones, deck.run.tuning,
                                run.plan.block.count});
  });
  collectively(run.mpi, exit_runtime_error, [&] { run.backend->prepare(*run.compact, deck.integrator); });
  const BackendDescription described = run.backend->describe();
  run.provenance = {deck.resolved_yaml, described.backend, described.kernel_variant, described.device,
                    described.launch,   run.mpi.size(),    described.threads};
}

// Every rank's binding line (decomposition/binding.hpp), and a warning when a rank is not on its
// GPU's NUMA node: its transfers and host work cross the node's interconnect.
void print_binding(Run& run) {
  const RankBinding binding = describe_binding(run.provenance.device, run.cpu_list);
  const std::vector<std::string> lines = run.mpi.gather(binding_line(run.mpi.rank(), run.mpi.local_rank(), binding));
  for (const std::string& line : lines) run.out << line << "\n";
  run.summary.binding_mismatches = run.mpi.sum(std::int64_t{binding.mismatch ? 1 : 0});
  if (run.summary.binding_mismatches > 0 && run.mpi.root())
    std::cerr << "zoneode: warning: " << run.summary.binding_mismatches
              << " rank(s) not on their GPU's NUMA node (binding lines): bind each rank to the CPUs of its GPU's "
                 "NUMA node (slurm/README.md, scripts/gpu-scaling.sh)\n";
}

// This rank's zones, allocated and built (from the deck or a state file), and the run's header lines.
void build_run_zones(Run& run) {
  const RunPlan& plan = run.plan;
  allocate_zones(run, [&] { run.batch.resize(plan.block.count, run.network.species_count()); });
  run.batch.first_global_index = plan.block.first;
  collectively(run.mpi, exit_input_error, [&] { build_zones(run.deck, run.network, plan, run.batch); });
  run.out << "zones " << plan.zones << " on " << run.mpi.size() << " rank(s), "
          << integration_method_name(run.deck.integrator.method) << " method, " << run.provenance.backend
          << " backend, kernel " << run.provenance.kernel_variant << ", outer steps " << plan.first_step << ".."
          << plan.last_step << "\n";
  const std::vector<std::string> devices = run.mpi.gather(run.provenance.device + ": " + run.provenance.launch);
  for (std::size_t rank = 0; rank < devices.size(); ++rank)
    run.out << "  rank " << rank << " -> " << devices[rank] << "\n";
  print_binding(run);
  run.out << std::flush;
}

// The summary's fields fixed at set-up; the set-up time ends here.
void start_summary(Run& run) {
  RunSummary& summary = run.summary;
  summary.setup_seconds = run.mpi.max(MPI_Wtime() - run.start);
  summary.provenance = run.provenance;
  summary.hdf5_mode = hdf5_write_mode();
  summary.first_outer_step = run.plan.first_step;
  summary.outer_steps = run.plan.last_step - run.plan.first_step + 1;
  summary.decomposition = std::string(decomposition_name(run.deck.zones.decomposition));
  summary.work_counted = run.deck.integrator.method != IntegrationMethod::asymptotic;  // qss2 and implicit count RHS
  summary.deck = run.deck.file;
  summary.network = run.network.name;
  summary.network_hash = run.network_hash;
  summary.species = run.network.species_count();
  summary.reactions = run.network.reaction_count();
  summary.rate_sets = run.compact->set_count();
  summary.creation_terms = run.compact->creation_terms();
  summary.destruction_terms = run.compact->destruction_terms();
  summary.zones = run.plan.zones;
}

// The state files' buffers, allocated before any work (their cost is in check_zones_fit), the
// writer thread of the overlapped output, and the header line that states both.
void prepare_output(Run& run) {
  StateSnapshot& snapshot = run.snapshot;
  OverlappedOutput& overlapped = run.overlapped;
  const std::size_t zones = static_cast<std::size_t>(run.batch.count);
  const int species = run.network.species_count();
  allocate_zones(run, [&] {
    snapshot.energy_generation_rate.assign(zones, 0.0);
    snapshot.integrator_steps.assign(zones, 0);
    snapshot.status.assign(zones, 0);
    snapshot.time_reached.assign(zones, 0.0);
    if (!overlapped.enabled) return;
    snapshot.abundance_copy.assign(zones * static_cast<std::size_t>(species), 0.0);
    snapshot.temperature_copy.assign(zones, 0.0);
    snapshot.density_copy.assign(zones, 0.0);
  });
  if (overlapped.enabled)
    collectively(run.mpi, exit_runtime_error, [&] { overlapped.writer = std::make_unique<AsyncWriter>(); });
  const OutputDeck& output = run.deck.output;
  if (output.prefix.empty()) return;
  run.out << "output " << output.prefix << "_stepNNNNNN.h5 every " << output.every
          << " outer step(s)" << (output.initial ? " and step 0" : "") << ", " << output.storage.describe() << ", ";
  if (overlapped.enabled) {
    // The bound: one snapshot in flight per rank, T9, rho and Y of the rank's zones.
    const std::int64_t most_zones = static_cast<std::int64_t>(run.mpi.max(static_cast<double>(run.plan.block.count)));
    const double bytes = static_cast<double>(most_zones) * (2.0 + species) * sizeof(double);
    char line[200];
    std::snprintf(line, sizeof line, "%.3e bytes (%lld zones x (2 + %d) x 8 B)", bytes,
                  static_cast<long long>(most_zones), species);
    run.out << "overlapped: step k written while step k+1 integrates; memory: one snapshot in flight per rank, at "
               "most "
            << line << "\n";
  } else {
    run.out << "written before the next outer step ("
            << (overlapped.disabled_why.empty() ? "output.overlap " + std::string(output.overlap ? "true" : "false")
                                                : overlapped.disabled_why)
            << ")\n";
  }
}

// The accuracy self-check starts from the zones' state before the first outer step of this run.
void start_self_check(Run& run) {
  if (run.deck.validation.sample_zones <= 0) return;
  collectively(run.mpi, exit_runtime_error, [&] {
    run.self_check = std::make_unique<SelfCheck>(run.mpi, run.deck.validation, run.deck.integrator, run.network,
                                                 *run.compact, run.batch, run.plan.zones);
  });
  run.summary.self_checked = true;
}

// --force: the prefix's files of an earlier run from this run's first step on, removed before its
// first write (cli/preflight.hpp), so that it never leaves a mix; said in the header.
void clear_earlier_run_files(Run& run) {
  std::vector<std::string> removed;
  collectively(run.mpi, exit_runtime_error, [&] {
    if (run.mpi.root()) removed = remove_earlier_run_files(run.options, run.deck, run.plan.first_step);
  });
  if (removed.empty()) return;
  run.out << "--force: removed " << removed.size() << " file(s) of an earlier run under output.prefix "
          << run.deck.output.prefix << " (" << removed.front() << (removed.size() > 1 ? " .. " + removed.back() : "")
          << ")\n";
}

// ZONEODE_READY_FILE (issue 40): once every rank has its stop-signal handler, rank 0 creates the
// file named there. A signal sent to mpirun or srun before the ranks exist reaches no rank (Open
// MPI 4.1's mpirun forwards it to the ranks it has started: none in its first 10-70 ms; before
// its own handler, the default action ends it; a rank between mpirun's fork and its exec, or still
// in slurm/select_gpu.sh, dies of it), so a job script (slurm/run.sbatch) holds a stop request
// until this file exists and passes it on then (docs/USAGE.md, "Time limits and signals"). A file
// that cannot be created is an input error before any work (the script would hold the request in
// vain).
void announce_stop_signals_ready(Run& run) {
  const char* path = std::getenv("ZONEODE_READY_FILE");
  if (path == nullptr || *path == '\0') return;
  run.mpi.barrier();  // every rank is past trap_stop_signals()
  collectively(run.mpi, exit_input_error, [&] {
    if (!run.mpi.root()) return;
    std::FILE* file = std::fopen(path, "w");
    int error = file == nullptr ? errno : 0;
    if (file != nullptr) {
      if (std::fprintf(file, "ranks %d\n", run.mpi.size()) < 0) error = errno;
      if (std::fclose(file) != 0 && error == 0) error = errno;
      if (error != 0) std::remove(path);
    }
    if (error != 0)
      throw InputError(std::string("ZONEODE_READY_FILE=") + path + ": cannot create it: " + std::strerror(error));
  });
}

}  // namespace

Run::Run(const CliOptions& options, const MpiContext& mpi)
    : options(options), mpi(mpi), start(MPI_Wtime()), out(mpi.root() ? std::cout : discarded) {}

void set_up_run(Run& run) {
  trap_stop_signals();  // before any work: a signal during set-up stops the run after its first step
  announce_stop_signals_ready(run);
  run.cpu_list = cpu_list_of_this_thread();  // before the backend's threads may bind this one
  run.out << "zoneode " << ZONEODE_VERSION << " (commit " << ZONEODE_GIT_COMMIT << ", " << ZONEODE_COMPILER << ", "
          << ZONEODE_BUILD_TYPE << ", " << hdf5_write_mode() << " HDF5)\n";
  load_inputs(run);
  plan_outputs(run);
  start_backend(run);
  build_run_zones(run);
  start_summary(run);
  check_weak_screening(run);
  if (const std::string warning = weak_screening_warning(run.summary); !warning.empty()) {
    run.out << warning;
    if (run.mpi.root()) std::cerr << "zoneode: " << warning.substr(warning.find("warning"));
  }
  check_fit_range(run);
  if (const std::string warning = fit_range_warning(run.summary); !warning.empty()) {
    run.out << warning;
    if (run.mpi.root()) std::cerr << "zoneode: " << warning.substr(warning.find("warning"));
  }
  start_self_check(run);
  // Self-heating's c_v table (physics/eos_table.hpp), built here, in the set-up time, rather than by
  // the first zone inside the timed loop.
  if (run.deck.physics.self_heating) {
    host_electron_gas_table_enabled() = run.deck.physics.eos == EosEvaluation::table;
    if (host_electron_gas_table_enabled()) host_electron_gas_table();
  }
  prepare_output(run);
  run.cuts = count_cuts(run.plan.zones, run.mpi.size());
  run.loop_start = MPI_Wtime();
  run.last_progress = run.loop_start;
  clear_earlier_run_files(run);
  if (run.options.restart.empty() && run.deck.output.writes(0, run.plan.last_step))
    write_step(run, 0, StateFileKind::output);
}

}  // namespace zoneode
