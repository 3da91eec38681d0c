#include "network/generator.hpp"

#include <stdexcept>
#include <string>

namespace zoneode {

GeneratorSettings generator_preset(std::string_view name) {
  std::string expected;
  for (const GeneratorPreset& preset : generator_presets) {
    if (preset.name == name) return preset.settings;
    expected += (expected.empty() ? "" : ", ") + std::string(preset.name);
  }
  throw std::invalid_argument("unknown generator preset '" + std::string(name) + "', expected one of: " + expected);
}

}  // namespace zoneode
