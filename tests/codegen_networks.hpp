// The networks whose generated implicit linear algebra the tests compile in (issue 36, item 5):
// tests/codegen_emit.cpp writes their code at build time, tests/test_implicit_codegen.cpp runs it.
// Both make each network here, so the emitted code and the tested structure are one.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include "implicit_testing.hpp"
#include "network/generator.hpp"
#include "network/reaclib.hpp"

namespace zoneode {

// s16 and the default network with two electron captures (the Ye column's solve), rp-z12 from the
// test data (../shared/reaclib; rp-z24's slice where a plain clone lacks it) and rp-z24.
inline std::vector<std::string> codegen_network_names() { return {"s16", "default", "rpz12", "rpz24"}; }

inline Network codegen_network(const std::string& name) {
  if (name == "s16" || name == "default") return with_electron_captures(generate_network(generator_preset(name)));
  const std::string shipped = std::string(ZONEODE_SOURCE_DIR) + "/inputs/networks/rp-z24";
  std::string base = shipped;
  if (name == "rpz12") {
    const std::string data = std::string(ZONEODE_REACLIB_DATA) + "/rp-z12";
    if (std::ifstream(data + ".reaclib") && std::ifstream(data + ".nuclides")) base = data;
  }
  return read_reaclib(base + ".reaclib", read_nuclide_list(base + ".nuclides"));
}

}  // namespace zoneode
