// Partition functions: the shipped table (values as published, T9 0.01-10 and 12-275), its
// interpolation by hand (across the 10 -> 12 junction too), the reverse-rate factor, the nuclides a
// run names (untabulated, or held above T9 10) on every shipped network, and malformed tables.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "network/compact.hpp"
#include "network/generator.hpp"
#include "network/reaclib.hpp"
#include "physics_testing.hpp"
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

// The grid's columns: T9 0.01 ... 10 (Rauscher & Thielemann 2000), then 12 ... 275 (Rauscher 2003).
constexpr int column_T9_10 = 23, column_T9_12 = 24, column_T9_20 = 28, column_T9_100 = 47, column_T9_275 = 71;

// The nuclides of the shipped table that the 2003 high-temperature table lacks (held above T9 10):
// the rp-z24 slice's and Mn/Fe's, then those of the rp-process library (where frdm_high.txt starts
// each element at a heavier isotope: its Y, for one, at y78, right after sr128).
const std::set<std::string> held_in_shipped_table = {
    "na19",  "al22",  "al23",  "p26",   "p27",   "cl29",  "cl30",  "k33",   "sc36",  "sc37",  "sc38",  "sc39",
    "v40",   "v41",   "v42",   "v43",   "mn43",  "mn44",  "mn45",  "fe44",  "fe45",  "co47",  "co48",  "co49",
    "ni48",  "ni49",  "cu52",  "cu53",  "cu54",  "cu55",  "cu56",  "zn54",  "zn55",  "ga56",  "ga57",  "ga58",
    "ga59",  "ga60",  "ga61",  "ge58",  "as60",  "as61",  "as62",  "as63",  "as64",  "br67",  "br68",  "rb71",
    "rb72",  "rb73",  "y75",   "y76",   "y77",   "nb79",  "nb80",  "nb81",  "tc83",  "tc84",  "tc85",  "ru85",
    "rh88",  "rh89",  "ag92",  "ag93",  "in96",  "in97",  "sb103", "sb104", "sb105", "sb106", "sb107"};

