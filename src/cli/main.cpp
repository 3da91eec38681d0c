#include <iostream>

#include "cli/cli.hpp"
#include "cli/signals.hpp"

int main(int argc, char** argv) {
  // First of all: a stop request during MPI_Init or the set-up is noted like a later one, not the
  // default action (SIGUSR1 ended a starting run with status 138 and no word).
  zoneode::trap_stop_signals();
  zoneode::MpiContext mpi(&argc, &argv);
  std::vector<std::string> arguments(argv + 1, argv + argc);
  try {
    return zoneode::run_command(zoneode::parse_command_line(arguments), mpi);
  } catch (const zoneode::UsageError& error) {
    if (mpi.root()) std::cerr << "zoneode: " << error.what() << "\n(see zoneode --help)\n";
    return zoneode::exit_input_error;
  }
}
