// The checks before any work (cli/preflight.hpp): the ranks agree on their inputs, and every output
// path follows one rule. Parts that need no MPI (the digest, the deck comparison, path identity)
// are in preflight_parts.cpp.
#include "cli/preflight.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <utility>
#include <vector>

#include "cli/report.hpp"
#include "common/atomic_file.hpp"
#include "common/errors.hpp"
#include "common/file_kind.hpp"
#include "common/fnv1a.hpp"
#include "io/hdf5_state.hpp"
#include "io/state_layout.hpp"
#include "io/write_watchdog.hpp"
#include "physics/partition_table.hpp"

namespace zoneode {

namespace {

namespace fs = std::filesystem;

// Each rank's own error ("" for none): the lowest rank with one prints it, every rank throws. So a
// failure on one rank never leaves the others waiting in a later collective call.
void agree_no_error(const MpiContext& mpi, const std::string& error) {
  const int reporter = mpi.first_rank_with(!error.empty());
  if (reporter < 0) return;
  if (reporter == mpi.rank())
    std::cerr << "zoneode: " << (mpi.size() > 1 && reporter > 0 ? "rank " + std::to_string(reporter) + ": " : "")
              << error << "\n";
  throw ReportedError(exit_input_error);
}

template <typename Work>
std::string error_of(Work&& work) {
  try {
    work();
  } catch (const ReportedError&) {
    throw;
  } catch (const std::exception& error) {
    return error.what();
  }
  return {};
}

// Rank 0 decides (`decide` on rank 0 returns the message, "" when all is well); every rank throws
// when it is not empty, rank 0 printing it.
void refuse_if(const MpiContext& mpi, const std::string& message_on_root) {
  const std::string message = mpi.broadcast(mpi.root() ? message_on_root : std::string(), 0);
  if (message.empty()) return;
  if (mpi.root()) std::cerr << "zoneode: " << message << "\n";
  throw ReportedError(exit_input_error);
}

// Every rank's view of something it reads: `key` what must agree, `view` how it is named (the key
// and, say, the path, which may differ: copies on node-local disks). Where keys differ, the ranks
// are grouped by key and rank 0 names them: "the ranks see different WHAT: rank 0: V0; ranks 1-3:
// V1: ADVICE", then every rank throws.
void agree_views(const MpiContext& mpi, const std::string& what, const std::string& key, const std::string& view,
                 const std::string& advice) {
  const std::vector<std::string> keys = mpi.gather(key), views = mpi.gather(view);
  std::string message;
  struct Group {
    const std::string* key;
    const std::string* view;
    std::vector<int> ranks;
  };
  std::vector<Group> groups;
  for (int rank = 0; rank < static_cast<int>(keys.size()); ++rank) {
    auto group = groups.begin();
    while (group != groups.end() && *group->key != keys[rank]) ++group;
    if (group == groups.end()) groups.push_back({&keys[rank], &views[rank], {rank}});
    else group->ranks.push_back(rank);
  }
  if (groups.size() > 1) {
    constexpr std::size_t most_named = 3;
    message = "the ranks see different " + what + ": ";
    for (std::size_t g = 0; g < groups.size() && g < most_named; ++g)
      message += std::string(g > 0 ? "; " : "") + (groups[g].ranks.size() > 1 ? "ranks " : "rank ") +
                 rank_list(groups[g].ranks) + ": " + *groups[g].view;
    if (groups.size() > most_named) message += "; and " + std::to_string(groups.size() - most_named) + " more";
    message += ": " + advice;
  }
  refuse_if(mpi, message);
}

// A path in full (a path is at most PATH_MAX long, and the user needs all of it).
std::string quoted(const std::string& path) {
  std::string text = path;  // appended, not "'" + std::string&&: a GCC 12 -Wrestrict false positive
  text.insert(text.begin(), '\'');
  text += '\'';
  return text;
}

std::string folder_of(const std::string& file) {
  const fs::path folder = fs::path(file).parent_path();
  return folder.empty() ? "." : folder.string();
}

// Creates `folder` where missing; InputError with the system's reason otherwise.
void create_folder(const std::string& folder) {
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) throw InputError("cannot create the output folder '" + folder + "': " + error.message());
}

// Makes and removes a file in `folder` (access() is not enough: root ignores permission bits, not a
// read-only file system). "" when that works, else the system's reason.
std::string probe_folder(const std::string& folder) {
  std::string probe = (fs::path(folder) / ".zoneode-write-probe-XXXXXX").string();
  const int descriptor = mkstemp(probe.data());
  if (descriptor < 0) return std::strerror(errno);
  close(descriptor);
  if (unlink(probe.c_str()) != 0) return std::string("cannot remove its probe file: ") + std::strerror(errno);
  return {};
}

// The folder `folder` of `of` must be writable from every rank in `writers` (all ranks, or rank 0).
void agree_folder_writable(const MpiContext& mpi, const std::string& folder, const std::string& of, bool every_rank) {
  const std::string reason = every_rank || mpi.root() ? probe_folder(folder) : std::string();
  const std::vector<std::string> reasons = mpi.gather(reason);
  std::string message;
  std::vector<int> failed, fine;
  for (int rank = 0; rank < static_cast<int>(reasons.size()); ++rank)
    (reasons[rank].empty() ? fine : failed).push_back(rank);
  if (!failed.empty()) {
    const std::string what = "cannot write in the output folder " + quoted(folder) + " of " + of;
    if (!every_rank || mpi.size() == 1 || fine.empty()) {
      message = what + ": " + reasons[failed.front()];
    } else {
      // One rank alone seeing it read-only stalled the others at the first write.
      message = what + " from " + (failed.size() > 1 ? "ranks " : "rank ") + rank_list(failed) + ": " +
                reasons[failed.front()] + "; " + (fine.size() > 1 ? "ranks " : "rank ") + rank_list(fine) +
                " can: every rank writes its zones there, so every rank must see it writable (a node-local "
                "or read-only mount?)";
    }
  }
  refuse_if(mpi, message);
}

// ---- The output path rule ----

struct OutputPath {
  std::string path;
  std::string what;  // "summary 'S'", "the state file 'P_step000003.h5' of outer step 3"
  enum Kind { state_file, checkpoint, summary, network_export } kind;
  std::string key;  // the key or option that named it: "output.prefix", "--summary (run.summary)"
};

// The longest names the file system and MPI-IO take. Past them the run failed only at its first
// write, after the integration (issue 40): a state file's name over 234 characters was "cannot
// create" (exit 1), over about 240 an abort inside MPI_File_open (glibc's "buffer overflow detected" in
// Open MPI's sharedfp lockedfile component), a summary's name over 255 exit 1 at its write.
constexpr std::size_t most_name_characters = NAME_MAX;  // [bytes] one path component (Linux: 255)
constexpr std::size_t most_path_characters = PATH_MAX - 1;  // [bytes] a whole path (Linux: 4095)
// [bytes] Open MPI's lockedfile component makes NAME-JOBID-PID.lock beside each file it opens:
// up to 10 digits of job id and 7 of pid (measured with 4.1.4: a name of 234 characters passed
// with a 9-digit job id and 5-digit pid, 235 failed, 255 - 234 = 21 = 1 + 9 + 1 + 5 + 5).
constexpr std::size_t mpi_io_side_file_characters = 24;

// A name (of the file as first written: PATH.partial) and a path within those limits, or an
// InputError naming the key, the name, its length and the limit.
void check_output_name_length(const OutputPath& output, const std::string& absolute_partial) {
  const bool mpi_io = output.kind == OutputPath::state_file || output.kind == OutputPath::checkpoint;
  const std::size_t extra = mpi_io ? mpi_io_side_file_characters : 0;
  const std::string partial_name = fs::path(absolute_partial).filename().string();
  const std::string why = mpi_io ? " less " + std::to_string(extra) +
                                       " for MPI-IO's lock file beside it (NAME-JOBID-PID.lock, Open MPI)"
                                 : std::string();
  if (partial_name.size() + extra > most_name_characters) {
    const std::size_t most = most_name_characters - extra;
    const std::size_t added = partial_name.size() - fs::path(output.path).filename().string().size();
    const char* const file = output.kind == OutputPath::state_file   ? "a state file"
                           : output.kind == OutputPath::checkpoint   ? "the checkpoint"
                           : output.kind == OutputPath::summary      ? "the summary"
                                                                     : "the network file";
    throw InputError(output.key + ": the file name '" + excerpt(partial_name, 60) + "' (" + file +
                     ", written first under this name) has " + std::to_string(partial_name.size()) +
                     " characters, expected at most " + std::to_string(most) + ": " +
                     std::to_string(most_name_characters) + " (NAME_MAX, a file name's most)" + why +
                     (output.kind == OutputPath::state_file || output.kind == OutputPath::checkpoint
                          ? "; shorten the prefix's last part by " + std::to_string(partial_name.size() - most) +
                                " character(s)"
                          : "; the name itself at most " + std::to_string(most - added) + " characters"));
  }
  if (absolute_partial.size() + extra > most_path_characters)
    throw InputError(output.key + ": the path '" + excerpt(absolute_partial, 60) + "' has " +
                     std::to_string(absolute_partial.size()) + " characters as an absolute path, expected at most " +
                     std::to_string(most_path_characters - extra) + ": " + std::to_string(most_path_characters) +
                     " (PATH_MAX less one)" + why);
}

struct InputPath {
  std::string path;
  std::string what;
  bool restart = false;  // the --restart file
};

std::vector<InputPath> inputs_of(const CliOptions& options, const Deck& deck) {
  std::vector<InputPath> inputs{{options.deck, "the deck"}};
  if (!deck.network.file.empty()) inputs.push_back({deck.network.file, "network.file"});
  if (!deck.network.nuclides_file.empty()) inputs.push_back({deck.network.nuclides_file, "network.nuclides_file"});
  if (!deck.physics.partition_table.empty()) inputs.push_back({deck.physics.partition_table, "physics.partition_table"});
  if (!deck.zones.from_file.empty()) inputs.push_back({deck.zones.from_file, "zones.from_file"});
  if (!options.restart.empty()) inputs.push_back({options.restart, "--restart", true});
  return inputs;
}

// Whether an existing output may be replaced without --force: only a file of its own kind, which
// is rewritten by design: a resubmitted job's checkpoint (by a run that continues one: --restart;
// a fresh run replaced a stopped run's checkpoint without a word, issue 40), a campaign's summary.
bool replaceable_without_force(const OutputPath& output, bool restart) {
  if (output.kind == OutputPath::checkpoint) return restart && is_zoneode_checkpoint(output.path);
  if (output.kind == OutputPath::summary) return is_zoneode_summary(output.path);
  return false;
}

// The one rule for every output path: never an input of the run, never another of its outputs; an
// existing file only with --force (or a file of its own kind, above); never a directory or another
// kind of file, --force or not. Names the output, the path and the reason.
void check_output_paths(const std::vector<OutputPath>& outputs, const std::vector<InputPath>& inputs, bool force,
                        bool restart = false) {
  std::vector<std::vector<std::string>> input_identities;
  for (const InputPath& input : inputs) input_identities.push_back(input_identities_of(input.path));
  // Up to a million state files share one folder: it is resolved once.
  std::map<std::string, std::string> folders;
  // Each output is written as PATH.partial first (common/atomic_file.hpp), truncating whatever is
  // there and renaming it away: that name is compared with the inputs and the outputs too.
  std::vector<std::string> identities, partial_identities;
  for (const OutputPath& output : outputs) {
    const fs::path absolute = fs::absolute(output.path);
    auto folder = folders.find(absolute.parent_path().string());
    if (folder == folders.end())
      folder = folders.emplace(absolute.parent_path().string(), resolved_folder(absolute.parent_path().string())).first;
    identities.push_back((fs::path(folder->second) / absolute.filename()).string());
    partial_identities.push_back(partial_path(identities.back()));
    check_output_name_length(output, partial_path(absolute.string()));
  }
  std::map<std::string, std::size_t> output_with_identity;  // up to a million state files: no pairwise loop
  for (std::size_t k = 0; k < outputs.size(); ++k) output_with_identity.emplace(identities[k], k);
  const auto is_input = [&](std::size_t i, const std::string& identity) {
    for (const std::string& id : input_identities[i])
      if (id == identity) return true;
    return false;
  };
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const OutputPath& output = outputs[k];
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (is_input(i, partial_identities[k]))
        throw InputError(output.what + " is written first as " + quoted(partial_path(output.path)) + ", which is " +
                         inputs[i].what + " " + quoted(inputs[i].path) + ", an input of this run: choose another path");
      // A checkpoint replaces the one a resubmitted run restarted from: read in full before.
      if (!is_input(i, identities[k]) || (output.kind == OutputPath::checkpoint && inputs[i].restart)) continue;
      throw InputError(output.what + " would replace " + inputs[i].what + " " + quoted(inputs[i].path) +
                       ", an input of this run: choose another path");
    }
    if (const auto other = output_with_identity.find(partial_identities[k]); other != output_with_identity.end())
      throw InputError(output.what + " is written first as " + quoted(partial_path(output.path)) + ", which is " +
                       outputs[other->second].what + ", another output of this run: choose another path");
    // The state files differ by name; the checkpoint and the summary are compared with all.
    if (output.kind == OutputPath::state_file) continue;
    for (std::size_t j = 0; j < outputs.size(); ++j) {
      if (j != k && identities[j] == identities[k])
        throw InputError(output.what + " would replace " + outputs[j].what +
                         ", another output of this run: choose another path");
    }
  }
  for (const OutputPath& output : outputs) {
    std::error_code error;
    const fs::file_status status = fs::symlink_status(output.path, error);
    if (!fs::exists(status)) continue;
    // A summary to a terminal, /dev/null or a pipe (through a link: /dev/stdout) is written into
    // it: nothing is replaced (renamed over, as root, /dev/stdout became a regular file).
    if (output.kind == OutputPath::summary && written_in_place(output.path)) continue;
    if (fs::is_directory(status))
      throw InputError(output.what + " is a directory: choose another path (--force never replaces a directory)");
    if (!fs::is_regular_file(status) && !fs::is_symlink(status))
      throw InputError(output.what + " is " + file_kind_name(status.type()) +
                       ": choose another path (--force never replaces one)");
    if (fs::is_symlink(status)) {
      const fs::file_status target = fs::status(output.path, error);
      if (fs::exists(target) && !fs::is_regular_file(target))
        throw InputError(output.what + " is a link to " + file_kind_name(target.type()) +
                         ": choose another path (--force never replaces one)");
    }
    if (force || replaceable_without_force(output, restart)) continue;
    if (output.kind == OutputPath::checkpoint && is_zoneode_checkpoint(output.path))
      throw InputError(quoted(output.path) + " is the checkpoint of an earlier run that stopped: continue that run "
                       "with --restart " + quoted(output.path) + ", or use --force to start afresh and replace it");
    const std::string kind = output.kind == OutputPath::checkpoint ? " and is no zoneode checkpoint"
                           : output.kind == OutputPath::summary    ? " and is no zoneode summary"
                                                                   : "";
    throw InputError(quoted(output.path) + " exists" + kind + "; use --force to overwrite it");
  }
}

}  // namespace

