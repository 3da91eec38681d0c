// The per-rank binding check (decomposition/binding.hpp) on a planted node: a LUMI-G layout (4
// NUMA domains of 16 cores and their second hardware threads, 8 GCDs with LUMI's PCI addresses and
// NUMA domains, as tests/slurm/binding_check.sh plants it). Each line must be the one
// slurm/binding.sh prints for the same node and rank, and a rank off its GPU's NUMA node flagged.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "decomposition/binding.hpp"

namespace zoneode {
namespace {

namespace fs = std::filesystem;

const std::array<const char*, 4> numa_cpus = {"0-15,64-79", "16-31,80-95", "32-47,96-111", "48-63,112-127"};
const std::array<const char*, 8> buses = {"c1", "c6", "c9", "ce", "d1", "d6", "d9", "de"};
const std::array<int, 8> gcd_numa = {3, 3, 1, 1, 0, 0, 2, 2};

class PlantedNode : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("zoneode_binding_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    for (int node = 0; node < 4; ++node) {
      const fs::path dir = root_ / ("devices/system/node/node" + std::to_string(node));
      fs::create_directories(dir);
      std::ofstream(dir / "cpulist") << numa_cpus[node] << "\n";
    }
    // binding.sh finds AMD GPUs through the KFD topology: node 0 a CPU, nodes 1-8 the GCDs.
    const fs::path kfd = root_ / "class/kfd/kfd/topology/nodes";
    fs::create_directories(kfd / "0");
    std::ofstream(kfd / "0/properties") << "cpu_cores_count 64\nsimd_count 0\nlocation_id 0\ndomain 0\n";
    for (int gcd = 0; gcd < 8; ++gcd) {
      const fs::path node = kfd / std::to_string(gcd + 1);
      fs::create_directories(node);
      std::ofstream(node / "properties") << "cpu_cores_count 0\nsimd_count 440\nlocation_id "
                                          << (std::stoi(buses[gcd], nullptr, 16) << 8) << "\ndomain 0\n";
      const fs::path device = root_ / ("bus/pci/devices/0000:" + std::string(buses[gcd]) + ":00.0");
      fs::create_directories(device);
      std::ofstream(device / "numa_node") << gcd_numa[gcd] << "\n";
    }
  }
  void TearDown() override { fs::remove_all(root_); }

  // What the GPU backend describes for GCD `gcd` (kernels/runtime/gpu_backend.hip's form), HIP's bus case.
  static std::string device(int gcd) {
    return "AMD Instinct MI250X (device " + std::to_string(gcd) + " of 8, PCI 0000:" + buses[gcd] + ":00.0)";
  }

  // slurm/binding.sh's line for a rank on `cpus` using GCD `gcd`, with no closest-CPU list.
  std::string script_line(int rank, int gcd, const std::string& cpus) const {
    const fs::path status = root_ / "status";
    std::ofstream(status) << "Name:\tzoneode\nCpus_allowed_list:\t" << cpus << "\n";
    const std::string command = "ZONEODE_SYSFS='" + root_.string() + "' ZONEODE_PROC_STATUS='" + status.string() +
                                "' ZONEODE_GPU_VENDOR=amd ROCR_VISIBLE_DEVICES=" + std::to_string(gcd) +
                                " SLURM_PROCID=" + std::to_string(rank) + " SLURM_LOCALID=" + std::to_string(rank) +
                                " bash -c 'source \"" ZONEODE_SOURCE_DIR "/slurm/binding.sh\" && zoneode_binding_line'";
    FILE* pipe = popen(command.c_str(), "r");
    std::string line;
    if (pipe == nullptr) return line;
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) line += buffer;
    pclose(pipe);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    return line;
  }

  fs::path root_;
};

