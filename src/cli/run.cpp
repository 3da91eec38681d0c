// A run: read the deck, build this rank's zones, integrate them over the outer steps through one
// backend, write the state files and report. Nothing here depends on which backend or method runs:
// backends/backend.hpp is the only interface used. The steps are in run_steps.hpp.
#include <mpi.h>

#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <utility>

#include "cli/preflight.hpp"
#include "cli/run_steps.hpp"
#include "common/atomic_file.hpp"
#include "common/fnv1a.hpp"

namespace zoneode {

namespace {

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

// Each rank's own totals over the outer steps, as min / mean / max over ranks.
void add_rank_spreads(const MpiContext& mpi, const RankTotals& totals, RunSummary& summary) {
  summary.integrate_seconds_per_rank = {mpi.min(totals.integrate_seconds),
                                        mpi.sum_double(totals.integrate_seconds) / mpi.size(),
                                        mpi.max(totals.integrate_seconds)};
  summary.integrator_steps_per_rank = {mpi.min(static_cast<double>(totals.integrator_steps)),
                                       static_cast<double>(mpi.sum(totals.integrator_steps)) / mpi.size(),
                                       mpi.max(static_cast<double>(totals.integrator_steps))};
  summary.zones_moved = mpi.sum(totals.zones_received);
  summary.max_mass_drift = mpi.max(totals.max_mass_drift);
}

// Through PATH.partial and a rename, but into a terminal, /dev/null, a pipe or this process's own
// output (/dev/stdout) as it is (cli/preflight.hpp, written_in_place): renamed over, /dev/stdout
// itself became a regular file (as root). This process's standard output or error is written
// through its stream: opened again, the file's other offset would overwrite or be overwritten.
void write_summary_file(const std::string& path, const std::string& text) {
  if (!written_in_place(path)) return write_file_atomically(path, text);
  struct stat target {}, standard {};
  const bool found = stat(path.c_str(), &target) == 0;
  for (const auto& [descriptor, stream] : {std::pair<int, std::ostream*>{1, &std::cout}, {2, &std::cerr}}) {
    if (found && fstat(descriptor, &standard) == 0 && standard.st_dev == target.st_dev &&
        standard.st_ino == target.st_ino) {
      *stream << text << std::flush;
      return;
    }
  }
  std::ofstream out(path, std::ios::binary | std::ios::app);  // no truncation: a FIFO, a terminal
  out << text << std::flush;
  if (!out) throw std::runtime_error("cannot write the summary to '" + path + "': " + std::strerror(errno));
}

}  // namespace

int finish_run(Run& run) {
  const MpiContext& mpi = run.mpi;
  RunSummary& summary = run.summary;
  add_rank_spreads(mpi, run.rank_totals, summary);
  add_final_statistics(run.batch, mpi, summary);
  summary.stopped_after_outer_step = run.stopped_after;
  // The backends' own decisions (the GPU's implicit final: its calibrated kernel), each distinct one once.
  const std::vector<std::string> notes = mpi.gather(run.backend ? run.backend->notes() : std::string());
  for (std::size_t r = 0; r < notes.size(); ++r) {
    if (notes[r].empty() || summary.backend_notes.find(notes[r]) != std::string::npos) continue;
    summary.backend_notes += (summary.backend_notes.empty() ? "" : "; ") +
                             (notes.size() > 1 ? "rank " + std::to_string(r) + ": " : std::string()) + notes[r];
  }
  if (run.stopped_after >= 0 && !run.deck.output.prefix.empty()) summary.checkpoint = run.deck.output.checkpoint_file();

  print_summary(summary, run.out);
  if (!run.deck.run.summary.empty()) {
    collectively(mpi, exit_runtime_error, [&] {
      if (mpi.root()) write_summary_file(run.deck.run.summary, summary_json(summary));
    });
    run.out << "summary written to " << run.deck.run.summary << "\n";
  }
  if (summary.failed_zone_steps > 0 && mpi.root())
    std::cerr << "zoneode: " << summary.failed_zone_steps << " zone-step(s) failed, " << summary.failed_zones()
              << " zone(s) in the last outer step (a failed zone keeps its last state that passed the checks)\n";
  if (run.stopped_after >= 0) return exit_stopped;  // unfinished: resubmit from the checkpoint
  if (summary.failed_zone_steps > 0) return exit_zones_failed;
  return exit_success;
}

int run_deck(const CliOptions& options, const MpiContext& mpi) {
  Run run(options, mpi);
  set_up_run(run);
  try {
    for (std::int64_t step = run.plan.first_step; step <= run.plan.last_step; ++step) {
      integrate_outer_step(run);
      if (run.deck.output.writes(step, run.plan.last_step)) write_step(run, step, StateFileKind::output);
      if (stop_agreed(run, step)) break;
      rebalance_zones(run, step);
      print_progress(run, step);
    }
    drain_output(run);
  } catch (const ReportedError&) {
    drain_output_after_error(run);  // every rank is here: ReportedError is thrown collectively
    throw;
  }
  run.summary.loop_seconds = mpi.max(MPI_Wtime() - run.loop_start);
  run.summary.output_overlapped = run.overlapped.enabled;
  run.summary.output_storage = run.deck.output.storage.describe();
  return finish_run(run);
}

}  // namespace zoneode
