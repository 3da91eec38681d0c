// Stop signals (cli/signals.hpp): what a later SIGINT does after stop requests in the start-up.
// Each case runs in a child process (a death test): the handler's state is per process.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>

#include <signal.h>

#include "cli/signals.hpp"

namespace {

// The start-up as the program runs it: trap_stop_signals() from .preinit_array, the signals in
// `sent` arriving one after the other, then trap_stop_signals() again (main, then the run's set-up
// after MPI_Init), then Ctrl-C. Exits 75 when that Ctrl-C was noted as a stop request.
void start_up_then_ctrl_c(std::initializer_list<int> sent) {
  std::signal(SIGINT, SIG_DFL);  // as a terminal's foreground job has it (not a script's background job)
  zoneode::trap_stop_signals();
  for (const int signal : sent) std::raise(signal);  // raise: handled before it returns
  zoneode::trap_stop_signals();
  zoneode::trap_stop_signals();
  std::raise(SIGINT);
  std::exit(zoneode::stop_signal_received() == SIGINT ? 75 : 1);
}

}  // namespace

// The documented rule: the first Ctrl-C asks for a checkpoint, a second one ends the run at once.
TEST(StopSignals, CtrlCInTheStartUpThenCtrlCEndsTheRun) {
  EXPECT_EXIT(start_up_then_ctrl_c({SIGINT}), testing::KilledBySignal(SIGINT), "");
}

// Issue 40: SIGINT then SIGTERM in the start-up replaced the noted signal, and the next
// trap_stop_signals() put the SIGINT handler back: the later Ctrl-C was noted (the run went on
// to its checkpoint, 75) instead of ending it with 130.
TEST(StopSignals, CtrlCThenSigtermInTheStartUpThenCtrlCEndsTheRun) {
  EXPECT_EXIT(start_up_then_ctrl_c({SIGINT, SIGTERM}), testing::KilledBySignal(SIGINT), "");
  EXPECT_EXIT(start_up_then_ctrl_c({SIGINT, SIGUSR1}), testing::KilledBySignal(SIGINT), "");
}

// Controls: without an earlier Ctrl-C, Ctrl-C is a stop request whatever came before it.
TEST(StopSignals, SigtermInTheStartUpThenCtrlCIsAStopRequest) {
  EXPECT_EXIT(start_up_then_ctrl_c({SIGTERM}), testing::ExitedWithCode(75), "");
  EXPECT_EXIT(start_up_then_ctrl_c({}), testing::ExitedWithCode(75), "");
}
