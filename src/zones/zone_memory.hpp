// Host memory of a rank's zones against what the machine can give (issue 11): a zone count too
// large to hold is bad input, refused before any work or file is written, not a std::bad_alloc (or,
// with the kernel's overcommit, the OOM killer) in the middle of the run.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>

#include "integrators/settings.hpp"

namespace zoneode {

// Host bytes one zone holds for the whole run: T9, rho and Y[species] (ZoneBatch), its ZoneResult,
// the per-zone columns of every state-file write (cli/run_output.cpp: energy, steps, status,
// time_reached), and with `snapshot_copy` (output.overlap) the copy of T9, rho and Y that the
// state file written beside the next outer step holds: one snapshot in flight per rank.
// The integrator's workspace (workspace_doubles(method, network), integrators/methods.hpp) is not
// per zone on the host: the CPU backend holds one per OpenMP thread, the GPU backend one per block
// in device memory, and cuts its batches to fit the device. So this is a lower bound of what a run
// needs.
inline std::uint64_t host_bytes_per_zone(int species, bool snapshot_copy) {
  const std::uint64_t zone_state = (2 + static_cast<std::uint64_t>(species)) * sizeof(double);
  return zone_state * (snapshot_copy ? 2 : 1) + sizeof(ZoneResult) + sizeof(double) + sizeof(std::int64_t) +
         sizeof(std::int32_t) + sizeof(double);
}

struct MemoryLimit {
  std::uint64_t bytes = UINT64_MAX;  // what one rank may use
  std::string what;                  // where that limit comes from, for the message
};

// What one of `ranks_on_node` ranks can hold: the least of its share of the node's physical memory
// (sysconf), its share of the control group's memory.max (cgroup v2, containers and batch jobs),
// and the process's own RLIMIT_AS and RLIMIT_DATA (ulimit -v, -d).
inline MemoryLimit host_memory_limit(int ranks_on_node) {
  MemoryLimit limit;
  const std::uint64_t ranks = static_cast<std::uint64_t>(std::max(ranks_on_node, 1));
  const std::string share = ranks > 1 ? " / " + std::to_string(ranks) + " ranks on this node" : "";
  auto take = [&](std::uint64_t bytes, std::uint64_t per_rank, const std::string& what) {
    if (per_rank < limit.bytes) limit = {per_rank, what + " (" + std::to_string(bytes) + " bytes" + share + ")"};
  };
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) {
    const std::uint64_t bytes = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
    take(bytes, bytes / ranks, "the physical memory");
  }
  std::ifstream groups("/proc/self/cgroup");
  std::string line, group;
  while (std::getline(groups, line))
    if (line.rfind("0::", 0) == 0) group = line.substr(3);
  for (const std::string& file : {"/sys/fs/cgroup" + group + "/memory.max", std::string("/sys/fs/cgroup/memory.max")}) {
    std::ifstream in(file);
    unsigned long long bytes = 0;
    if (in >> bytes) {  // "max" (no limit) reads as nothing
      take(bytes, bytes / ranks, "the control group's memory.max");
      break;
    }
  }
  for (const auto& [resource, name] : {std::pair{RLIMIT_AS, "RLIMIT_AS (ulimit -v)"}, std::pair{RLIMIT_DATA, "RLIMIT_DATA (ulimit -d)"}}) {
    rlimit current{};
    if (getrlimit(resource, &current) == 0 && current.rlim_cur != RLIM_INFINITY) {
      const std::uint64_t bytes = current.rlim_cur;
      if (bytes < limit.bytes) limit = {bytes, std::string(name) + " (" + std::to_string(bytes) + " bytes per process)"};
    }
  }
  return limit;
}

}  // namespace zoneode
