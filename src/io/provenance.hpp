// What produced a result. A run fills one Provenance; the run summary (cli/report) and every state
// file (io/hdf5_state) write it, so that the two always agree. The build (version, commit,
// compiler) and the HDF5 write mode are the program's own; each writer takes them from their source.
#pragma once

#include <string>

namespace zoneode {

struct Provenance {
  std::string resolved_deck;            // every key with its value (state files; the summary names the deck file)
  std::string backend = "cpu";
  std::string kernel_variant = "none";
  std::string device = "host";          // rank 0's: the GPU's name and PCI bus id, or host
  std::string launch;                   // rank 0's threads or launch geometry (state files)
  int ranks = 1;
  int threads = 1;                      // per rank
};

}  // namespace zoneode
