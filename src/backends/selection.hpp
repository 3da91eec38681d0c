// Which method, backend and kernel variant a run uses (deck `integrator.method`, `run.backend`,
// `run.kernel`), and the options a backend is made with.
#pragma once

#include <cstdint>
#include <string_view>

#include "integrators/settings.hpp"

namespace zoneode {

enum class BackendKind : std::int32_t { cpu = 0, gpu = 1 };
inline constexpr BackendKind backend_kinds[] = {BackendKind::cpu, BackendKind::gpu};

// The GPU kernel variants, one file each in kernels/ (kernels/README.md).
enum class KernelVariant : std::int32_t { baseline = 0, lds = 1, wave = 2, tuned = 3, final = 4 };
inline constexpr KernelVariant kernel_variants[] = {KernelVariant::baseline, KernelVariant::lds, KernelVariant::wave,
                                                    KernelVariant::tuned, KernelVariant::final};
inline constexpr IntegrationMethod integration_methods[] = {IntegrationMethod::asymptotic, IntegrationMethod::implicit};

// Deck spellings ("gpu", "final", "asymptotic"), read by DeckSection::choice.
std::string_view backend_kind_name(BackendKind kind);
std::string_view kernel_variant_name(KernelVariant variant);
std::string_view integration_method_name(IntegrationMethod method);

struct BackendSelection {
  IntegrationMethod method = IntegrationMethod::asymptotic;
  BackendKind backend = BackendKind::cpu;
  KernelVariant kernel = KernelVariant::baseline;  // GPU only
};

struct BackendOptions {
  int threads = 0;                 // CPU: OpenMP threads (0: OpenMP's default)
  int local_rank = 0;              // GPU: this rank's index among the ranks of its node
  std::int64_t batch_zones = 0;    // GPU: zones per batch (0: as many as device memory allows)
};

}  // namespace zoneode
