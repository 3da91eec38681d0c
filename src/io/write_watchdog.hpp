// The write watchdog of the parallel-HDF5 write (io/hdf5_state.cpp).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/errors.hpp"
#include "common/numbers.hpp"

namespace zoneode {

// The last resort against a write error inside a collective HDF5 call. The ranks agree on
// failures between stages (write_state_file), but an error inside one call (the metadata flush of
// H5Fclose, or MPI-IO's collective buffering) makes HDF5 leave its collective steps early on the
// failing rank alone, and no rank returns to agree: every rank waits for ever. So each write runs
// under a watchdog: if it has not ended after ZONEODE_WRITE_TIMEOUT_S seconds (default 1800), this
// rank says why, removes the .partial and exits 1; the launcher (mpirun, srun) then ends the other
// ranks and exits 1 itself. Earlier state files are complete and stay.
inline constexpr double default_write_timeout_s = 1800.0;
inline constexpr double most_write_timeout_s = 1e7;  // about 116 days: beyond any batch job
// ZONEODE_WRITE_TIMEOUT_S in seconds, the whole value read as one number (1e3, 0.5), 0 < s <=
// most_write_timeout_s: atoi read 1e3 as 1 s, which ended normal writes, and 'abc' as the default.
// Unset or empty: the default. Anything else throws InputError naming the variable, its value and why
// (checked before any work: cli/preflight.cpp).
inline double write_timeout_seconds() {
  const char* text = std::getenv("ZONEODE_WRITE_TIMEOUT_S");
  if (text == nullptr || *text == '\0') return default_write_timeout_s;
  const std::optional<double> seconds = parse_whole_number(text);
  if (!seconds || !(*seconds > 0.0) || *seconds > most_write_timeout_s)
    throw InputError("environment variable ZONEODE_WRITE_TIMEOUT_S='" + excerpt(text) +
                     "': expected a number of seconds > 0 and <= 1e7 (the write watchdog's limit; unset: 1800)");
  return *seconds;
}

// Open MPI's sharedfp lockedfile component keeps PARTIAL-<id>-<pid>.lock beside the file while it is
// open; a run ended inside the write leaves them: removed with the .partial.
inline void remove_mpi_io_locks(const std::string& partial) {
  const std::filesystem::path path(partial);
  const std::string prefix = path.filename().string() + "-";
  std::error_code error;
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > prefix.size() + 5 && name.rfind(prefix, 0) == 0 && name.substr(name.size() - 5) == ".lock")
      std::filesystem::remove(entry.path(), error);
  }
}

class WriteWatchdog {
 public:
  WriteWatchdog(int rank, const std::string& partial) {
    const double seconds = write_timeout_seconds();
    thread_ = std::thread([this, rank, partial, seconds] {
      std::unique_lock lock(mutex_);
      if (ended_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; })) return;
      std::fprintf(stderr,
                   "zoneode: rank %d: writing '%s' did not end within %g s (ZONEODE_WRITE_TIMEOUT_S)%s%s; a "
                   "write error inside a collective HDF5 call leaves the other ranks waiting: ending the run\n",
                   rank, partial.c_str(), seconds, why_.empty() ? "" : " after: ", why_.c_str());
      std::remove(partial.c_str());
      remove_mpi_io_locks(partial);
      std::_Exit(1);
    });
  }
  ~WriteWatchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    ended_.notify_all();
    thread_.join();
  }
  void failed(const std::string& why) {
    std::lock_guard lock(mutex_);
    if (why_.empty()) why_ = why;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ended_;
  bool done_ = false;
  std::string why_;
  std::thread thread_;
};

}  // namespace zoneode
