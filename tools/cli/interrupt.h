// Ctrl-C for long commands. While a `ScopedInterruptHandler` lives,
// SIGINT and SIGTERM only set a flag (the handlers in place before are
// restored when it goes, so an embedding interpreter keeps its own);
// loops call `CheckInterrupted` between batches, which turns a pending
// signal into a Cancelled status that unwinds the command and removes its
// unfinished destination (see `staged_output.h`).

#ifndef LOADERX_TOOLS_CLI_INTERRUPT_H_
#define LOADERX_TOOLS_CLI_INTERRUPT_H_

#include <signal.h>

#include "absl/status/status.h"

namespace loaderx::cli {

class ScopedInterruptHandler {
 public:
  // `catch_signals` false: the default action (termination) instead, also
  // in an interpreter that would otherwise only note the signal.
  explicit ScopedInterruptHandler(bool catch_signals);
  ~ScopedInterruptHandler();
  ScopedInterruptHandler(const ScopedInterruptHandler&) = delete;
  ScopedInterruptHandler& operator=(const ScopedInterruptHandler&) = delete;

 private:
  struct sigaction previous_int_;
  struct sigaction previous_term_;
};

// Cancelled ("interrupted by SIGINT") once a signal arrived, else OK. Also
// waits `LOADERX_CLI_TEST_BATCH_DELAY_MS` milliseconds when that variable is
// set: the hook the interrupt tests use to make a small job last.
absl::Status CheckInterrupted();

}  // namespace loaderx::cli

#endif  // LOADERX_TOOLS_CLI_INTERRUPT_H_
