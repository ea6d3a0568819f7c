#include "loaderx/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

namespace loaderx {
namespace {

// One `ParallelFor` call: shards are claimed through `next`; the caller
// waits for `finished` to reach `shards`.
struct Call {
  Call(int shards, const std::function<void(int)>& body)
      : shards(shards), body(body) {}

  // Claims and runs shards until none is left.
  void RunShards() {
    for (int shard = next.fetch_add(1); shard < shards;
         shard = next.fetch_add(1)) {
      body(shard);
      std::lock_guard lock(mu);
      if (++finished == shards) done.notify_all();
    }
  }

  const int shards;
  const std::function<void(int)>& body;
  std::atomic<int> next{0};
  std::mutex mu;
  std::condition_variable done;
  int finished = 0;  // Guarded by `mu`.
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
    }
    wake_.notify_all();
  }
  call->RunShards();
  std::unique_lock lock(call->mu);
  call->done.wait(lock, [&] { return call->finished == call->shards; });
}

void ThreadPool::Schedule(std::function<void()> task) {
  if (workers_.empty()) {
    task();
    return;
  }
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(task));
  }
  wake_.notify_one();
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // Stopping, and nothing left to do.
      job = std::move(queue_.front());
      queue_.pop_front();
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
