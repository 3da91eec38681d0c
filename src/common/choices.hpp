// What a run can choose, as enums with their deck spellings, made from the one list of each:
// methods.def, backends.def, kernel_variants.def. Bottom floor: includes nothing of the project,
// so that the deck, the integrators, the backends and the kernels can all use it.
#pragma once

#include <cstdint>
// Run-time compiled device code (NVRTC, hipRTC: kernels/generated/) sees the enums only.
#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__)
#define ZONEODE_CHOICES_NAMES 1
#include <string_view>
#endif

namespace zoneode {

#define ZONEODE_CHOICE(name, summary) name,
// The method that advances one zone (deck `integrator.method`).
enum class IntegrationMethod : std::int32_t {
#include "common/methods.def"
};
// Where the zones are integrated (deck `run.backend`).
enum class BackendKind : std::int32_t {
#include "common/backends.def"
};
// The GPU kernel variant, one file each in kernels/ (deck `run.kernel`).
enum class KernelVariant : std::int32_t {
#include "common/kernel_variants.def"
};
#undef ZONEODE_CHOICE

// Every value of each enum, in list order (read by DeckSection::choice).
#define ZONEODE_CHOICE(name, summary) IntegrationMethod::name,
inline constexpr IntegrationMethod integration_methods[] = {
#include "common/methods.def"
};
#undef ZONEODE_CHOICE
#define ZONEODE_CHOICE(name, summary) BackendKind::name,
inline constexpr BackendKind backend_kinds[] = {
#include "common/backends.def"
};
#undef ZONEODE_CHOICE
#define ZONEODE_CHOICE(name, summary) KernelVariant::name,
inline constexpr KernelVariant kernel_variants[] = {
#include "common/kernel_variants.def"
};
#undef ZONEODE_CHOICE

// Where a kernel variant keeps its arrays (deck `run.kernel_placement`): its own choice, or at
// most the network and zone arrays in LDS, the zone arrays alone, or nothing (global memory).
enum class KernelPlacement : std::int32_t { automatic, network, zone, global };
inline constexpr KernelPlacement kernel_placements[] = {KernelPlacement::automatic, KernelPlacement::network,
                                                        KernelPlacement::zone, KernelPlacement::global};
#ifdef ZONEODE_CHOICES_NAMES
std::string_view kernel_placement_name(KernelPlacement placement);  // "auto", "network", "zone", "global"
#endif

// A kernel variant's launch choices as the deck gives them (`run.kernel_config`,
// `run.kernel_placement`, `run.chunk_terms`, `run.term_order`); zero and automatic leave the choice to the variant
// (kernels/README.md). For sweeps: results depend on them only through the order of parallel sums.
struct KernelTuning {
  int block = 0;            // threads per zone (0: the variant's choice)
  int group = 0;            // lanes per species (wave, tuned; 0 for final)
  int min_blocks = 0;       // launch bound: resident blocks per multiprocessor (0: none)
  bool configured = false;  // block, group and min_blocks come from the deck
  KernelPlacement placement = KernelPlacement::automatic;
  int chunk_terms = 0;      // final: the longest term chunk (0: ceil(terms / the variant's chunk threads))
  bool bank_order = true;   // final: terms ordered within chunks against shared-memory bank conflicts
  bool calibrated = false;  // implicit final: choose its kernel by timing the candidates (run.kernel_choice)
};

#ifdef ZONEODE_CHOICES_NAMES
// Deck spellings ("implicit", "gpu", "final") and one-line summaries (help text).
std::string_view integration_method_name(IntegrationMethod method);
std::string_view backend_kind_name(BackendKind kind);
std::string_view kernel_variant_name(KernelVariant variant);
std::string_view integration_method_summary(IntegrationMethod method);
std::string_view backend_kind_summary(BackendKind kind);
std::string_view kernel_variant_summary(KernelVariant variant);
#endif

}  // namespace zoneode