IntegratedNetwork integrated_network(const Deck& deck, const Network& network) {
  IntegratedNetwork integrated;
  const std::uint64_t hash = network_hash(network);
  integrated.hash = hex64(hash);
  integrated.described = "network hash " + integrated.hash;
  if (!deck.physics.partition_functions) return integrated;
  const bool given = !deck.physics.partition_table.empty();
  const std::string table_path = given ? deck.physics.partition_table : default_partition_table_path();
  const std::string what = given ? "physics.partition_table" : "the shipped partition table";
  const FileDigest digest = file_digest(table_path, what);
  Fnv1a folded;
  folded.add(hash);
  folded.add(digest.size);
  folded.add(digest.hash);
  integrated.hash = hex64(folded.value);
  integrated.described = "network hash " + integrated.hash + " (with " + what + " " + quoted(table_path) + ", " +
                         std::to_string(digest.size) + " bytes, content " + hex64(digest.hash) + ")";
  integrated.partition_table =
      table_path + ": " + std::to_string(digest.size) + " bytes, content " + hex64(digest.hash);
  const PartitionTable table = read_partition_table(table_path);
  int tabulated = 0;
  for (const Species& species : network.species) tabulated += table.find(species.name) != nullptr ? 1 : 0;
  if (tabulated == 0) {
    const std::string message = what + " " + quoted(table_path) + " names none of the network's " +
                                std::to_string(network.species_count()) +
                                " species: none of its rows applies to this network";
    if (given) throw InputError(message + ": expected a table with rows for the network's nuclides");
    integrated.warning = message;
  }
  return integrated;
}

