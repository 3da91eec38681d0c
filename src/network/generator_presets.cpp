#include "network/generator.hpp"

#include <stdexcept>
#include <string>

namespace zoneode {

GeneratorSettings generator_preset(std::string_view name) {
  if (name == "default") return {100, 1000, 1};
  if (name == "s16") return {16, 150, 1};
  if (name == "s150") return {150, 5400, 1};
  if (name == "s365") return {365, 13000, 1};
  throw std::invalid_argument("unknown generator preset '" + std::string(name) + "', expected one of: default, s16, s150, s365");
}

}  // namespace zoneode
