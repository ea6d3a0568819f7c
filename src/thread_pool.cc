#include "loaderx/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/error_code.h"

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include <immintrin.h>
#endif

namespace loaderx {
namespace {

// How long a thread that has run out of work keeps looking for more before
// it sleeps: a worker after its last job, a caller waiting for the shards
// other threads run. Waking a sleeping thread costs a system call on each
// side and, on a VM, the wake-up of an idle virtual core: tens of
// microseconds, as much as a whole batch of small records takes to gather.
// A data loader's calls come back to back, so a worker still looking when
// the next call arrives takes its shard at once. The bound keeps an idle
// pool from holding a core for longer than one such wake-up would cost.
constexpr std::chrono::microseconds kSpinBeforeSleep{100};

// Tells the core this thread is waiting (x86 `pause`: less power, and the
// other hyperthread gets the core's resources).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
  _mm_pause();
#endif
}

// Calls `ready` until it returns true (then returns true) or
// `kSpinBeforeSleep` has passed (then false).
template <typename Ready>
bool SpinUntil(const Ready& ready) {
  const auto deadline = std::chrono::steady_clock::now() + kSpinBeforeSleep;
  for (unsigned spins = 1;; ++spins) {
    if (ready()) return true;
    if (spins % 64 == 0 && std::chrono::steady_clock::now() >= deadline) {
      return false;
    }
    CpuRelax();
  }
}

// One `ParallelFor` call: shards are claimed through `next`; the caller
// waits for `finished` to reach `shards` (spinning first, then on `done`).
struct Call {
  Call(int shards, const std::function<void(int)>& body)
      : shards(shards), body(body) {}

  // Claims and runs shards until none is left. A shard that throws is
  // finished like any other; the first exception is kept for the caller.
  void RunShards() {
    for (int shard = next.fetch_add(1); shard < shards;
         shard = next.fetch_add(1)) {
      std::exception_ptr thrown;
      try {
        body(shard);
      } catch (...) {
        thrown = std::current_exception();
      }
      std::lock_guard lock(mu);
      if (thrown != nullptr && first_exception == nullptr) {
        first_exception = std::move(thrown);
      }
      // A worker keeps no reference to an exception past its shard's end:
      // the caller, which takes `first_exception`, frees it on its own
      // thread (libstdc++'s uninstrumented reference count would otherwise
      // hide the order of a free on the worker from ThreadSanitizer).
      thrown = nullptr;
      if (finished.fetch_add(1, std::memory_order_release) + 1 == shards) {
        done.notify_all();
      }
    }
  }

  const int shards;
  const std::function<void(int)>& body;
  std::atomic<int> next{0};
  std::mutex mu;
  std::condition_variable done;
  // Written under `mu` (so `done` misses no wake-up), read without it
  // while the caller spins.
  std::atomic<int> finished{0};
  std::exception_ptr first_exception;  // Guarded by `mu`.
};

}  // namespace

ThreadPool::ThreadPool(int workers) {
  workers_.reserve(workers);
  for (int i = 0; i < workers; ++i) {
    workers_.emplace_back([this] { WorkerLoop(); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::ParallelFor(int shards, const std::function<void(int)>& body) {
  if (shards <= 0) return;
  auto call = std::make_shared<Call>(shards, body);
  const int helpers = std::min<int>(shards - 1, workers_.size());
  if (helpers > 0) {
    {
      std::lock_guard lock(mu_);
      for (int i = 0; i < helpers; ++i) {
        queue_.emplace_back([call] { call->RunShards(); });
      }
      queued_.store(queue_.size(), std::memory_order_release);
    }
    wake_.notify_all();
  }
  call->RunShards();
  const auto all_finished = [&] {
    return call->finished.load(std::memory_order_acquire) == call->shards;
  };
  SpinUntil(all_finished);
  // Taken even when the spin saw every shard finish: `first_exception` is
  // read under `mu`.
  std::unique_lock lock(call->mu);
  call->done.wait(lock, all_finished);
  if (call->first_exception != nullptr) {
    std::exception_ptr thrown = std::move(call->first_exception);
    lock.unlock();
    std::rethrow_exception(thrown);
  }
}

absl::Status ThreadPool::TryParallelFor(
    int shards, const std::function<absl::Status(int)>& body) {
  std::vector<absl::Status> results(std::max(shards, 0));
  try {
    ParallelFor(shards, [&](int shard) { results[shard] = body(shard); });
  } catch (const std::bad_alloc&) {
    return WithErrorCode(
        absl::ResourceExhaustedError(
            "out of memory in a parallel task (std::bad_alloc)"),
        ErrorCode::kOutOfMemory);
  } catch (const std::exception& e) {
    return absl::InternalError(
        absl::StrCat("a parallel task threw: ", e.what()));
  } catch (...) {
    return absl::InternalError("a parallel task threw a non-standard value");
  }
  for (absl::Status& result : results) {
    if (!result.ok()) return std::move(result);
  }
  return absl::OkStatus();
}

void ThreadPool::Schedule(std::function<void()> task) {
  if (workers_.empty()) {
    task();
    return;
  }
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(task));
    queued_.store(queue_.size(), std::memory_order_release);
  }
  wake_.notify_one();
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    // Out of work: look for more for a while before sleeping. The
    // destructor wakes sleepers only, so a spinning worker sees
    // `stopping_` once its spin ends.
    SpinUntil([this] { return queued_.load(std::memory_order_acquire) != 0; });
    std::function<void()> job;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // Stopping, and nothing left to do.
      job = std::move(queue_.front());
      queue_.pop_front();
      queued_.store(queue_.size(), std::memory_order_relaxed);
    }
    job();
  }
}

namespace {

std::mutex default_mu;
int default_threads = 0;  // Guarded by `default_mu`; 0: one per core.
std::shared_ptr<ThreadPool> default_pool;  // Guarded by `default_mu`.

int ThreadsPerCore() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace

std::shared_ptr<ThreadPool> DefaultThreadPool() {
  std::lock_guard lock(default_mu);
  if (default_pool == nullptr) {
    const int threads =
        default_threads > 0 ? default_threads : ThreadsPerCore();
    default_pool = std::make_shared<ThreadPool>(threads - 1);
  }
  return default_pool;
}

void SetDefaultThreadCount(int threads) {
  std::lock_guard lock(default_mu);
  threads = std::max(threads, 1);
  if (default_pool != nullptr && default_pool->concurrency() == threads) return;
  default_threads = threads;
  default_pool.reset();  // The next user creates the resized pool.
}

int DefaultThreadCount() {
  std::lock_guard lock(default_mu);
  return default_threads > 0 ? default_threads : ThreadsPerCore();
}

}  // namespace loaderx
