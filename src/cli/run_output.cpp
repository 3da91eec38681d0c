// Writing a step's state file: the state taken into a StateSnapshot (a plain struct a writer can
// own), then written collectively and counted in the summary; with output.overlap, written by the
// rank's writer thread while the next outer step integrates.
//
// Why a writer thread that calls MPI (through write_state_file) while the main thread calls none,
// rather than HDF5's asynchronous I/O or the main thread writing while the integration runs
// elsewhere: the asynchronous VOL connector needs HDF5 1.14 built thread-safe, Argobots and
// MPI_THREAD_MULTIPLE (the GPU machine has serial HDF5 1.10, Cray MPICH gives MULTIPLE only on
// request); the integration
// cannot leave the main thread (the CPU backend's OpenMP team and the GPU backend's device are
// bound to it). Serial HDF5 passes a token between ranks, parallel HDF5 makes collective calls:
// both run on the writer thread, inside the window in which the main thread integrates, so
// MPI_THREAD_SERIALIZED suffices. The same write_state_file runs either way: the same file, the
// same atomic rename, the same agreement on failures.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "cli/run_steps.hpp"

namespace zoneode {

namespace {

StateAttributes step_attributes(const Run& run, std::int64_t step, StateFileKind kind) {
  StateAttributes attributes;
  // Computed, not accumulated, so that a restarted run writes the same value.
  attributes.time = static_cast<double>(step) * (run.deck.integrator.end_time - run.deck.integrator.start_time);
  attributes.outer_step = step;
  attributes.network_hash = run.network_hash;
  attributes.partition_table = run.partition_table;
  attributes.provenance = run.provenance;
  attributes.integrate_seconds = run.summary.integrate_seconds;
  attributes.checkpoint = kind == StateFileKind::checkpoint;
  if (run.self_check && step >= run.plan.first_step) {
    const SelfCheckResult& check = run.self_check->result();
    attributes.self_checked = true;
    attributes.self_check_max_relative_error = check.compared_zones > 0 ? check.max_relative_error : NAN;
    attributes.self_check_energy_rate_error = check.compared_zones > 0 ? check.max_energy_rate_error : NAN;
    attributes.self_check_worst_zone = check.worst_zone;
    attributes.self_check_zones = check.zones;
    attributes.self_check_compared_zones = check.compared_zones;
    attributes.self_check_rtol = check.rtol;
  }
  return attributes;
}

double seconds_since(std::chrono::steady_clock::time_point begin) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
}

// The size of a file just written (rank 0, which renamed it); 0 elsewhere or when unknown.
std::uint64_t written_file_bytes(const MpiContext& mpi, const std::string& file) {
  if (!mpi.root()) return 0;
  std::error_code error;
  const std::uintmax_t bytes = std::filesystem::file_size(file, error);
  return error ? 0 : static_cast<std::uint64_t>(bytes);
}

// One state file's figures in the summary, and its line.
void count_file(Run& run, const StateSnapshot& snapshot, double write_seconds, std::uint64_t file_bytes) {
  RunSummary& summary = run.summary;
  summary.output_seconds += write_seconds;
  summary.output_bytes +=
      static_cast<double>(run.plan.zones) * (run.network.species_count() * 8.0 + 4 * 8.0 + 8.0 + 4.0);
  summary.output_file_bytes += static_cast<double>(file_bytes);
  ++summary.files_written;
  if (snapshot.attributes.checkpoint) {
    run.out << "checkpoint: " << snapshot.file << " outer_step " << snapshot.attributes.outer_step << "\n";
  } else {
    run.out << "  wrote " << snapshot.file << "\n";
  }
  run.out << std::flush;
}

}  // namespace

void StateSnapshot::own_zone_state(int species) {
  const std::size_t zones = static_cast<std::size_t>(block.count);
  abundance_copy.assign(abundances, abundances + zones * static_cast<std::size_t>(species));
  temperature_copy.assign(temperature, temperature + zones);
  density_copy.assign(density, density + zones);
  abundances = abundance_copy.data();
  temperature = temperature_copy.data();
  density = density_copy.data();
}

