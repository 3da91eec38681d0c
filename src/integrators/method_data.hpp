// What a method needs of a network beyond the compact network, built once per run on the host
// (the implicit method's Jacobian pattern and symbolic LU; nothing for the asymptotic method), and
// the MethodNetwork view over it that integrate_zone() reads.
#pragma once

#include <cstdint>
#include <memory>

#include "integrators/implicit_structure.hpp"
#include "integrators/method_network.hpp"
#include "integrators/settings.hpp"
#include "network/compact.hpp"
#include "network/rate_table.hpp"

namespace zoneode {

class MethodData {
 public:
  MethodData(IntegrationMethod method, const CompactNetwork& network);
  IntegrationMethod method() const { return method_; }
  // Views over the host arrays (the network's and this object's).
  const MethodNetwork& view() const { return view_; }
  std::int64_t workspace_doubles() const;
  // The fits' table that self-heating reads (null without self-heating or with physics.eos: exact).
  const RateTable* fit_table() const { return fit_table_.get(); }
  // The implicit method's structure (null for other methods): a device backend copies its arrays.
  const ImplicitStructure* implicit() const { return implicit_.get(); }

 private:
  IntegrationMethod method_;
  std::unique_ptr<ImplicitStructure> implicit_;
  std::unique_ptr<RateTable> fit_table_;  // self-heating: the fits tabulated in T9 (view_.rates.fit_table)
  MethodNetwork view_;
};

}  // namespace zoneode
