#include <iostream>

#include "cli/cli.hpp"
#include "cli/signals.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define ZONEODE_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ZONEODE_SANITIZED 1
#endif

#if defined(__ELF__) && !defined(ZONEODE_SANITIZED)
namespace {
// The earliest code a dynamically linked program runs: once the dynamic loader has mapped the
// libraries, before any of their constructors (Open MPI's, HDF5's, libstdc++'s) and before main.
// Those took 0.1-0.3 s on a loaded node, in which SIGUSR1 ended the run with status 138 and no
// word. (Not in sanitizer builds: the sanitizer runtime initializes itself from .preinit_array
// and must come first; main() traps the signals there.) Before this, from the launcher's execv on
// (launcher.c), the stop signals are blocked: one sent in the loader's window, or in a sanitizer
// build before main, waits pending for the handler.
void trap_stop_signals_before_constructors(int, char**, char**) { zoneode::trap_stop_signals(); }
[[gnu::section(".preinit_array"), gnu::used]] void (*trap_early)(int, char**, char**) =
    trap_stop_signals_before_constructors;
}  // namespace
#endif

int main(int argc, char** argv) {
  // A stop request during MPI_Init or the set-up is noted like a later one, not the default action
  // (idempotent: already done above where the platform allows).
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
