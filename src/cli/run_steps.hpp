// The steps of a run (run_deck, src/cli/run.cpp) and the Run they share:
//
//   set_up_run            deck, network, plan, backend, zones, self-check; writes step 0 (run_setup.cpp)
//   integrate_outer_step  every zone over one outer step, its statistics and self-check (run_steps.cpp)
//   write_step            a snapshot of the state into a StateSnapshot, then the file (run_output.cpp);
//                         with output.overlap the file is written while the next step integrates
//   stop_agreed, rebalance_zones, print_progress   between outer steps (run_steps.cpp)
//   finish_run            reductions, summary, exit code (run.cpp)
//
// Every step is collective: all ranks call it, and an error on any rank is reported once and
// thrown as ReportedError on all (collectively).
#pragma once

#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "cli/cli.hpp"
#include "cli/report.hpp"
#include "cli/self_check.hpp"
#include "common/errors.hpp"
#include "decomposition/decomposition.hpp"
#include "decomposition/mpi_context.hpp"
#include "deck/deck.hpp"
#include "io/async_writer.hpp"
#include "io/hdf5_state.hpp"
#include "io/provenance.hpp"
#include "network/compact.hpp"
#include "network/network.hpp"
#include "zones/zone_batch.hpp"

namespace zoneode {

// Runs `work` on every rank. If it throws on any rank, the lowest such rank prints its message and
// every rank throws ReportedError(code), or ReportedError(exit_input_error) where that rank's error
// is an InputError (bad input found in a step that can also fail at run time, such as a backend's
// preparation): ranks never diverge on an error.
template <typename Work>
void collectively(const MpiContext& mpi, int code, Work&& work) {
  bool failed = false, input = false;
  std::string message;
  try {
    work();
  } catch (const ReportedError&) {
    throw;
  } catch (const InputError& error) {
    failed = input = true;
    message = error.what();
  } catch (const std::exception& error) {
    failed = true;
    message = error.what();
  }
  const int reporter = mpi.first_rank_with(failed);
  if (reporter < 0) return;
  if (mpi.first_rank_with(input) == reporter) code = exit_input_error;
  if (reporter == mpi.rank()) {
    std::cerr << "zoneode: " << (mpi.size() > 1 && reporter > 0 ? "rank " + std::to_string(reporter) + ": " : "")
              << message << "\n";
  }
  throw ReportedError(code);
}

// Which zones this run integrates, from where, and over which outer steps.
struct RunPlan {
  std::int64_t zones = 0;
  std::int64_t first_step = 1;
  std::int64_t last_step = 1;
  std::string zone_file;   // the restart or from_file state file; "" when the deck builds the zones
  std::string zones_from;  // where the zone count comes from, for errors: the deck key or file and dataset
  ZoneBlock block;         // this rank's
};

// One state file as taken after an outer step: where it goes, its attributes, and this rank's zones.
// The per-zone result columns are copies this struct owns (sized at set-up, so that a run that
// cannot hold them stops before any work; resized when rebalancing changed the rank's zones). T9,
// rho and abundances are borrowed from the batch, valid until the next outer step integrates; a
// snapshot written beside that step holds copies (own_zone_state), sized the same way.
struct StateSnapshot {
  std::string file;
  StateAttributes attributes;  // attributes.checkpoint: the checkpoint of a stopped run, not an output
  std::int64_t global_zones = 0;
  ZoneBlock block;  // this rank's
  const double* abundances = nullptr;
  const double* temperature = nullptr;
  const double* density = nullptr;
  std::vector<double> energy_generation_rate;
  std::vector<std::int64_t> integrator_steps;
  std::vector<std::int32_t> status;
  std::vector<double> time_reached;
  // The copies of an overlapped write.
  std::vector<double> abundance_copy;
  std::vector<double> temperature_copy;
  std::vector<double> density_copy;

