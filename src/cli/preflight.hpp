// The checks a run makes before any work (README.md, "Before any work"): on what each rank reads
// and where the run will write. Every failure is bad input: exit 2, one message naming the file,
// key or option and, where ranks disagree, the ranks and what differs; nothing is written first.
//
// Both calls are collective. A rank's own failure (a file it cannot read) is agreed on before any
// rank goes on, so no rank is left waiting in a later collective call (the stalls of issue 18).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "deck/deck.hpp"
#include "decomposition/mpi_context.hpp"
#include "network/network.hpp"

namespace zoneode {

// The network as the run integrates it: network_hash(network) in hex, and with partition functions
// on, the content of the table they come from folded in (a table differing on one rank, or edited
// between a stop and --restart, changed the results unseen: the state files' network_hash now
// differs). `described` names it in messages ("network hash H" and the table). A table given in
// physics.partition_table that names none of the network's species is an InputError (none of its
// rows applies: it gave the option-off result unseen); the shipped table naming none gives `warning`.
struct IntegratedNetwork {
  std::string hash;
  std::string described;
  std::string warning;
  std::string partition_table;  // with partition functions: "PATH: N bytes, content HASH" (state files' attribute)
};
IntegratedNetwork integrated_network(const Deck& deck, const Network& network);

// Once the deck and network are read: every rank read the same deck (resolved) and network; the
// zone file (--restart, else zones.from_file) is a regular file on every rank, and every rank sees
// the same one (its size and content; a restart file's outer step); a restart file holds an
// outer step, and its stored deck matches this one in every key that changes results
// (results_relevant_keys) unless options.restart_allow_changed.
void check_inputs_before_any_work(const CliOptions& options, const Deck& deck, const IntegratedNetwork& network,
                                  const MpiContext& mpi);

// Once the outer steps are known (first_step: the first this run integrates): every output path
// follows one rule (check_output_paths); the output folders exist (made where missing) and every
// rank that writes in one can (state files: every rank; the summary: rank 0).
void check_outputs_before_any_work(const CliOptions& options, const Deck& deck, std::int64_t first_step,
                                   std::int64_t last_step, const MpiContext& mpi);

// Whether a summary at `path` is written into the file there rather than through PATH.partial and a
// rename: a character device or FIFO (links followed: /dev/null, a terminal, a pipe), or a
// link through /proc (/dev/stdout -> /proc/self/fd/1: a process's open file, a redirected log).
bool written_in_place(const std::string& path);

// The state files PREFIX_stepNNNNNN.h5 that exist, of outer step first_step or later, by step.
struct StepFile {
  std::string path;
  std::int64_t step = 0;
};
std::vector<StepFile> state_files_from(const std::string& prefix, std::int64_t first_step);

// --force starts the prefix afresh: once every check has passed and the zones are read, before the
// first write, the prefix's state files from the run's first written outer step on (0, or the step
// after the --restart file's) and its checkpoint are removed, inputs of the run excepted; without
// --force such files are refused before any work. So a stopped or failed --force run leaves its own
// files only, never a mix with an earlier run's (docs/USAGE.md, "Outputs"). Rank 0; returns the
// files removed; throws std::runtime_error when one cannot be.
std::vector<std::string> remove_earlier_run_files(const CliOptions& options, const Deck& deck, std::int64_t first_step);

// `zoneode network export`: its --output follows the same rule as a run's outputs.
void check_network_export_path(const CliOptions& options, const Deck& deck);

// ---- The parts, for the tests ----

// The keys of a resolved deck that change a run's results once its zones are given: every key of
// `integrator` and `physics`, and steps.temperature_factor and steps.density_factor. A restart
// continues the run of its file only where these are the same (zones.*, output.*, run.*,
// validation.* and steps.count may differ; the network is compared by its hash).
bool results_relevant_key(const std::string& dotted_key);

// The results-relevant keys whose values differ between two resolved decks (YAML text), as
// "key: A (file) vs B (this run)" items. Keys absent from `stored` (a deck of an older zoneode)
// are not compared. Throws InputError when `stored` is no deck (not YAML, or no integrator).
std::vector<std::string> changed_results_keys(const std::string& stored, const std::string& current);

// Digest of a file's content: its size and a 64-bit hash of its bytes (every byte up to 64 MiB;
// larger files: the first and last 16 MiB and 512 windows of 64 KiB spread over the rest, 64 MiB
// in all: every rank reads it).
// Throws InputError naming `what` and the file when it is no regular file or cannot be read.
struct FileDigest {
  std::uint64_t size = 0;
  std::uint64_t hash = 0;
};
FileDigest file_digest(const std::string& path, const std::string& what);

// The kind of file at `path` when it is not a regular one ("a directory", "a FIFO", ...), "" for
// a regular file (symbolic links followed); "no such file" when nothing is there.
std::string non_regular_kind(const std::string& path);

// Path identity, as a rename sees it: an output replaces the directory entry it names (its folder
// resolved, its own name not followed); an input is lost when that entry is the input's own or
// the file it resolves to (both returned).
std::string output_identity(const std::string& path);
std::string resolved_folder(const std::string& folder);  // absolute, symbolic links resolved
std::vector<std::string> input_identities_of(const std::string& path);

// Files an output may replace without --force, being of its own kind: a checkpoint (HDF5,
// attribute checkpoint = 1) and a zoneode JSON summary.
bool is_zoneode_checkpoint(const std::string& path);
bool is_zoneode_summary(const std::string& path);

// Ranks as a short list: "1", "1, 3", "1-3, 5".
std::string rank_list(const std::vector<int>& ranks);

}  // namespace zoneode