void check_inputs_before_any_work(const CliOptions& options, const Deck& deck, const IntegratedNetwork& network,
                                  const MpiContext& mpi) {
  const std::string& network_hash = network.hash;
  Fnv1a deck_hash;
  deck_hash.bytes(deck.resolved_yaml.data(), deck.resolved_yaml.size());
  const std::string deck_key = "resolved deck " + hex64(deck_hash.value);
  agree_views(mpi, "decks", deck_key, "deck " + quoted(options.deck) + " (" + deck_key + ")",
              "start every rank with the same deck, options and files");
  agree_views(mpi, "networks", network_hash,
              (deck.network.file.empty() ? "" : quoted(deck.network.file) + ", ") + network.described,
              "every rank must read the same network and data files");

  const bool restart = !options.restart.empty();
  const std::string file = restart ? options.restart : deck.zones.from_file;
  if (file.empty()) return;
  const std::string what = restart ? "--restart" : deck.zones.from_file_where + ": zones.from_file";
  // Each rank reads its own zones of the file: every rank must see the same file (the restart
  // file's outer step too: ranks at different steps waited on each other in the first write).
  FileDigest digest;
  agree_no_error(mpi, error_of([&] { digest = file_digest(file, what); }));
  StateFileInfo info;
  const std::string info_error = restart ? error_of([&] { info = read_state_info(file); }) : std::string();
  const std::string file_key =
      (restart ? info_error.empty() ? "outer_step " + std::to_string(info.outer_step) + ", " : "unreadable, " : "") +
      std::to_string(digest.size) + " bytes, content " + hex64(digest.hash);
  agree_views(mpi, restart ? "restart files" : "zones.from_file files", file_key, quoted(file) + ": " + file_key,
              "every rank must read the same file (copies on node-local disks must be identical)");
  if (!restart) return;
  agree_no_error(mpi, info_error);
  if (!info.has_outer_step)
    refuse_if(mpi, "--restart: " + quoted(file) + " has no attribute " + state_layout::outer_step.name +
                       ": expected a state file written by zoneode (zones from a snapshot: zones.from_file)");
  // The network is compared by its hash when the run is planned; the deck only for this network.
  if (info.network_hash != network_hash) return;
  std::string message;
  if (mpi.root()) {
    std::vector<std::string> changed;
    const std::string error = error_of([&] { changed = changed_results_keys(info.deck, deck.resolved_yaml); });
    std::string listed;
    for (std::size_t k = 0; k < changed.size() && k < 4; ++k) listed += (k ? "; " : "") + changed[k];
    if (changed.size() > 4) listed += "; and " + std::to_string(changed.size() - 4) + " more";
    if (!error.empty()) {
      message = "--restart: " + quoted(file) + ": its deck (attribute deck) cannot be compared with this one: " + error;
    } else if (!changed.empty()) {
      message = "--restart: " + quoted(file) +
                " was written by a deck with other values of keys that change results: " + listed +
                "; continue with the deck that wrote it";
    }
    if (!message.empty() && options.restart_allow_changed) {
      std::cerr << "zoneode: warning: " << message
                << " (--restart-allow-changed: continuing; the files will differ from an uninterrupted run's)\n";
      message.clear();
    } else if (!message.empty()) {
      message += ", or give --restart-allow-changed";
    }
  }
  refuse_if(mpi, message);
}

