// The one loop that drives a backend over a set of zones: the program's run loop (cli/run_steps.cpp)
// and the library's burns (api/zoneode_api.cpp) both integrate through it.
#include <algorithm>
#include <chrono>

#include "backends/backend.hpp"

namespace zoneode {

namespace {

// [s] on a steady clock. Not MPI_Wtime: no MPI here (the library has none), and in the program an
// overlapped write may be calling MPI on the writer thread meanwhile (MPI_THREAD_SERIALIZED allows
// one thread in MPI at a time).
double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void integrate_in_batches(Backend& backend, const ZoneSpan& zones, BatchSeconds& seconds) {
  const std::int64_t most = backend.max_batch_zones();
  const std::int64_t species = zones.species_count;
  for (std::int64_t first = 0; first < zones.count; first += most) {
    const ZoneSpan span{std::min(most, zones.count - first), zones.species_count, zones.temperature + first,
                        zones.density + first, zones.abundances + first * species, zones.results + first,
                        zones.device_arrays};
    const double upload_start = now_seconds();
    backend.upload(span);
    const double integrate_start = now_seconds();
    backend.integrate();
    const double download_start = now_seconds();
    backend.download(span);
    seconds.integrate += download_start - integrate_start;
    seconds.transfer += (integrate_start - upload_start) + (now_seconds() - download_start);
  }
}

}  // namespace zoneode
