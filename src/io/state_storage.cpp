#include "io/state_storage.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstdint>

#include "common/errors.hpp"

namespace zoneode {

void check_state_storage(const StateStorage& storage, int species, const std::string& where) {
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
#endif
}

}  // namespace zoneode
