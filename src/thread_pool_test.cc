#include "loaderx/thread_pool.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace loaderx {
namespace {

TEST(ThreadPoolTest, RunsEveryShardExactlyOnce) {
  for (int workers : {0, 1, 3}) {
    ThreadPool pool(workers);
    EXPECT_EQ(pool.concurrency(), workers + 1);
    for (int shards : {0, 1, 2, 7, 100}) {
      std::vector<std::atomic<int>> runs(shards);
      pool.ParallelFor(shards, [&](int shard) { runs[shard]++; });
      for (int i = 0; i < shards; ++i) {
        EXPECT_EQ(runs[i].load(), 1) << workers << " workers, shard " << i;
      }
    }
  }
}

TEST(ThreadPoolTest, ConcurrentCallsFromManyThreadsAllComplete) {
  ThreadPool pool(2);
  std::atomic<long> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int round = 0; round < 50; ++round) {
        pool.ParallelFor(8, [&](int shard) { total += shard; });
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  EXPECT_EQ(total.load(), 4L * 50 * (0 + 1 + 2 + 3 + 4 + 5 + 6 + 7));
}

TEST(ThreadPoolTest, ShardsRunInParallelWhenWorkersExist) {
  // Two shards that each wait for the other to start can only finish if
  // they run at the same time.
  ThreadPool pool(1);
  std::atomic<int> started{0};
  pool.ParallelFor(2, [&](int) {
    started++;
    while (started.load() < 2) std::this_thread::yield();
  });
  EXPECT_EQ(started.load(), 2);
}

TEST(ThreadPoolTest, NestedCallsFromInsideShardsComplete) {
  // A loader's prefetch shard gathers a store on the same pool.
  ThreadPool pool(2);
  std::atomic<int> inner{0};
  pool.ParallelFor(6, [&](int) { pool.ParallelFor(5, [&](int) { inner++; }); });
  EXPECT_EQ(inner.load(), 30);
}

TEST(ThreadPoolTest, ScheduledTasksRunOnAWorker) {
  ThreadPool pool(2);
  EXPECT_EQ(pool.workers(), 2);
  std::mutex mu;
  std::condition_variable done;
  int runs = 0;
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> on_caller{false};
  for (int i = 0; i < 10; ++i) {
    pool.Schedule([&] {
      if (std::this_thread::get_id() == caller) on_caller = true;
      std::lock_guard lock(mu);
      if (++runs == 10) done.notify_all();
    });
  }
  std::unique_lock lock(mu);
  done.wait(lock, [&] { return runs == 10; });
  EXPECT_FALSE(on_caller.load());
}

TEST(ThreadPoolTest, WithoutWorkersScheduleRunsTheTaskInline) {
  ThreadPool pool(0);
  EXPECT_EQ(pool.workers(), 0);
  int runs = 0;
  pool.Schedule([&] { runs++; });
  EXPECT_EQ(runs, 1);
}

TEST(ThreadPoolTest, TheDestructorRunsEveryQueuedTask) {
  std::atomic<int> runs{0};
  {
    ThreadPool pool(1);
    // The first task holds the only worker until every task is queued.
    std::atomic<bool> release{false};
    pool.Schedule([&] {
      while (!release.load()) std::this_thread::yield();
      runs++;
    });
    for (int i = 0; i < 20; ++i) {
      pool.Schedule([&] {
        pool.ParallelFor(3, [&](int) {});  // Tasks may use the pool.
        runs++;
      });
    }
    release = true;
  }
  EXPECT_EQ(runs.load(), 21);
}

TEST(ThreadPoolTest, TheDefaultPoolIsSharedAndResizedForLaterUsers) {
  std::shared_ptr<ThreadPool> first = DefaultThreadPool();
  EXPECT_EQ(DefaultThreadPool(), first);
  EXPECT_EQ(first->concurrency(), DefaultThreadCount());

  SetDefaultThreadCount(3);
  std::shared_ptr<ThreadPool> resized = DefaultThreadPool();
  EXPECT_EQ(resized->concurrency(), 3);
  EXPECT_EQ(DefaultThreadCount(), 3);
  // The old pool still serves whoever holds it.
  std::atomic<int> runs{0};
  first->ParallelFor(4, [&](int) { runs++; });
  EXPECT_EQ(runs.load(), 4);

  SetDefaultThreadCount(3);  // Unchanged: the same pool.
  EXPECT_EQ(DefaultThreadPool(), resized);
  SetDefaultThreadCount(0);  // At least the caller.
  EXPECT_EQ(DefaultThreadPool()->concurrency(), 1);
}

}  // namespace
}  // namespace loaderx
