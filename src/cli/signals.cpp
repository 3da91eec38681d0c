#include "cli/signals.hpp"

#include <csignal>

#include <signal.h>  // pthread_sigmask

#include "cli/stop_signal_set.h"

namespace zoneode {

namespace {
// Written only by the handler (async-signal-safe: a lock-free sig_atomic_t store).
volatile std::sig_atomic_t received_signal = 0;
// Set once a SIGINT reached the handler: its one use is spent, whatever signal came after it (a
// SIGTERM after it replaced received_signal, and the next trap_stop_signals() put the SIGINT
// handler back: a later Ctrl-C was noted again instead of ending the run with 130; issue 40).
volatile std::sig_atomic_t interrupt_used = 0;
extern "C" void note_stop_signal(int signal) {
  if (signal == SIGINT) interrupt_used = 1;
  received_signal = signal;
}

void install_handlers() {
  struct sigaction action {};
  action.sa_handler = note_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGUSR1, &action, nullptr);
  // Ctrl-C once asks for a checkpoint; a second Ctrl-C has the default action (ends the run at
  // once, status 130), so that a run with one long outer step can still be interrupted.
  if (interrupt_used) return;  // the handler was used up already (SA_RESETHAND): leave it so
  // Ignored by whoever started the run (a background job of a script, by POSIX shells'
  // convention): Ctrl-C is not meant for it, so it stays ignored.
  struct sigaction current {};
  if (sigaction(SIGINT, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) return;
  action.sa_flags = SA_RESTART | SA_RESETHAND;
  sigaction(SIGINT, &action, nullptr);
}
}  // namespace

void trap_stop_signals() {
  install_handlers();
  // The launcher (launcher.c) started this program with the three blocked: one that arrived since
  // (in the loader, a library's constructor) is pending and reaches the handler now.
  sigset_t stop_signals;
  zoneode_stop_signal_set(&stop_signals);
  pthread_sigmask(SIG_UNBLOCK, &stop_signals, nullptr);
}

int stop_signal_received() { return received_signal; }

const char* stop_signal_name(int signal) {
  switch (signal) {
    case SIGTERM: return "SIGTERM";
    case SIGUSR1: return "SIGUSR1";
    case SIGINT: return "SIGINT";
    default: return "a signal";
  }
}

}  // namespace zoneode
