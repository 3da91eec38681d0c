// zoneode-compare A.h5 B.h5 [options]: compares two zoneode state files (validation/README.md).
#include <iostream>
#include <string>
#include <vector>

#include "compare.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> arguments(argv + 1, argv + argc);
  return zoneode::compare::run_tool(arguments, std::cout, std::cerr);
}
