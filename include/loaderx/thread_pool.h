// A fixed set of worker threads that calls split their work across: every
// store's gathers and compressions, and the loader's prefetching, run their
// shards here instead of starting threads per call.
//
// One pool serves the whole process (`DefaultThreadPool`), so k stores and a
// loader share the machine's cores instead of each starting a thread per
// core; its size is set once, before first use, with
// `SetDefaultThreadCount`. A test or an embedder that wants other threads
// passes its own pool in `StoreOptions::thread_pool`.
//
// `ParallelFor` may be called from many threads at once, and from inside a
// shard of another call (a loader's prefetch gathering a store): each call's
// shards are claimed dynamically by idle workers and by the calling thread
// itself, which therefore always makes progress even when every worker is
// busy, and a call waits only for shards that some thread is running.
// `Schedule` queues work that nobody waits for (a loader's prefetching); a
// caller that later needs that work done must be able to do it itself, since
// a worker may be busy or the pool may have none.
//
// A worker out of work, and a caller waiting for other threads' shards,
// keep looking for up to 100 microseconds before they sleep: calls that come
// back to back (a training loop's batches) then start and finish without a
// thread being woken, which on a VM costs as much as gathering a batch of
// small records. An idle pool uses no processor time after that.

#ifndef LOADERX_THREAD_POOL_H_
#define LOADERX_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"

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
  // have finished. If shards throw, the rest still run to the end, and then
  // the first exception is rethrown here, on the calling thread: nothing
  // escapes into a worker (where it would end the process).
  void ParallelFor(int shards, const std::function<void(int)>& body);

  // The same for shards that report a status: returns the first failed
  // shard's status (by shard number) once all have finished. An exception
  // from a shard becomes a status: ResourceExhausted for `std::bad_alloc`
  // (with `ErrorCode::kOutOfMemory`), Internal for anything else. Never
  // throws.
  absl::Status TryParallelFor(int shards,
                              const std::function<absl::Status(int)>& body);

  // The background threads (`concurrency() - 1`).
  int workers() const { return static_cast<int>(workers_.size()); }

  // Queues `task` to run once on a worker thread and returns at once; tasks
  // and `ParallelFor` shards start in the order they were queued. With no
  // workers, runs `task` on the caller before returning. A task may call
  // `ParallelFor` and `Schedule`. The destructor runs every queued task
  // before it returns, so a task must not hold the last reference to the
  // pool it runs on.
  void Schedule(std::function<void()> task);

 private:
  void WorkerLoop();

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;  // Guarded by `mu_`.
  // `queue_.size()`, written under `mu_`, read without it by workers
  // looking for work before they sleep.
  std::atomic<size_t> queued_{0};
  bool stopping_ = false;  // Guarded by `mu_`.
  std::vector<std::thread> workers_;
};

// The process's shared pool, created on first use with
// `SetDefaultThreadCount`'s count (default: one thread per core, the
// calling thread counting as one). Stores and loaders keep the pool they
// were created with alive.
std::shared_ptr<ThreadPool> DefaultThreadPool();

// Sets how many threads a call on the default pool may use (its workers
// plus the caller; at least 1, which runs everything on the caller). Takes
// effect for stores and loaders created afterwards: a new default pool
// replaces the old one, which lives on as long as something uses it.
void SetDefaultThreadCount(int threads);

// The thread count `DefaultThreadPool` uses now.
int DefaultThreadCount();

}  // namespace loaderx

#endif  // LOADERX_THREAD_POOL_H_
