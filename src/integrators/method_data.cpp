#include "integrators/method_data.hpp"

#include "integrators/methods.hpp"

namespace zoneode {

MethodData::MethodData(IntegrationMethod method, const CompactNetwork& network) : method_(method) {
  view_.rates = network.rate_view();
  view_.step = network.step_view();
  // Self-heating: T9 changes every step, the fits from a table (network/rate_table.hpp); not with
  // physics.eos: exact, the setting whose CPU results reproduce the GPU's arithmetic (direct fits).
  if (network.physics().self_heating && network.physics().eos == EosEvaluation::table) {
    fit_table_ = std::make_unique<RateTable>(view_.rates);
    view_.rates.fit_table = &fit_table_->view();
  }
  if (method == IntegrationMethod::implicit || method == IntegrationMethod::bdf) {  // bdf: the same structure
    implicit_ = std::make_unique<ImplicitStructure>(network);
    view_.implicit = implicit_->view();
  }
}

std::int64_t MethodData::workspace_doubles() const { return zoneode::workspace_doubles(method_, view_); }

}  // namespace zoneode