TEST(CpuLists, ExpandAndCompressRoundTrip) {
  EXPECT_EQ(expand_cpu_list("0-3,8"), (std::vector<int>{0, 1, 2, 3, 8}));
  EXPECT_EQ(expand_cpu_list("5"), (std::vector<int>{5}));
  EXPECT_EQ(expand_cpu_list(""), (std::vector<int>{}));
  EXPECT_EQ(expand_cpu_list("x,2,3-1"), (std::vector<int>{2}));  // junk and reversed ranges skipped
  EXPECT_EQ(compress_cpu_list({8, 0, 1, 2, 3, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(compress_cpu_list({}), "");
  EXPECT_EQ(compress_cpu_list(expand_cpu_list("48-55,112-119")), "48-55,112-119");
  // This thread's list parses back to at least one CPU.
  EXPECT_FALSE(expand_cpu_list(cpu_list_of_this_thread()).empty());
}

TEST(DeviceDescriptions, BusAndIndexAsSysfsNamesThem) {
  EXPECT_EQ(pci_bus_of("NVIDIA H200 (device 0 of 1, PCI 0000:3B:00.0)"), "0000:3b:00.0");
  EXPECT_EQ(pci_bus_of("NVIDIA H200 (device 2 of 8, PCI 00000000:9A:00.0)"), "0000:9a:00.0");
  EXPECT_EQ(pci_bus_of("gfx90a (device 1 of 8, PCI 0000:c6:00.0)"), "0000:c6:00.0");
  EXPECT_EQ(pci_bus_of("host"), "");
  EXPECT_EQ(gpu_index_of("NVIDIA H200 (device 2 of 8, PCI 0000:9A:00.0)"), "2");
  EXPECT_EQ(gpu_index_of("host"), "");
}

TEST_F(PlantedNode, NumaNodesOfCpus) {
  EXPECT_EQ(numa_nodes_of(expand_cpu_list("49-55"), root_.string()), "3");
  EXPECT_EQ(numa_nodes_of(expand_cpu_list("0,127"), root_.string()), "0,3");
  EXPECT_EQ(numa_nodes_of(expand_cpu_list("500"), root_.string()), "?");
  EXPECT_EQ(numa_nodes_of(expand_cpu_list("0"), (root_ / "nowhere").string()), "?");
}

TEST_F(PlantedNode, EachGcdOnItsNumaNodeIsOkAndAsBindingShSaysIt) {
  for (int gcd = 0; gcd < 8; ++gcd) {
    // LUMI's map_cpu core for GCD g lies on g's NUMA domain: any core of that domain will do here.
    const int core = 16 * gcd_numa[gcd] + 1;
    const RankBinding binding = describe_binding(device(gcd), std::to_string(core), root_.string());
    EXPECT_FALSE(binding.mismatch) << gcd;
    EXPECT_EQ(binding.verdict, "ok");
    EXPECT_EQ(binding.gpu_bus, "0000:" + std::string(buses[gcd]) + ":00.0");
    EXPECT_EQ(binding.gpu_numa, std::to_string(gcd_numa[gcd]));
    const std::string line = binding_line(gcd, gcd, binding);
    EXPECT_EQ(line, script_line(gcd, gcd, std::to_string(core))) << "zoneode and slurm/binding.sh disagree";
  }
}

TEST_F(PlantedNode, RankOffItsGpusNumaNodeIsFlaggedAsBindingShFlagsIt) {
  // GCD 0 sits on NUMA 3; core 1 is on NUMA 0.
  const RankBinding binding = describe_binding(device(0), "1", root_.string());
  EXPECT_TRUE(binding.mismatch);
  EXPECT_EQ(binding.verdict, "MISMATCH: the rank's CPUs are on NUMA 0, GPU 0 on NUMA 3");
  EXPECT_EQ(binding_line(0, 0, binding), script_line(0, 0, "1"));
  // A rank spread over two NUMA nodes is off its GPU's too.
  const RankBinding spread = describe_binding(device(0), "48-49,0", root_.string());
  EXPECT_TRUE(spread.mismatch);
  EXPECT_EQ(spread.cpu_numa, "0,3");
}

TEST_F(PlantedNode, UnknownNumaIsUncheckedAndNoGpuIsNone) {
  fs::remove(root_ / "bus/pci/devices/0000:c1:00.0/numa_node");
  const RankBinding unknown = describe_binding(device(0), "1", root_.string());
  EXPECT_FALSE(unknown.mismatch);
  EXPECT_EQ(unknown.verdict, "unchecked (no NUMA node of the GPU in sysfs)");
  const RankBinding host = describe_binding("host", "0-3", root_.string());
  EXPECT_FALSE(host.mismatch);
  const std::string line = binding_line(3, 1, host);
  EXPECT_EQ(line.substr(0, 26), "binding: rank 3 (local 1) ");
  EXPECT_EQ(line.substr(line.size() - 26), "cpus 0-3 (NUMA 0) gpu none");
}

}  // namespace
}  // namespace zoneode