TEST(PhysicsPartition, ShippedTableHoldsThePublishedValues) {
  const PartitionTable table = read_partition_table(default_partition_table_path());
  ASSERT_EQ(table.grid_T9.size(), 72u);
  EXPECT_EQ(table.grid_T9.front(), 0.01);
  EXPECT_EQ(table.grid_T9[column_T9_10], 10.0);
  EXPECT_EQ(table.grid_T9[column_T9_12], 12.0);
  EXPECT_EQ(table.grid_T9[column_T9_20], 20.0);
  EXPECT_EQ(table.grid_T9[column_T9_100], 100.0);
  EXPECT_EQ(table.grid_T9.back(), 275.0);
  // 644 published (Z >= 8 of rp-z24, Mn/Fe, the generator presets and the rp-process library),
  // n, p, d, t, he3, he4 at G = 1
  EXPECT_EQ(table.G.size(), 650u);
  // The Mn/Fe of a wider rp slice (the G(mn50): 6.8 at T9 3, 15.5 at T9 6).
  EXPECT_EQ(table.find("mn50")->at(14), 6.825078);   // T9 = 3
  EXPECT_EQ(table.find("mn50")->at(19), 15.458116);  // T9 = 6
  EXPECT_EQ(table.find("fe57")->at(0), 1.376073);    // T9 = 0.01
  // Rauscher & Thielemann 2000 (FRDM) values, as in pynucastro's frdm_low.txt.
  EXPECT_EQ(table.find("al28")->at(10), 1.500791);  // T9 = 1.0
  EXPECT_EQ(table.find("ne19")->at(column_T9_10), 5.600298);
  EXPECT_EQ(table.find("sc45")->at(0), 1.118580);   // T9 = 0.01
  // Rauscher 2003 (FRDM) values, written down by hand from pynucastro's frdm_high.txt (commit 9ac3e65).
  EXPECT_EQ(table.find("ne19")->at(column_T9_12), 6.67);
  EXPECT_EQ(table.find("ne19")->at(column_T9_20), 13.8);
  EXPECT_EQ(table.find("ne19")->at(column_T9_100), 9.49e5);
  EXPECT_EQ(table.find("ne19")->at(column_T9_275), 1.09e17);
  EXPECT_EQ(table.find("mn50")->at(column_T9_12), 82.7);
  EXPECT_EQ(table.find("mn50")->at(column_T9_20), 2.08e3);
  EXPECT_EQ(table.find("fe56")->at(column_T9_20), 1.18e3);
  EXPECT_EQ(table.find("fe56")->at(column_T9_100), 6.81e20);
  EXPECT_EQ(table.find("fe56")->at(column_T9_275), 2.35e57);
  EXPECT_EQ(table.find("o16")->at(column_T9_12), 1.03);
  EXPECT_EQ(table.find("cr52")->at(column_T9_100), 1.65e19);
  EXPECT_EQ(table.tabulated_to_T9("ne19"), 275.0);
  // Rows added for the generator presets and the rp-process library, read off pynucastro's files
  // by hand (frdm_low.txt commit 675d5c79, frdm_high.txt commit 9ac3e65).
  EXPECT_EQ(table.find("f21")->at(column_T9_10), 1.500000);
  EXPECT_EQ(table.find("f21")->at(column_T9_12), 1.94);
  EXPECT_EQ(table.find("ne23")->at(column_T9_10), 1.593973);
  EXPECT_EQ(table.find("ne24")->at(column_T9_10), 1.665671);
  EXPECT_EQ(table.find("ne23")->at(column_T9_12), 1.95);
  EXPECT_EQ(table.find("y78")->at(column_T9_12), 5.79e2);
  EXPECT_EQ(table.find("y78")->at(column_T9_275), 1.75e80);
  EXPECT_EQ(table.find("y85")->at(column_T9_275), 1.23e89);
  EXPECT_EQ(table.tabulated_to_T9("y77"), 10.0);  // frdm_high.txt's Y starts at y78
  // No 2003 row: the T9 10 value held, and the table says so.
  EXPECT_EQ(table.find("na19")->at(column_T9_10), 6.164175);
  EXPECT_EQ(table.find("na19")->at(column_T9_275), 6.164175);
  EXPECT_EQ(table.tabulated_to_T9("na19"), 10.0);
  std::set<std::string> held;
  for (const auto& [name, T9] : table.held_above_T9) {
    held.insert(name);
    EXPECT_EQ(T9, 10.0) << name;
  }
  EXPECT_EQ(held, held_in_shipped_table);
  EXPECT_EQ(*table.find("he4"), std::vector<double>(72, 1.0));  // no bound excited state
  EXPECT_EQ(table.find("li7"), nullptr);  // not tabulated: named by the run
}

// The nuclides of a list (a nuclide-list file) against the shipped table: each from O up has a row,
// to T9 275 or held above T9 10 (then one of held_in_shipped_table); a lighter one is in the table
// exactly when it has no bound excited state (n, p, d, t, he3, he4 at G = 1), the others absent.
struct ListCoverage {
  int from_oxygen = 0, to_275 = 0, lighter = 0;
};
ListCoverage expect_list_covered(const PartitionTable& table, const std::string& list) {
  ListCoverage coverage;
  for (const std::string& name : read_nuclide_list(list)) {
    int Z = 0, A = 0;
    EXPECT_TRUE(parse_nuclide_name(name, Z, A)) << name;
    if (Z >= 8) {
      EXPECT_NE(table.find(name), nullptr) << name;
      ++coverage.from_oxygen;
      if (table.tabulated_to_T9(name) == 275.0) ++coverage.to_275;  // else held above T9 10, and named by a run
      else EXPECT_TRUE(held_in_shipped_table.count(name)) << name;
    } else {
      ++coverage.lighter;
      const bool ground_state_only = name == "n" || name == "p" || name == "d" || name == "t" || name == "he3" ||
                                     name == "he4";
      EXPECT_EQ(table.find(name) != nullptr, ground_state_only) << name;
    }
  }
  return coverage;
}

