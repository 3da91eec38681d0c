#include "cli/signals.hpp"

#include <csignal>

namespace zoneode {

namespace {
// Written only by the handler (async-signal-safe: a lock-free sig_atomic_t store).
volatile std::sig_atomic_t received_signal = 0;
extern "C" void note_stop_signal(int signal) { received_signal = signal; }
}  // namespace

void trap_stop_signals() {
  struct sigaction action {};
  action.sa_handler = note_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGUSR1, &action, nullptr);
}

int stop_signal_received() { return received_signal; }

const char* stop_signal_name(int signal) {
  switch (signal) {
    case SIGTERM: return "SIGTERM";
    case SIGUSR1: return "SIGUSR1";
    default: return "a signal";
  }
}

}  // namespace zoneode
