// The zone state in HDF5: one file per written outer step (layout: io/state_layout.hpp).
//
// With parallel HDF5 every rank writes its block of zones collectively; with serial HDF5 the ranks
// open the file in turn and write their own blocks, so no rank ever holds all zones. Either way
// the file is written as PATH.partial and renamed to PATH when complete (common/atomic_file.hpp).
// Readers throw InputError for a missing, unreadable or malformed file, and read version-1 files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "decomposition/decomposition.hpp"
#include "decomposition/mpi_context.hpp"
#include "io/provenance.hpp"
#include "io/state_storage.hpp"
#include "network/network.hpp"

namespace zoneode {

// "parallel" or "serial": how this build writes.
const char* hdf5_write_mode();

struct StateAttributes {
  double time = 0.0;           // [s] simulation time at the end of the step
  std::int64_t outer_step = 0;  // 0: the initial state
  std::string network_hash;
  // Ignored by zoneode-compare from here on.
  Provenance provenance;
  double integrate_seconds = 0.0;  // integration time so far (max over ranks)
  bool checkpoint = false;         // a checkpoint of a stopped run, not an output
  std::string partition_table;     // "PATH: N bytes, content HASH" with partition functions; "": not written
  // The accuracy self-check of this step (validation.sample_zones); written only when self_checked.
  bool self_checked = false;
  double self_check_max_relative_error = 0.0;  // NaN: no zone compared
  double self_check_energy_rate_error = 0.0;
  std::int64_t self_check_worst_zone = -1;
  std::int64_t self_check_zones = 0;
  std::int64_t self_check_compared_zones = 0;
  double self_check_rtol = 0.0;
};

// This rank's zones: `block` of `global_zones`, arrays of block.count (abundances: x species).
struct LocalState {
  std::int64_t global_zones = 0;
  ZoneBlock block;
  const double* abundances = nullptr;
  const double* temperature = nullptr;
  const double* density = nullptr;
  const double* energy_generation_rate = nullptr;
  const std::int64_t* integrator_steps = nullptr;
  const std::int32_t* status = nullptr;
  const double* time_reached = nullptr;  // [s] integrator time of each zone's state
};

// Collective over all ranks. Throws std::runtime_error on every rank if any rank failed; then no
// file exists under `path` (a previous file there is left as it was). May run on a thread other
// than main (cli/run_output.cpp), provided no other thread of the rank calls MPI or HDF5 meanwhile.
// `storage`: contiguous or chunked, compressed, per-zone datasets. With parallel HDF5 a compressed
// file is written collectively (HDF5 filters need it), an uncompressed one independently.
void write_state_file(const MpiContext& mpi, const std::string& path, const Network& network,
                      const LocalState& state, const StateAttributes& attributes, const StateStorage& storage = {});

// What a state file holds, read by every rank (small). The file must be a regular file of a known
// format_version, and /abundances float64 [zones][species].
struct StateFileInfo {
  std::int64_t zones = 0;
  std::vector<std::string> species;
  std::int64_t outer_step = -1;       // -1 when the file has none (a hydro snapshot)
  bool has_outer_step = false;
  double time = 0.0;
  std::string network_hash;           // "" when absent
  int format_version = 0;
  std::string deck;                   // the resolved deck that wrote it; "" when absent
  std::string partition_table;        // "PATH: N bytes, content HASH"; "" when absent (no partition functions, or older)
};
StateFileInfo read_state_info(const std::string& path);

// Reads one block of the file's `zones` zones: T9, rho and abundances (block.count x
// species_count), as stored; every dataset must hold exactly `zones` zones, as float64.
void read_state_block(const std::string& path, std::int64_t zones, const ZoneBlock& block, int species_count,
                      double* temperature, double* density, double* abundances);

}  // namespace zoneode