TEST(PhysicsPartition, TableCoversTheRpZ24NuclidesFromOxygenUp) {
  // The project ships rp-z24 (inputs/networks/, a byte copy of ../shared/reaclib's): no skip.
  const PartitionTable table = read_partition_table(default_partition_table_path());
  const ListCoverage rp =
      expect_list_covered(table, std::string(ZONEODE_SOURCE_DIR) + "/inputs/networks/rp-z24.nuclides");
  EXPECT_EQ(rp.from_oxygen, 140);
  EXPECT_EQ(rp.to_275, 124);  // the other 16 are in held_in_shipped_table
}

// Every nuclide of a reverse rate in a network: its G covers T9 0.01-275, or the run names it
// (untabulated: G = 1; held: no high-temperature row). The classification is made here from the
// table and compared with what the compact network reports. covered_from_oxygen: every nuclide from
// O up must be in the table (the shipped networks' rule); `untabulated_from_oxygen` counts those that
// are not.
void expect_every_gap_named(const Network& network, const PartitionTable& table, int& full, int& held,
                            int& untabulated, bool covered_from_oxygen = true, int* untabulated_from_oxygen = nullptr) {
  PhysicsOptions on;
  on.partition_functions = true;
  const CompactNetwork compact(network, on);
  std::set<int> in_reverse_rates;
  for (const Reaction& reaction : network.reactions) {
    if (!reaction.sets.front().reverse) continue;
    std::map<int, int> power;
    for (int p : reaction.products) ++power[p];
    for (int q : reaction.reactants) --power[q];
    for (const auto& [species, n] : power)
      if (n != 0) in_reverse_rates.insert(species);
  }
  std::vector<std::string> expected_untabulated, expected_held;
  full = held = untabulated = 0;
  for (int species : in_reverse_rates) {
    const std::string& name = network.species[species].name;
    if (!table.find(name)) {
      expected_untabulated.push_back(name);
      int Z = 0, A = 0;
      const bool light = parse_nuclide_name(name, Z, A) && Z < 8;
      if (!light && untabulated_from_oxygen != nullptr) ++*untabulated_from_oxygen;
      if (covered_from_oxygen)
        EXPECT_TRUE(light) << name << " of " << network.name << ": the table covers every shipped nuclide from O up";
    } else if (table.tabulated_to_T9(name) < 275.0) {
      std::ostringstream entry;
      entry << name << " (T9 > " << table.tabulated_to_T9(name) << ")";
      expected_held.push_back(entry.str());
    } else {
      ++full;
    }
  }
  held = static_cast<int>(expected_held.size());
  untabulated = static_cast<int>(expected_untabulated.size());
  EXPECT_EQ(compact.pf_untabulated, expected_untabulated) << network.name;
  EXPECT_EQ(compact.pf_held, expected_held) << network.name;
}

TEST(PhysicsPartition, NamesWhatItHoldsOnEveryShippedNetwork) {
  const PartitionTable table = read_partition_table(default_partition_table_path());
  const std::string dir = std::string(ZONEODE_SOURCE_DIR) + "/inputs/networks/";
  int full = 0, held = 0, untabulated = 0;
  const Network rp = read_reaclib(dir + "rp-z24.reaclib", read_nuclide_list(dir + "rp-z24.nuclides"));
  expect_every_gap_named(rp, table, full, held, untabulated);
  std::printf("  rp-z24: %d nuclides of reverse rates tabulated to T9 275, %d held above T9 10, %d untabulated\n",
              full, held, untabulated);
  EXPECT_EQ(held, 16);         // held_in_shipped_table less mn43-45, fe44-45
  EXPECT_EQ(untabulated, 9);   // li7, be7, b8, c12, c13, n12-n15 (be8 is in no reverse rate)
  for (const GeneratorPreset& preset : generator_presets) {
    // s150r (isotope_band 4) is a cost stand-in for the study's network (inputs/bench/README.md): its
    // wide rows reach drip-line nuclides (o19-o24, ne26-ne31, ...) that no table shipped here has.
    // A run with partition functions on names them (G = 1, partition_missing: unity), which the
    // comparison with the compact network's list still checks; their number is pinned instead.
    const bool physics_preset = preset.settings.isotope_band == 1.0;
    int from_oxygen = 0;
    expect_every_gap_named(generate_network(preset.settings), table, full, held, untabulated, physics_preset, &from_oxygen);
    std::printf("  generator %s: %d tabulated to T9 275, %d held above T9 10, %d untabulated (%d from O up)\n",
                std::string(preset.name).c_str(), full, held, untabulated, from_oxygen);
    if (!physics_preset) EXPECT_EQ(from_oxygen, 48) << preset.name;
  }
}

