#include "tools/cli/interrupt.h"

#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace loaderx::cli {
namespace {

std::atomic<int> pending_signal{0};

extern "C" void RecordSignal(int signal_number) {
  pending_signal.store(signal_number);
}

int TestBatchDelayMilliseconds() {
  static const int delay = [] {
    const char* text = std::getenv("LOADERX_CLI_TEST_BATCH_DELAY_MS");
    int milliseconds = 0;
    if (text == nullptr || !absl::SimpleAtoi(text, &milliseconds)) return 0;
    return milliseconds;
  }();
  return delay;
}

}  // namespace

ScopedInterruptHandler::ScopedInterruptHandler(bool catch_signals) {
  pending_signal.store(0);
  struct sigaction action = {};
  action.sa_handler = catch_signals ? RecordSignal : SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previous_int_);
  sigaction(SIGTERM, &action, &previous_term_);
}

ScopedInterruptHandler::~ScopedInterruptHandler() {
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
}

absl::Status CheckInterrupted() {
  if (const int delay = TestBatchDelayMilliseconds(); delay > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
  }
  const int signal_number = pending_signal.load();
  if (signal_number == 0) return absl::OkStatus();
  return absl::CancelledError(absl::StrCat(
      "interrupted by ", signal_number == SIGINT ? "SIGINT" : "SIGTERM"));
}

}  // namespace loaderx::cli
