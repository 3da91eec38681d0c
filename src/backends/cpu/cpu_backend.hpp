// The CPU backend: zones in parallel with OpenMP, each integrated by the serial reference
// integrate_zone() of its method (integrators/methods.hpp). Integrates in place: upload and
// download move nothing.
#pragma once

#include <memory>

#include "backends/backend.hpp"
#include "integrators/method_data.hpp"

namespace zoneode {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const BackendOptions& options);
  BackendDescription describe() const override;
  void prepare(const CompactNetwork& network, const IntegratorSettings& settings) override;
  std::int64_t max_batch_zones() const override;
  void upload(const ZoneSpan& zones) override { zones_ = zones; }
  // Each zone's result depends only on its own input: bitwise the same for any thread count.
  void integrate() override;
  void download(const ZoneSpan&) override {}
  // The method's structure depends on the network alone: only the settings' times change.
  bool set_time_span(double start_time, double end_time) override {
    settings_.start_time = start_time;
    settings_.end_time = end_time;
    return true;
  }

 private:
  int threads_ = 1;
  IntegratorSettings settings_;
  ZoneSpan zones_;
  std::unique_ptr<MethodData> method_;  // the method's per-network structure and views
};

}  // namespace zoneode