TEST(PhysicsPartition, TableCoversPynucastrosRpProcessLibraryFromOxygenUp) {
  // tests/data/pynucastro-rp-process-lib.nuclides: every nuclide of pynucastro's rp-process library.
  const PartitionTable table = read_partition_table(default_partition_table_path());
  const ListCoverage library = expect_list_covered(
      table, std::string(ZONEODE_SOURCE_DIR) + "/tests/data/pynucastro-rp-process-lib.nuclides");
  std::printf("  rp-process library: %d nuclides from O up, %d to T9 275, %d held above T9 10; %d lighter\n",
              library.from_oxygen, library.to_275, library.from_oxygen - library.to_275, library.lighter);
  EXPECT_EQ(library.from_oxygen + library.lighter, 476);
  EXPECT_EQ(library.lighter, 14);  // p, d, he3, he4 at G = 1; li7, be7, be8, b8, c12, c13, n12-n15 named by a run
}

TEST(PhysicsPartition, AMissingHighTemperatureRowIsHeldAndNamed) {
  // A planted fault: the shipped table with ne19's 2003 values cut off (ended by "held").
  std::ifstream shipped(default_partition_table_path());
  std::ostringstream cut;
  for (std::string line; std::getline(shipped, line);) {
    if (line.rfind("ne19 ", 0) == 0) {
      std::istringstream fields(line);
      std::string field;
      for (int k = 0; k <= 24 && fields >> field; ++k) cut << (k ? " " : "") << field;  // name + 24 values
      cut << " held\n";
    } else {
      cut << line << "\n";
    }
  }
  const std::filesystem::path path = std::filesystem::path(::testing::TempDir()) / "zoneode_pf_ne19_cut.txt";
  std::ofstream(path) << cut.str();
  const PartitionTable table = read_partition_table(path.string());
  EXPECT_EQ(table.tabulated_to_T9("ne19"), 10.0);
  EXPECT_EQ(table.find("ne19")->at(column_T9_100), 5.600298);  // its T9 10 value
  // ne19 -> p + f18 (a reverse set): the run names ne19; f18 and p are not gaps.
  Reaction reverse{{2}, {0, 1}, {rate_set(0.0, 0.0, true)}, -6.4112, false};
  const Network network = network_of({species("p", 1, 1), species("f18", 9, 18), species("ne19", 10, 19)}, {reverse});
  PhysicsOptions on;
  on.partition_functions = true;
  on.partition_table = path.string();
  const CompactNetwork compact(network, on);
  EXPECT_EQ(compact.pf_held, std::vector<std::string>{"ne19 (T9 > 10)"});
  EXPECT_TRUE(compact.pf_untabulated.empty());
  // At T9 100 the factor is G(p) G(f18) / G(ne19) with ne19's T9 10 value: 2.35e5 / 5.600298.
  EXPECT_NEAR(reaction_rate_factor(compact.rate_view(), 0, 100.0, 1e5) /
                  reaction_rate_factor(CompactNetwork(network).rate_view(), 0, 100.0, 1e5),
              2.35e5 / 5.600298, 1e-9 * 2.35e5 / 5.600298);
  std::filesystem::remove(path);
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
  EXPECT_NEAR(interpolate(table, "sc45", 0.001), 1.118580, 1e-14);  // held below T9 0.01
  EXPECT_EQ(interpolate(table, "he4", 3.0), 1.0);
  // Above T9 10, the 2003 table (before, the T9 10 value 5.600298 was held: 59% low at T9 20).
  EXPECT_NEAR(interpolate(table, "ne19", 10.0), 5.600298, 1e-14);
  EXPECT_NEAR(interpolate(table, "ne19", 11.0), std::sqrt(5.600298 * 6.67), 1e-13);  // the 10 -> 12 junction
  EXPECT_NEAR(interpolate(table, "ne19", 12.0), 6.67, 1e-13);
  EXPECT_NEAR(interpolate(table, "ne19", 20.0), 13.8, 1e-13);
  EXPECT_NEAR(interpolate(table, "ne19", 21.0), std::sqrt(13.8 * 16.9), 1e-13);  // between 20 and 22
  EXPECT_NEAR(interpolate(table, "ne19", 97.5) / std::sqrt(4.62e5 * 9.49e5), 1.0, 1e-13);  // between 95 and 100
  EXPECT_NEAR(interpolate(table, "fe56", 100.0) / 6.81e20, 1.0, 1e-13);
  EXPECT_NEAR(interpolate(table, "ne19", 300.0) / 1.09e17, 1.0, 1e-13);  // held above T9 275
  EXPECT_NEAR(interpolate(table, "na19", 20.0), 6.164175, 1e-14);  // no 2003 row: held above T9 10
}