void check_outputs_before_any_work(const CliOptions& options, const Deck& deck, std::int64_t first_step,
                                   std::int64_t last_step, const MpiContext& mpi) {
  std::string error;
  if (mpi.root()) {
    error = error_of([&] {
      std::vector<OutputPath> outputs;
      for (std::int64_t step = options.restart.empty() ? 0 : first_step; step <= last_step; ++step) {
        if (!deck.output.writes(step, last_step)) continue;
        outputs.push_back({deck.output.file(step),
                           "the state file " + quoted(deck.output.file(step)) + " of outer step " + std::to_string(step),
                           OutputPath::state_file, "output.prefix"});
      }
      if (!deck.output.prefix.empty())
        outputs.push_back({deck.output.checkpoint_file(), "the checkpoint " + quoted(deck.output.checkpoint_file()),
                           OutputPath::checkpoint, "output.prefix"});
      if (!deck.run.summary.empty())
        outputs.push_back({deck.run.summary, "summary " + quoted(deck.run.summary), OutputPath::summary,
                           "run.summary (--summary)"});
      check_output_paths(outputs, inputs_of(options, deck), options.force, !options.restart.empty());
      if (!deck.output.prefix.empty() && !options.force) {
        const std::int64_t first_written = options.restart.empty() ? 0 : first_step;
        const std::vector<StepFile> earlier = state_files_from(deck.output.prefix, first_written);
        if (!earlier.empty()) {
          const std::string more = earlier.size() > 1 ? ", and " + std::to_string(earlier.size() - 1) + " more" : "";
          throw InputError(quoted(earlier.front().path) + " is a state file of an earlier run under output.prefix " +
                           "(outer step " + std::to_string(earlier.front().step) + more +
                           "): this run would leave it beside its own files; use another prefix, or --force to remove "
                           "the prefix's state files from outer step " + std::to_string(first_written) +
                           " on before the first write");
        }
      }
      if (!deck.output.prefix.empty()) create_folder(folder_of(deck.output.file(0)));
      if (!deck.run.summary.empty()) create_folder(folder_of(deck.run.summary));
    });
  }
  agree_no_error(mpi, error);
  // The write watchdog's limit, read by every rank from its own environment: a bad value is found
  // now, not at the first write after the integration.
  if (!deck.output.prefix.empty()) agree_no_error(mpi, error_of([] { write_timeout_seconds(); }));
  // Every rank writes its zones into the state files; rank 0 alone the summary.
  if (!deck.output.prefix.empty())
    agree_folder_writable(mpi, folder_of(deck.output.file(0)), "output.prefix " + quoted(deck.output.prefix), true);
  if (!deck.run.summary.empty() && !written_in_place(deck.run.summary))
    agree_folder_writable(mpi, folder_of(deck.run.summary), "summary " + quoted(deck.run.summary), false);
}

