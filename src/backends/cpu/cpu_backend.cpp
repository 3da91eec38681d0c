#include "backends/cpu/cpu_backend.hpp"

#include <omp.h>

#include <limits>
#include <vector>

#include "integrators/asymptotic.hpp"
#include "integrators/implicit.hpp"

namespace zoneode {

CpuBackend::CpuBackend(const BackendOptions& options) {
  if (options.threads > 0) omp_set_num_threads(options.threads);
  threads_ = omp_get_max_threads();
}

BackendDescription CpuBackend::describe() const {
  return {"cpu", "none", "host", std::to_string(threads_) + " OpenMP thread(s), dynamic schedule", threads_};
}

void CpuBackend::prepare(const CompactNetwork& network, const IntegratorSettings& settings) {
  network_ = &network;
  settings_ = settings;
  implicit_.reset();
  if (settings.method == IntegrationMethod::implicit) implicit_ = std::make_unique<ImplicitStructure>(network);
}

std::int64_t CpuBackend::max_batch_zones() const { return std::numeric_limits<std::int64_t>::max(); }

void CpuBackend::integrate() {
  const RateView rates = network_->rate_view();
  const StepView step = network_->step_view();
  const IntegratorSettings& settings = settings_;
  const ZoneSpan zones = zones_;
  const ImplicitStructure* implicit = implicit_.get();
  const std::int64_t scratch = implicit ? implicit->workspace_doubles()
                                        : workspace_doubles_per_zone(settings.method, step.species_count, step.reaction_count);
#pragma omp parallel
  {
    // Per-thread scratch, allocated once.
    std::vector<double> workspace(scratch);
    const int R = step.reaction_count, S = step.species_count;
    const ZoneWorkspace<double*> work{workspace.data(), workspace.data() + R, workspace.data() + 2 * R,
                                      workspace.data() + 2 * R + S};
    ImplicitView implicit_view;
    ImplicitWorkspace<double*> implicit_work{};
    if (implicit) {
      implicit_view = implicit->view();
      implicit_work = implicit->workspace_at(workspace.data());
    }
    // Dynamic: zones differ in cost (hot, dense zones take more adaptive steps).
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t zone = 0; zone < zones.count; ++zone) {
      double* abundances = zones.abundances + zone * zones.species_count;
      switch (settings.method) {
        case IntegrationMethod::asymptotic:
          integrate_zone(rates, step, settings, zones.temperature[zone], zones.density[zone], abundances, work,
                         zones.results[zone], &zones.temperature[zone]);  // self-heating: the final T9
          break;
        case IntegrationMethod::implicit:
          integrate_zone_implicit(rates, step, implicit_view, settings, zones.temperature[zone], zones.density[zone],
                                  abundances, implicit_work, zones.results[zone], &zones.temperature[zone]);
          break;
      }
    }
  }
}

}  // namespace zoneode