TEST(PhysicsPartition, ReverseRateFactorIsProductsOverReactants) {
  // si28 -> p + al27 (the reverse of al27(p,g)si28): G(al27) G(p) / G(si28), p untabulated.
  const PartitionTable table = read_partition_table(default_partition_table_path());
  std::vector<double> logs;
  for (const char* name : {"al27", "si28"})
    for (double g : *table.find(name)) logs.push_back(std::log10(g));
  const int rows[2] = {0, 1};
  const signed char powers[2] = {+1, -1};
  const int points = static_cast<int>(table.grid_T9.size());
  const double T9 = 3.0;  // a grid point: G(al27) = 1.026217, G(si28) = 1.005132
  const double ratio =
      partition_function_ratio(table.grid_T9.data(), points, logs.data(), rows, powers, 0, 2, T9);
  EXPECT_NEAR(ratio, 1.026217 / 1.005132, 1e-14);
  const signed char squared[1] = {-2};  // a reactant appearing twice
  EXPECT_NEAR(partition_function_ratio(table.grid_T9.data(), points, logs.data(), rows + 1, squared, 0, 1, T9),
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
  // A row stops early only by saying so; "held" with every value, or none, is refused.
  expect_error("T9 1 2 3\nal28 1 1\n", "table.txt:2: nuclide 'al28' has 2 values, expected 3 (one per T9; a row that "
                                       "stops early ends in 'held')");
  expect_error("T9 1 2 3\nal28 1 1 1 held\n", "table.txt:2: nuclide 'al28' has 3 values before 'held', expected 1 to 2");
  expect_error("T9 1 2 3\nal28 held\n", "table.txt:2: nuclide 'al28' has 0 values before 'held'");
  expect_error("T9 1 2 3\nal28 1 held 1\n", "table.txt:2: 'held' is not a number");
  expect_error("T9 2 1\n", "table.txt:1: T9 grid not increasing");
  expect_error("al28 1 1\n", "table.txt:1: nuclide 'al28' before the T9 line");
  expect_error("T9 1 2\nal28 1 x\n", "table.txt:2: 'x' is not a number");
  expect_error("T9 1 2\nal28 1 0\n", "expected G > 0");
  expect_error("T9 1 2\nal28 1 1\nal28 1 1\n", "table.txt:3: nuclide 'al28' listed twice");
  expect_error("# nothing\n", "no T9 line");
  // A planted fault: the shipped table with ne19's last (T9 275) value dropped.
  std::ifstream shipped(default_partition_table_path());
  std::string text;
  for (std::string line; std::getline(shipped, line);)
    text += (line.rfind("ne19 ", 0) == 0 ? line.substr(0, line.rfind(' ')) : line) + "\n";
  expect_error(text, "nuclide 'ne19' has 71 values, expected 72");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace zoneode
