// Partition functions: the shipped table (values as published), its interpolation by hand, the
// reverse-rate factor, and malformed tables.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "network/reaclib.hpp"
#include "physics/partition_functions.hpp"
#include "physics/partition_table.hpp"

namespace zoneode {
namespace {

double interpolate(const PartitionTable& table, const std::string& name, double T9) {
  const std::vector<double>* G = table.find(name);
  if (!G) return 1.0;
  std::vector<double> row;
  for (double g : *G) row.push_back(std::log10(g));
  return std::pow(10.0, log10_partition_function(table.grid_T9.data(), static_cast<int>(row.size()), row.data(), T9));
}

TEST(PhysicsPartition, ShippedTableHoldsThePublishedValues) {
  const PartitionTable table = read_partition_table(default_partition_table_path());
  ASSERT_EQ(table.grid_T9.size(), 24u);
  EXPECT_EQ(table.grid_T9.front(), 0.01);
  EXPECT_EQ(table.grid_T9.back(), 10.0);
  EXPECT_EQ(table.G.size(), 178u);  // 140 of rp-z24 + 32 Mn/Fe published, n, p, d, t, he3, he4 at G = 1
  // The Mn/Fe of a wider rp slice (the G(mn50): 6.8 at T9 3, 15.5 at T9 6).
  EXPECT_EQ(table.find("mn50")->at(14), 6.825078);   // T9 = 3
  EXPECT_EQ(table.find("mn50")->at(19), 15.458116);  // T9 = 6
  EXPECT_EQ(table.find("fe57")->at(0), 1.376073);    // T9 = 0.01
  // Rauscher & Thielemann 2000 (FRDM) values, as in pynucastro's frdm_low.txt.
  EXPECT_EQ(table.find("al28")->at(10), 1.500791);  // T9 = 1.0
  EXPECT_EQ(table.find("ne19")->at(23), 5.600298);  // T9 = 10
  EXPECT_EQ(table.find("sc45")->at(0), 1.118580);   // T9 = 0.01
  EXPECT_EQ(*table.find("he4"), std::vector<double>(24, 1.0));  // no bound excited state
  EXPECT_EQ(table.find("li7"), nullptr);  // not tabulated: named by the run
}

TEST(PhysicsPartition, TableCoversTheRpZ24NuclidesFromOxygenUp) {
  // The project ships rp-z24 (inputs/networks/, a byte copy of ../shared/reaclib's): no skip.
  const std::string list = std::string(ZONEODE_SOURCE_DIR) + "/inputs/networks/rp-z24.nuclides";
  const PartitionTable table = read_partition_table(default_partition_table_path());
  int covered = 0;
  for (const std::string& name : read_nuclide_list(list)) {
    int Z = 0, A = 0;
    ASSERT_TRUE(parse_nuclide_name(name, Z, A));
    if (Z >= 8) {
      EXPECT_NE(table.find(name), nullptr) << name;
      ++covered;
    } else {  // the nuclides without a bound excited state are listed at G = 1, the others absent
      const bool ground_state_only = name == "n" || name == "p" || name == "d" || name == "t" || name == "he3" ||
                                     name == "he4";
      EXPECT_EQ(table.find(name) != nullptr, ground_state_only) << name;
    }
  }
  EXPECT_EQ(covered, 140);
}

TEST(PhysicsPartition, InterpolatesLog10LinearlyInT9AndHoldsTheEnds) {
  const PartitionTable table = read_partition_table(default_partition_table_path());
  // Grid points exactly (to rounding of log10 and back).
  EXPECT_NEAR(interpolate(table, "al28", 1.0), 1.500791, 1e-14);
  // Midway between T9 1.0 and 1.5, linear in log10 G is the geometric mean.
  EXPECT_NEAR(interpolate(table, "al28", 1.25), std::sqrt(1.500791 * 1.564195), 1e-14);
  // A quarter of the way from 5 to 6: 10^(0.75 log10 G5 + 0.25 log10 G6).
  const double g5 = 3.456804, g6 = 3.861908;  // ne19
  EXPECT_NEAR(interpolate(table, "ne19", 5.25), std::pow(g5, 0.75) * std::pow(g6, 0.25), 1e-13);
  EXPECT_NEAR(interpolate(table, "ne19", 20.0), 5.600298, 1e-14);  // held above T9 10
  EXPECT_NEAR(interpolate(table, "sc45", 0.001), 1.118580, 1e-14);  // held below T9 0.01
  EXPECT_EQ(interpolate(table, "he4", 3.0), 1.0);
}

TEST(PhysicsPartition, ReverseRateFactorIsProductsOverReactants) {
  // si28 -> p + al27 (the reverse of al27(p,g)si28): G(al27) G(p) / G(si28), p untabulated.
  const PartitionTable table = read_partition_table(default_partition_table_path());
  std::vector<double> logs;
  for (const char* name : {"al27", "si28"})
    for (double g : *table.find(name)) logs.push_back(std::log10(g));
  const int rows[2] = {0, 1};
  const signed char powers[2] = {+1, -1};
  const double T9 = 3.0;  // a grid point: G(al27) = 1.026217, G(si28) = 1.005132
  const double ratio =
      partition_function_ratio(table.grid_T9.data(), 24, logs.data(), rows, powers, 0, 2, T9);
  EXPECT_NEAR(ratio, 1.026217 / 1.005132, 1e-14);
  const signed char squared[1] = {-2};  // a reactant appearing twice
  EXPECT_NEAR(partition_function_ratio(table.grid_T9.data(), 24, logs.data(), rows + 1, squared, 0, 1, T9),
              1.0 / (1.005132 * 1.005132), 1e-14);
}

TEST(PhysicsPartition, MalformedTablesNameFileAndLine) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "zoneode_test_partition";
  std::filesystem::create_directories(dir);
  const auto expect_error = [&](const std::string& text, const std::string& needle) {
    const std::string path = (dir / "table.txt").string();
    std::ofstream(path) << text;
    try {
      read_partition_table(path);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
    }
  };
  expect_error("T9 1 2\nal28 1.0\n", "table.txt:2: nuclide 'al28' has 1 values, expected 2");
  expect_error("T9 2 1\n", "table.txt:1: T9 grid not increasing");
  expect_error("al28 1 1\n", "table.txt:1: nuclide 'al28' before the T9 line");
  expect_error("T9 1 2\nal28 1 x\n", "table.txt:2: 'x' is not a number");
  expect_error("T9 1 2\nal28 1 0\n", "expected G > 0");
  expect_error("T9 1 2\nal28 1 1\nal28 1 1\n", "table.txt:3: nuclide 'al28' listed twice");
  expect_error("# nothing\n", "no T9 line");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace zoneode
