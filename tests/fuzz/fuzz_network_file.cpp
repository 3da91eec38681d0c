// libFuzzer harness: the zoneode network-file reader (network/network_file) on arbitrary bytes.
// Refusals are std::runtime_error naming the line.
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "network/network_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    zoneode::parse_network_file(in, "fuzz.network");
  } catch (const std::runtime_error&) {
  }
  return 0;
}
