#include "backends/selection.hpp"

namespace zoneode {

std::string_view backend_kind_name(BackendKind kind) {
  switch (kind) {
    case BackendKind::cpu: return "cpu";
    case BackendKind::gpu: return "gpu";
  }
  return "unknown";
}

std::string_view kernel_variant_name(KernelVariant variant) {
  switch (variant) {
    case KernelVariant::baseline: return "baseline";
    case KernelVariant::lds: return "lds";
    case KernelVariant::wave: return "wave";
    case KernelVariant::tuned: return "tuned";
    case KernelVariant::final: return "final";
  }
  return "unknown";
}

std::string_view integration_method_name(IntegrationMethod method) {
  switch (method) {
    case IntegrationMethod::asymptotic: return "asymptotic";
    case IntegrationMethod::implicit: return "implicit";
  }
  return "unknown";
}

}  // namespace zoneode
