/* The stop signals (cli/signals.hpp): the one list that the launcher (launcher.c) blocks and the
   program's trap_stop_signals() handles and unblocks. C, for the launcher. */
#ifndef ZONEODE_STOP_SIGNAL_SET_H
#define ZONEODE_STOP_SIGNAL_SET_H

#include <signal.h>

static inline void zoneode_stop_signal_set(sigset_t* set) {
  sigemptyset(set);
  sigaddset(set, SIGTERM);
  sigaddset(set, SIGUSR1);
  sigaddset(set, SIGINT);
}

#endif
