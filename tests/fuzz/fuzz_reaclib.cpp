// libFuzzer harness: the REACLIB reader (network/reaclib) on arbitrary bytes, keeping every nuclide
// or the rp-z12 list (the first byte picks). Refusals are std::runtime_error naming the line.
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "network/reaclib.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::string> rp = {"n", "p", "d", "he3", "he4", "li7", "be7", "be8", "b8", "c12",
                                              "c13", "n13", "n14", "n15", "o14", "o15", "o16", "o17", "o18",
                                              "f17", "f18", "f19", "ne18", "ne19", "ne20", "na21", "mg24"};
  if (size == 0) return 0;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  try {
    zoneode::parse_reaclib(in, "fuzz.reaclib", (data[0] & 1) ? rp : std::vector<std::string>{});
  } catch (const std::runtime_error&) {
  }
  return 0;
}
