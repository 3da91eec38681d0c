// Stop requests by signal (SIGTERM, SIGUSR1: a batch system's warning before the time limit).
// The handler only sets a flag; the run reads it between outer steps, the ranks agree on it with
// one reduction, and the run stops there with a checkpoint (README.md, "Time limits and signals").
#pragma once

namespace zoneode {

// Installs the handler for SIGTERM and SIGUSR1 (SA_RESTART, so interrupted system calls resume).
void trap_stop_signals();
// The signal received since trap_stop_signals(), or 0.
int stop_signal_received();
const char* stop_signal_name(int signal);

}  // namespace zoneode
