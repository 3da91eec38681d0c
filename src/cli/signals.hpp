// Stop requests by signal (SIGTERM, SIGUSR1: a batch system's warning before the time limit;
// SIGINT: Ctrl-C). The handler only sets a flag; the run reads it between outer steps, the ranks
// agree on it with one reduction, and the run stops there with a checkpoint (README.md, "Time
// limits and signals").
#pragma once

namespace zoneode {

// Installs the handler for SIGTERM, SIGUSR1 and SIGINT (SA_RESTART, so interrupted system calls
// resume; SIGINT's only once: a second Ctrl-C ends the run at once; and not where SIGINT is
// ignored already, as in a script's background job). The program calls it before any shared
// library's constructor (main.cpp: .preinit_array) and again first in main, before MPI_Init (which
// takes about half a second): a signal in the set-up then stops the run after its first outer
// step, as one later does; the run calls it again once MPI is up, in case MPI_Init replaced a
// handler. Each call then unblocks the three: the launcher `zoneode` (launcher.c) starts this
// program, zoneode.bin, with them blocked, so that one sent while the dynamic loader maps the
// shared libraries (before any code of ours runs) waits, pending, for the handler. Idempotent: a
// flag already set stays set.
void trap_stop_signals();
// The signal received since trap_stop_signals(), or 0.
int stop_signal_received();
const char* stop_signal_name(int signal);

}  // namespace zoneode
