#include "decomposition/binding.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

namespace zoneode {

namespace {

std::string read_first_line(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string short_host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "?";
  std::string host(name);
  return host.substr(0, host.find('.'));
}

}  // namespace

std::vector<int> expand_cpu_list(std::string_view list) {
  std::vector<int> cpus;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string part(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    int first = 0, last = 0;
    char dash = 0, rest = 0;
    const int read = std::sscanf(part.c_str(), "%d%c%d%c", &first, &dash, &last, &rest);
    if (read == 1) {
      cpus.push_back(first);
    } else if (read == 3 && dash == '-' && first <= last && last - first < (1 << 20)) {
      for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
    }
  }
  return cpus;
}

std::string compress_cpu_list(const std::vector<int>& cpus) {
  const std::set<int> sorted(cpus.begin(), cpus.end());
  std::string list;
  for (auto it = sorted.begin(); it != sorted.end();) {
    const int first = *it;
    int last = first;
    for (++it; it != sorted.end() && *it == last + 1; ++it) last = *it;
    list += (list.empty() ? "" : ",") + std::to_string(first) + (last > first ? "-" + std::to_string(last) : "");
  }
  return list;
}

std::string cpu_list_of_this_thread() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "?";
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return compress_cpu_list(cpus);
}

std::string numa_nodes_of(const std::vector<int>& cpus, const std::string& sysfs_root) {
  const std::filesystem::path nodes = std::filesystem::path(sysfs_root) / "devices/system/node";
  std::vector<int> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(nodes, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("node", 0) != 0 || name.size() == 4 ||
        !std::all_of(name.begin() + 4, name.end(), [](unsigned char c) { return std::isdigit(c); }))
      continue;
    const std::vector<int> node_cpus = expand_cpu_list(read_first_line((entry.path() / "cpulist").string()));
    const std::set<int> on_node(node_cpus.begin(), node_cpus.end());
    if (std::any_of(cpus.begin(), cpus.end(), [&](int cpu) { return on_node.count(cpu) > 0; }))
      found.push_back(std::stoi(name.substr(4)));
  }
  if (found.empty()) return "?";
  std::sort(found.begin(), found.end());
  std::string list;
  for (int node : found) list += (list.empty() ? "" : ",") + std::to_string(node);
  return list;
}

std::string gpu_index_of(const std::string& device) {
  std::smatch match;
  static const std::regex index(R"(\(device ([0-9]+) of )");
  return std::regex_search(device, match, index) ? match[1].str() : "";
}

std::string pci_bus_of(const std::string& device) {
  std::smatch match;
  static const std::regex bus(R"(PCI ([0-9A-Fa-f]+):([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})\.([0-7]))");
  if (!std::regex_search(device, match, bus)) return "";
  std::string domain = match[1].str();
  // nvidia-smi and some runtimes print an 8-digit domain; sysfs names it with 4.
  domain = domain.size() > 4 ? domain.substr(domain.size() - 4) : std::string(4 - domain.size(), '0') + domain;
  std::string text = domain + ":" + match[2].str() + ":" + match[3].str() + "." + match[4].str();
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

RankBinding describe_binding(const std::string& device, const std::string& cpus, std::string sysfs_root) {
  if (sysfs_root.empty()) {
    const char* planted = std::getenv("ZONEODE_SYSFS");
    sysfs_root = planted != nullptr && *planted != '\0' ? planted : "/sys";
  }
  RankBinding binding;
  binding.host = short_host_name();
  binding.cpus = cpus;
  binding.cpu_numa = numa_nodes_of(expand_cpu_list(cpus), sysfs_root);
  binding.gpu = gpu_index_of(device);
  binding.gpu_bus = pci_bus_of(device);
  binding.verdict = "ok";
  if (binding.gpu_bus.empty()) return binding;  // no GPU: nothing to be near
  const std::string numa_file = sysfs_root + "/bus/pci/devices/" + binding.gpu_bus + "/numa_node";
  binding.gpu_numa = read_first_line(numa_file);
  if (binding.gpu_numa.empty()) binding.gpu_numa = "?";
  if (binding.gpu_numa == "?" || binding.gpu_numa == "-1" || binding.cpu_numa == "?") {
    binding.verdict = "unchecked (" + std::string(binding.cpu_numa == "?" ? "no NUMA node of the CPUs in sysfs"
                                                                           : "no NUMA node of the GPU in sysfs") + ")";
  } else if (binding.cpu_numa != binding.gpu_numa) {
    binding.mismatch = true;
    binding.verdict = "MISMATCH: the rank's CPUs are on NUMA " + binding.cpu_numa + ", GPU " +
                      (binding.gpu.empty() ? "?" : binding.gpu) + " on NUMA " + binding.gpu_numa;
  }
  return binding;
}

std::string binding_line(int rank, int local_rank, const RankBinding& b) {
  std::string line = "binding: rank " + std::to_string(rank) + " (local " + std::to_string(local_rank) + ") host " +
                     b.host + " cpus " + b.cpus + " (NUMA " + b.cpu_numa + ")";
  if (b.gpu_bus.empty()) return line + " gpu none";
  return line + " gpu " + (b.gpu.empty() ? "?" : b.gpu) + " bus " + b.gpu_bus + " (NUMA " + b.gpu_numa + "): " +
         b.verdict;
}

}  // namespace zoneode
