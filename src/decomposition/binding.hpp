// Where a rank runs, checked against the node's topology: its host, its CPUs and their NUMA
// nodes, its GPU's PCI bus id and that device's NUMA node, and whether the two agree. The same
// check and line as slurm/binding.sh (which select_gpu.sh prints before zoneode starts, and which
// also knows the sites' closest-CPU lists), made here by zoneode itself so that any launcher
// (mpirun, srun without the wrapper) shows it:
//   binding: rank R (local L) host H cpus LIST (NUMA n) gpu I bus DDDD:BB:DD.F (NUMA m): ok
// "MISMATCH: ..." replaces "ok" when the rank's CPUs are not all on its GPU's NUMA node. The
// topology is read from sysfs: ZONEODE_SYSFS names another root (as for binding.sh), so that a
// test can plant a node's layout.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace zoneode {

struct RankBinding {
  std::string host;
  std::string cpus;      // the CPU list, "0-7,64-71"
  std::string cpu_numa;  // the NUMA nodes holding those CPUs, "0" or "0,1"; "?" when unknown
  std::string gpu;       // the device index as the runtime numbers them; "" without a GPU
  std::string gpu_bus;   // "0000:c1:00.0", as sysfs names the device; "" when not known
  std::string gpu_numa;  // "3"; "?" when sysfs does not say, "-1" when the platform has no NUMA
  std::string verdict;   // "ok", "MISMATCH: ...", "unchecked (...)"
  bool mismatch = false;
};

// "0-3,8" -> {0, 1, 2, 3, 8}; parts that are not numbers or ranges are skipped.
std::vector<int> expand_cpu_list(std::string_view list);
// {0, 1, 2, 3, 8} -> "0-3,8".
std::string compress_cpu_list(const std::vector<int>& cpus);
// The CPUs the calling thread may run on (sched_getaffinity), as a list.
std::string cpu_list_of_this_thread();
// The NUMA nodes (sysfs_root/devices/system/node/nodeN/cpulist) holding any of `cpus`,
// comma-separated in node order; "?" when none is found.
std::string numa_nodes_of(const std::vector<int>& cpus, const std::string& sysfs_root);
// The device index and PCI bus id in a GPU backend's device description ("NVIDIA H200 (device 0
// of 4, PCI 0000:3B:00.0)": kernels/runtime/gpu_backend.hip), the bus as sysfs names it (lower case,
// 4-digit domain); empty strings for the host.
std::string gpu_index_of(const std::string& device);
std::string pci_bus_of(const std::string& device);

// The binding of this rank: `device` is the backend's description, `cpus` its CPU list;
// sysfs_root "" reads ZONEODE_SYSFS, else /sys.
RankBinding describe_binding(const std::string& device, const std::string& cpus, std::string sysfs_root = "");
// The line above (no newline).
std::string binding_line(int rank, int local_rank, const RankBinding& binding);

}  // namespace zoneode