  // Copies the borrowed T9, rho and abundances (block.count zones of `species`) and points at the copies.
  void own_zone_state(int species);
  // What write_state_file reads (pointers into this snapshot, and into the batch unless owned).
  LocalState local_state() const {
    return {global_zones, block, abundances, temperature, density, energy_generation_rate.data(),
            integrator_steps.data(), status.data(), time_reached.data()};
  }
};

// The overlapped output (deck output.overlap): the snapshot of outer step k waits between
// write_step and step k+1, and is written by `writer` while step k+1 integrates.
struct OverlappedOutput {
  bool enabled = false;       // output.overlap, an MPI with MPI_THREAD_SERIALIZED, and a write before the last step
  std::string disabled_why;   // for the run header, when output.overlap asked for it but it is off
  std::unique_ptr<AsyncWriter> writer;
  bool pending = false;       // run.snapshot holds a state to write beside the next integration
  bool written = false;       // `outcome` holds a write done beside the integration, not yet reported
  AsyncWriter::Outcome outcome;
  std::uint64_t file_bytes = 0;  // the size of that file (rank 0), set by the writer
  double wait_seconds = 0.0;     // [s] this rank's wait for that write after its integration ended
};

// This rank's own figures over the outer steps, reduced over ranks by finish_run.
struct RankTotals {
  double integrate_seconds = 0.0;
  std::int64_t integrator_steps = 0;  // accepted and rejected, of this rank's zones
  std::int64_t zones_received = 0;    // from other ranks, by the cost decomposition
  double max_mass_drift = 0.0;        // over zones and outer steps (each step's drift is from its own start)
};

// Everything one run holds. Not movable: the self-check keeps references to the network and batch.
struct Run {
  Run(const CliOptions& options, const MpiContext& mpi);
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  const CliOptions& options;
  const MpiContext& mpi;
  const double start;            // [s] MPI_Wtime() when the run began
  std::ostringstream discarded;  // what ranks other than 0 print
  std::ostream& out;             // rank 0 speaks for all: std::cout there, `discarded` elsewhere
  std::string cpu_list;          // the CPUs this rank may run on, read before the backend starts threads

  Deck deck;
  Network network;
  std::optional<CompactNetwork> compact;  // of `network`, made with it
  std::string network_hash;               // hex
  std::string partition_table;            // with partition functions: "PATH: N bytes, content HASH" (state files)
  RunPlan plan;
  std::unique_ptr<Backend> backend;
  Provenance provenance;  // written alike into the summary and every state file
  ZoneBatch batch;
  std::unique_ptr<SelfCheck> self_check;  // when validation.sample_zones > 0
  StateSnapshot snapshot;                 // the buffers of every state-file write
  OverlappedOutput overlapped;
  RunSummary summary;

  // The outer steps' bookkeeping.
  std::vector<std::int64_t> cuts;   // the blocks of every rank
  RankTotals rank_totals;
  double loop_start = 0.0;          // [s] MPI_Wtime() before the first outer step (and the step-0 file)
  double last_progress = 0.0;       // [s] MPI_Wtime() of the last progress line
  std::int64_t stopped_after = -1;  // the outer step after which a signal stopped the run; -1: none
};

// Set-up: everything before the first outer step, including the initial state's file (step 0).
void set_up_run(Run& run);
// physics.screening: weak: counts the zones whose largest screening exponent H exceeds 1 at their
// current state, and the largest H, into the summary (the set-up's state and after every outer step).
void check_weak_screening(Run& run);
// Zones above T9 10, where every REACLIB fit is held at T9 10 (network/rates.hpp): counted, with the
// hottest T9 and the rate sets whose fits would change most beyond 10, into the summary (the
// set-up's state and after every outer step: self-heating may cross it).
void check_fit_range(Run& run);
// Integrates every zone over one outer step, applies the prescribed T9 and rho history, adds the
// step's statistics and runs the self-check.
void integrate_outer_step(Run& run);
// An output of the deck (output.prefix, .every, .initial), or the checkpoint of a stopped run.
enum class StateFileKind { output, checkpoint };
// Writes the state after `step`.
void write_step(Run& run, std::int64_t step, StateFileKind kind);
// The two halves of write_step: the state taken into run.snapshot, and that snapshot written.
StateSnapshot& take_snapshot(Run& run, std::int64_t step, StateFileKind kind);
void write_snapshot(Run& run, const StateSnapshot& snapshot);
// The overlapped write, around integrate_outer_step's integration: started after the last MPI call
// before it and waited for before the next (no MPI call on this thread meanwhile: io/async_writer.hpp),
// then reported collectively (an error on any rank ends the run on all, as a synchronous write's).
void start_pending_write(Run& run);
void wait_pending_write(Run& run);
void report_overlapped_write(Run& run);
// Writes a pending snapshot now (the loop's end, a checkpoint, an error): no state is left unwritten.
void drain_output(Run& run);
// After a collective error between write_step and the next integration: the pending file written as
// the synchronous write would have, before the error ends the run (its own failure only printed).
void drain_output_after_error(Run& run);
// Stop requests (SIGTERM, SIGUSR1), agreed by all ranks; writes the checkpoint. True: leave the loop.
bool stop_agreed(Run& run, std::int64_t step);
// The cost decomposition: re-cuts the blocks by the step just done and moves zones between ranks.
void rebalance_zones(Run& run, std::int64_t step);
// At most one line per options.progress_seconds, none with --quiet or after the last step.
void print_progress(Run& run, std::int64_t step);
// Reduces and reports the run; returns its exit code.
int finish_run(Run& run);

}  // namespace zoneode
