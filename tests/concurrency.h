// Runs a test body on several threads at once and collects what each
// returned, so concurrent tests report every thread's error (and TSan sees
// the real interleaving).

#ifndef LOADERX_TESTS_CONCURRENCY_H_
#define LOADERX_TESTS_CONCURRENCY_H_

#include <functional>
#include <thread>
#include <vector>

#include "absl/status/status.h"

namespace loaderx {

// Starts `threads` threads running `body(thread_index)`, joins them, and
// returns their statuses in thread order.
inline std::vector<absl::Status> RunOnThreads(
    int threads, const std::function<absl::Status(int)>& body) {
  std::vector<absl::Status> results(threads);
  std::vector<std::thread> running;
  running.reserve(threads);
  for (int t = 0; t < threads; ++t) {
    running.emplace_back([&results, &body, t] { results[t] = body(t); });
  }
  for (std::thread& thread : running) thread.join();
  return results;
}

}  // namespace loaderx

#endif  // LOADERX_TESTS_CONCURRENCY_H_
