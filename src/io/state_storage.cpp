#include "io/state_storage.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstdint>

#include "common/errors.hpp"

namespace zoneode {

void check_state_storage(const StateStorage& storage, int species, const std::string& where, std::int64_t zones) {
  if (!storage.chunked()) return;
  const std::string version = std::to_string(H5_VERS_MAJOR) + "." + std::to_string(H5_VERS_MINOR) + "." +
                              std::to_string(H5_VERS_RELEASE);
  // HDF5's limit: a chunk under 4 GiB.
  const std::uint64_t zone_bytes = static_cast<std::uint64_t>(std::max(species, 1)) * sizeof(double);
  const std::uint64_t most = (std::uint64_t{1} << 32) - 1;
  if (static_cast<std::uint64_t>(storage.chunk_zones) > most / zone_bytes)
    throw InputError(where + ": output.chunk_zones: " + std::to_string(storage.chunk_zones) + " zones of " +
                     std::to_string(species) + " species make chunks of /abundances over HDF5's 4 GiB; at most " +
                     std::to_string(most / zone_bytes) + " zones");
  const std::string compression = "output.compression: " + storage.compression_name() + ": ";
  if (storage.shuffle && H5Zfilter_avail(H5Z_FILTER_SHUFFLE) <= 0)
    throw InputError(where + ": " + compression + "this HDF5 (" + version + ") has no shuffle filter; use gzip-N");
  if (storage.compressed() && H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0)
    throw InputError(where + ": " + compression + "this HDF5 (" + version + ") was built without deflate (zlib); use none");
#ifdef H5_HAVE_PARALLEL
  if (storage.compressed() && !H5_VERSION_GE(1, 10, 2))
    throw InputError(where + ": " + compression + "parallel HDF5 " + version +
                     " writes no compressed datasets (1.10.2 and later do); use none, or a serial-HDF5 build");
  // Parallel HDF5 writes compressed chunks collectively, each its own piece of MPI-IO: chunk_zones
  // 1 with gzip-1 on 8,000 zones wrote for 107 s, then failed ("writev: Bad address" from Open
  // MPI); 6,000 chunks took 3 s. So at most most_compressed_chunks chunks per dataset.
  const std::int64_t chunks = storage.compressed() && zones > 0 ? (zones + storage.chunk_zones - 1) / storage.chunk_zones : 0;
  if (chunks > most_compressed_chunks)
    throw InputError(where + ": output.chunk_zones: " + std::to_string(storage.chunk_zones) + " zones per chunk make " +
                     std::to_string(chunks) + " compressed chunks per dataset of " + std::to_string(zones) +
                     " zones; parallel HDF5 writes them collectively, and so many small ones stall the write: "
                     "expected at most " + std::to_string(most_compressed_chunks) + " chunks (chunk_zones >= " +
                     std::to_string((zones + most_compressed_chunks - 1) / most_compressed_chunks) + ")");
#endif
}

}  // namespace zoneode
