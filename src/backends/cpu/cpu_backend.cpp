#include "backends/cpu/cpu_backend.hpp"

#include <omp.h>

#include <limits>
#include <vector>

#include "integrators/methods.hpp"

namespace zoneode {

CpuBackend::CpuBackend(const BackendOptions& options) {
  if (options.threads > 0) omp_set_num_threads(options.threads);
  threads_ = omp_get_max_threads();
}

BackendDescription CpuBackend::describe() const {
  return {"cpu", "none", "host", std::to_string(threads_) + " OpenMP thread(s), dynamic schedule", threads_};
}

void CpuBackend::prepare(const CompactNetwork& network, const IntegratorSettings& settings) {
  settings_ = settings;
  method_ = std::make_unique<MethodData>(settings.method, network);
}

std::int64_t CpuBackend::max_batch_zones() const { return std::numeric_limits<std::int64_t>::max(); }

void CpuBackend::integrate() {
  const MethodNetwork& network = method_->view();
  const IntegratorSettings& settings = settings_;
  const ZoneSpan zones = zones_;
  const std::int64_t scratch = method_->workspace_doubles();
  // threads_ named: the team does not depend on the calling thread's OpenMP settings (a library
  // caller's own; the program's are the same number).
#pragma omp parallel num_threads(threads_)
  {
    std::vector<double> workspace(scratch);  // per thread, allocated once
    // Dynamic: zones differ in cost (hot, dense zones take more adaptive steps).
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t zone = 0; zone < zones.count; ++zone) {
      integrate_zone(network, settings, zones.temperature[zone], zones.density[zone],
                     zones.abundances + zone * zones.species_count, workspace.data(), zones.results[zone]);
      if (network.step.self_heating) zones.temperature[zone] = zones.results[zone].final_T9;  // as the GPU backend
    }
  }
}

}  // namespace zoneode