void check_network_export_path(const CliOptions& options, const Deck& deck) {
  check_output_paths({{options.output, "--output " + quoted(options.output), OutputPath::network_export, "--output"}},
                     inputs_of(options, deck), options.force);
}

bool written_in_place(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (fs::is_character_file(status) || fs::is_fifo(status)) return true;
  // A link through /proc (/dev/stdout -> /proc/self/fd/1) names a process's open file: renamed
  // over, the link itself would be replaced; resolved, the file open there (a redirected log).
  fs::path link = path;
  for (int hop = 0; hop < 40 && fs::is_symlink(fs::symlink_status(link, error)); ++hop) {
    fs::path target = fs::read_symlink(link, error);
    if (error) return false;
    if (target.is_relative()) target = link.parent_path() / target;
    if (target.lexically_normal().string().rfind("/proc/", 0) == 0) return true;
    link = target;
  }
  return false;
}

std::vector<StepFile> state_files_from(const std::string& prefix, std::int64_t first_step) {
  std::vector<StepFile> files;
  const fs::path prefix_path(prefix);
  const std::string stem = prefix_path.filename().string() + "_step";
  const fs::path folder = prefix_path.parent_path().empty() ? fs::path(".") : prefix_path.parent_path();
  std::error_code error;
  for (fs::directory_iterator entry(folder, error), end; !error && entry != end; entry.increment(error)) {
    const std::string name = entry->path().filename().string();
    // PREFIX_stepNNNNNN.h5, six digits or more (OutputDeck::file)
    if (name.size() < stem.size() + 9 || name.compare(0, stem.size(), stem) != 0 ||
        name.compare(name.size() - 3, 3, ".h5") != 0)
      continue;
    const std::string digits = name.substr(stem.size(), name.size() - stem.size() - 3);
    if (digits.size() < 6 || digits.size() > 12 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::int64_t step = std::stoll(digits);
    if (step < first_step) continue;
    files.push_back({(prefix_path.parent_path() / name).string(), step});
  }
  std::sort(files.begin(), files.end(), [](const StepFile& a, const StepFile& b) { return a.step < b.step; });
  return files;
}

std::vector<std::string> remove_earlier_run_files(const CliOptions& options, const Deck& deck, std::int64_t first_step) {
  std::vector<std::string> removed;
  if (!options.force || deck.output.prefix.empty()) return removed;
  std::vector<std::string> input_identities;
  for (const InputPath& input : inputs_of(options, deck))
    for (const std::string& identity : input_identities_of(input.path)) input_identities.push_back(identity);
  const auto is_input = [&](const std::string& path) {
    return std::find(input_identities.begin(), input_identities.end(), output_identity(path)) != input_identities.end();
  };
  std::vector<std::string> doomed;
  for (const StepFile& file : state_files_from(deck.output.prefix, options.restart.empty() ? 0 : first_step))
    doomed.push_back(file.path);
  if (is_zoneode_checkpoint(deck.output.checkpoint_file())) doomed.push_back(deck.output.checkpoint_file());
  for (const std::string& path : doomed) {
    if (is_input(path)) continue;  // read already; a checkpoint continued from is replaced at the next stop
    std::error_code error;
    if (!fs::remove(path, error) && error)
      throw std::runtime_error("--force: cannot remove " + quoted(path) + " of an earlier run: " + error.message());
    removed.push_back(path);
  }
  return removed;
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string text;
  for (std::size_t k = 0; k < ranks.size();) {
    std::size_t last = k;
    while (last + 1 < ranks.size() && ranks[last + 1] == ranks[last] + 1) ++last;
    text += (text.empty() ? "" : ", ") + std::to_string(ranks[k]) +
            (last > k ? (last == k + 1 ? ", " : "-") + std::to_string(ranks[last]) : "");
    k = last + 1;
  }
  return text;
}

}  // namespace zoneode
