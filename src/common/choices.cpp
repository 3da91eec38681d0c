#include "common/choices.hpp"

#include <cstddef>

namespace zoneode {

namespace {
struct Spelling {
  std::string_view name, summary;
};

#define ZONEODE_CHOICE(name, summary) {#name, summary},
constexpr Spelling method_spellings[] = {
#include "common/methods.def"
};
constexpr Spelling backend_spellings[] = {
#include "common/backends.def"
};
constexpr Spelling variant_spellings[] = {
#include "common/kernel_variants.def"
};
#undef ZONEODE_CHOICE

template <std::size_t N, typename Enum>
Spelling spelling(const Spelling (&table)[N], Enum value) {
  const auto index = static_cast<std::size_t>(value);
  return index < N ? table[index] : Spelling{"unknown", "unknown"};
}
}  // namespace

std::string_view integration_method_name(IntegrationMethod method) { return spelling(method_spellings, method).name; }
std::string_view backend_kind_name(BackendKind kind) { return spelling(backend_spellings, kind).name; }
std::string_view kernel_variant_name(KernelVariant variant) { return spelling(variant_spellings, variant).name; }
std::string_view integration_method_summary(IntegrationMethod method) {
  return spelling(method_spellings, method).summary;
}
std::string_view kernel_placement_name(KernelPlacement placement) {
  switch (placement) {
    case KernelPlacement::automatic: return "auto";
    case KernelPlacement::network: return "network";
    case KernelPlacement::zone: return "zone";
    case KernelPlacement::global: return "global";
  }
  return "unknown";
}
std::string_view backend_kind_summary(BackendKind kind) { return spelling(backend_spellings, kind).summary; }
std::string_view kernel_variant_summary(KernelVariant variant) { return spelling(variant_spellings, variant).summary; }

}  // namespace zoneode
