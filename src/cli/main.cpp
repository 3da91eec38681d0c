#include <iostream>

#include "cli/cli.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> arguments(argv + 1, argv + argc);
  try {
    return zoneode::run_command(zoneode::parse_command_line(arguments));
  } catch (const zoneode::UsageError& error) {
    std::cerr << "zoneode: " << error.what() << "\n(see zoneode --help)\n";
    return zoneode::exit_input_error;
  }
}
