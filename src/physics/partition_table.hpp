// The partition-function table file (host side): inputs/data/partition_functions/README.md gives
// the format and the source. Errors name the file and line.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace zoneode {

struct PartitionTable {
  std::string source;                  // the file read
  std::vector<double> grid_T9;         // [GK], increasing
  std::map<std::string, std::vector<double>> G;  // nuclide name (lower case) -> G at grid_T9
  // Nuclides whose row ends in "held" -> the last T9 [GK] it tabulates; G holds that value above
  // it (filled in G), and a run names them. Rows covering the whole grid are not listed.
  std::map<std::string, double> held_above_T9;
  // G of a nuclide, or nullptr when the table has none (its G is then 1).
  const std::vector<double>* find(const std::string& name) const;
  // The last T9 [GK] a nuclide's row tabulates: the grid's end unless its row is held.
  double tabulated_to_T9(const std::string& name) const;
};

// Reads a table; throws InputError (file:line: what, expected what) on malformed input.
PartitionTable read_partition_table(const std::string& path);

// The table shipped with zoneode (ZONEODE_DATA_DIR/partition_functions/rt2000_frdm_rpz24.txt).
std::string default_partition_table_path();
// The shipped table's path below a data folder ("/partition_functions/...").
std::string shipped_partition_table_name();
// The first data folder that holds the shipped table ("" if none): $ZONEODE_DATA_DIR, then `beside`
// (the installed data folder next to the running program or library; "" to skip), the source tree,
// the configured install prefix. The program (default_partition_table_path) and the library
// (zoneode_data_dir) search alike.
std::string find_shipped_data_folder(const std::string& beside);
// The same for another shipped file, `name` below the data folder ("/masses/...").
std::string find_shipped_data_folder(const std::string& beside, const std::string& name);
// A shipped data file's path: `name` ("/masses/nubase2020_masses.txt") below the first data folder
// that holds it, searched as above with the folder beside the running program, or the one given
// to set_shipped_data_beside (the library: beside itself, not beside the program that loaded it).
std::string shipped_data_file(const std::string& name);
void set_shipped_data_beside(const std::string& folder);  // the first call's folder is kept

}  // namespace zoneode
