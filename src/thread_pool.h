// A fixed set of worker threads that one call splits its work across: the
// engine's gathers and compressions run their shards here instead of
// starting threads per call.
//
// `ParallelFor` may be called from many threads at once; each call's shards
// are claimed dynamically by idle workers and by the calling thread itself,
// which therefore always makes progress even when every worker is busy with
// other calls. Shards must not call `ParallelFor` on the same pool.

#ifndef LOADERX_SRC_THREAD_POOL_H_
#define LOADERX_SRC_THREAD_POOL_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace loaderx {

class ThreadPool {
 public:
  // `workers` background threads (0 is allowed: everything runs inline).
  explicit ThreadPool(int workers);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The threads a call can use: the workers plus the caller.
  int concurrency() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs `body(shard)` for every shard in `[0, shards)` and returns when all
  // have finished.
  void ParallelFor(int shards, const std::function<void(int)>& body);

 private:
  void WorkerLoop();

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;  // Guarded by `mu_`.
  bool stopping_ = false;                    // Guarded by `mu_`.
  std::vector<std::thread> workers_;
};

}  // namespace loaderx

#endif  // LOADERX_SRC_THREAD_POOL_H_
