// Writing a step's state file: the state taken into a StateSnapshot (a plain struct a writer can
// own), then written collectively and counted in the summary.
#include <mpi.h>

#include <cmath>

#include "cli/run_steps.hpp"

namespace zoneode {

namespace {

StateAttributes step_attributes(const Run& run, std::int64_t step, StateFileKind kind) {
  StateAttributes attributes;
  // Computed, not accumulated, so that a restarted run writes the same value.
  attributes.time = static_cast<double>(step) * (run.deck.integrator.end_time - run.deck.integrator.start_time);
  attributes.outer_step = step;
  attributes.network_hash = run.network_hash;
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

}  // namespace

std::string checkpoint_file(const OutputDeck& output) { return output.prefix + "_checkpoint.h5"; }

StateSnapshot& take_snapshot(Run& run, std::int64_t step, StateFileKind kind) {
  const ZoneBatch& batch = run.batch;
  StateSnapshot& snapshot = run.snapshot;
  snapshot.file = kind == StateFileKind::checkpoint ? checkpoint_file(run.deck.output) : run.deck.output.file(step);
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
    write_state_file(mpi, snapshot.file, run.network, snapshot.local_state(), snapshot.attributes);
  });
  RunSummary& summary = run.summary;
  summary.output_seconds += mpi.max(MPI_Wtime() - write_start);
  summary.output_bytes +=
      static_cast<double>(run.plan.zones) * (run.network.species_count() * 8.0 + 4 * 8.0 + 8.0 + 4.0);
  ++summary.files_written;
  if (snapshot.attributes.checkpoint) {
    run.out << "checkpoint: " << snapshot.file << " outer_step " << snapshot.attributes.outer_step << "\n";
  } else {
    run.out << "  wrote " << snapshot.file << "\n";
  }
  run.out << std::flush;
}

void write_step(Run& run, std::int64_t step, StateFileKind kind) {
  write_snapshot(run, take_snapshot(run, step, kind));
}

}  // namespace zoneode