StateSnapshot& take_snapshot(Run& run, std::int64_t step, StateFileKind kind) {
  const ZoneBatch& batch = run.batch;
  StateSnapshot& snapshot = run.snapshot;
  snapshot.file = kind == StateFileKind::checkpoint ? run.deck.output.checkpoint_file() : run.deck.output.file(step);
  snapshot.attributes = step_attributes(run, step, kind);
  snapshot.global_zones = run.plan.zones;
  snapshot.block = run.plan.block;
  snapshot.abundances = batch.abundances.data();
  snapshot.temperature = batch.temperature.data();
  snapshot.density = batch.density.data();
  // Sized here: the cost decomposition moves zones between ranks after a step.
  snapshot.energy_generation_rate.resize(batch.count);
  snapshot.integrator_steps.resize(batch.count);
  snapshot.status.resize(batch.count);
  snapshot.time_reached.resize(batch.count);
  for (std::int64_t zone = 0; zone < batch.count; ++zone) {
    const ZoneResult& result = batch.results[zone];
    snapshot.energy_generation_rate[zone] = result.energy_generation_rate;
    snapshot.integrator_steps[zone] = result.steps;
    snapshot.status[zone] = result.status;
    // Step 0, the initial state, is at start_time.
    snapshot.time_reached[zone] = step == 0 ? run.deck.integrator.start_time : result.time_reached;
  }
  return snapshot;
}

void write_snapshot(Run& run, const StateSnapshot& snapshot) {
  const MpiContext& mpi = run.mpi;
  mpi.barrier();
  const double write_start = MPI_Wtime();
  collectively(mpi, exit_runtime_error, [&] {
    write_state_file(mpi, snapshot.file, run.network, snapshot.local_state(), snapshot.attributes,
                     run.deck.output.storage);
  });
  const double seconds = mpi.max(MPI_Wtime() - write_start);
  run.summary.output_stall_seconds += seconds;  // the loop waited for all of it
  count_file(run, snapshot, seconds, written_file_bytes(mpi, snapshot.file));
}

void write_step(Run& run, std::int64_t step, StateFileKind kind) {
  OverlappedOutput& overlapped = run.overlapped;
  // Overlapped: an output with an outer step after it to integrate beside (a stop request found
  // after this step writes it at once: drain_output).
  const bool overlap = overlapped.enabled && kind == StateFileKind::output && step < run.plan.last_step;
  drain_output(run);  // overlapped, none in practice: each integration takes the pending one
  const auto copy_start = std::chrono::steady_clock::now();
  // The snapshot grows here when the cost decomposition gave this rank more zones than at set-up:
  // an allocation that fails on one rank ends every rank's run with its message.
  collectively(run.mpi, exit_runtime_error, [&] {
    StateSnapshot& snapshot = take_snapshot(run, step, kind);
    if (overlap) snapshot.own_zone_state(run.network.species_count());
  });
  if (overlap) {
    overlapped.pending = true;
    run.summary.output_stall_seconds += run.mpi.max(seconds_since(copy_start));
  } else {
    write_snapshot(run, run.snapshot);
  }
}

void start_pending_write(Run& run) {
  OverlappedOutput& overlapped = run.overlapped;
  if (!overlapped.pending) return;
  overlapped.pending = false;
  overlapped.written = true;
  overlapped.file_bytes = 0;
  const StateSnapshot& snapshot = run.snapshot;  // untouched until wait_pending_write
  overlapped.writer->start([&run, &snapshot, &overlapped] {
    write_state_file(run.mpi, snapshot.file, run.network, snapshot.local_state(), snapshot.attributes,
                     run.deck.output.storage);
    overlapped.file_bytes = written_file_bytes(run.mpi, snapshot.file);
  });
}

void wait_pending_write(Run& run) {
  OverlappedOutput& overlapped = run.overlapped;
  if (!overlapped.writer || !overlapped.writer->in_flight()) return;
  const auto wait_start = std::chrono::steady_clock::now();
  overlapped.outcome = overlapped.writer->wait();
  overlapped.wait_seconds = seconds_since(wait_start);
}

void report_overlapped_write(Run& run) {
  OverlappedOutput& overlapped = run.overlapped;
  if (!overlapped.written) return;
  overlapped.written = false;
  // write_state_file agrees on failures itself: every rank holds the same error, or none.
  collectively(run.mpi, exit_runtime_error, [&] {
    if (overlapped.outcome.error) std::rethrow_exception(overlapped.outcome.error);
  });
  run.summary.output_stall_seconds += run.mpi.max(overlapped.wait_seconds);
  count_file(run, run.snapshot, run.mpi.max(overlapped.outcome.seconds), overlapped.file_bytes);
}

void drain_output(Run& run) {
  if (!run.overlapped.pending) return;
  run.overlapped.pending = false;
  write_snapshot(run, run.snapshot);
}

void drain_output_after_error(Run& run) {
  try {
    drain_output(run);
  } catch (const ReportedError&) {
    // Printed by write_snapshot; the run ends with the first error's exit status.
  }
}

}  // namespace zoneode
