#include <iostream>

#include "cli/cli.hpp"

int main(int argc, char** argv) {
  zoneode::MpiContext mpi(&argc, &argv);
  std::vector<std::string> arguments(argv + 1, argv + argc);
  try {
    return zoneode::run_command(zoneode::parse_command_line(arguments), mpi);
  } catch (const zoneode::UsageError& error) {
    if (mpi.root()) std::cerr << "zoneode: " << error.what() << "\n(see zoneode --help)\n";
    return zoneode::exit_input_error;
  }
}
