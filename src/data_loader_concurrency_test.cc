// DataLoader's threading contract: prefetching stays within its bounds,
// `Close` and the destructor wait for gathers in flight and leave nothing
// running, `Seek` with gathers in flight keeps the bound, batches may be
// released from any thread, and a pool without workers or a consumer that
// is itself a pool thread cannot deadlock. Meant to run under TSan too.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "loaderx/data_loader.h"
#include "loaderx/spi/little_endian.h"
#include "tests/loader_testing.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

using std::chrono::milliseconds;

constexpr uint64_t kBatch = 4;  // Sequential: step s starts at index 4 s.

uint64_t StepOf(absl::Span<const uint64_t> indices) {
  return indices[0] / kBatch;
}

// Polls `condition` for up to 20 s.
bool Eventually(const std::function<bool()>& condition) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

// Holds the gathers that wait on it until opened.
class Gate {
 public:
  void Wait() {
    std::unique_lock lock(mu_);
    opened_.wait(lock, [this] { return open_; });
  }
  void Open() {
    std::lock_guard lock(mu_);
    open_ = true;
    opened_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable opened_;
  bool open_ = false;
};

// An `IndexStream` that counts its gathers (started, in flight, the most
// at once) and holds the steps `blocked` selects at `gate` for the whole
// gather.
class TrackedStream final : public LoaderStream {
 public:
  explicit TrackedStream(std::function<bool(uint64_t step)> blocked = nullptr)
      : inner_(1 << 20), blocked_(std::move(blocked)) {}

  const StreamType& type() const override { return inner_.type(); }
  uint64_t size() const override { return inner_.size(); }

  absl::Status Gather(absl::Span<const uint64_t> indices,
                      StreamBatch& out) const override {
    started++;
    const int now = ++in_flight;
    for (int most = most_in_flight.load(); now > most;) {
      if (most_in_flight.compare_exchange_weak(most, now)) break;
    }
    if (on_gather) on_gather(StepOf(indices));
    if (blocked_ && blocked_(StepOf(indices))) gate.Wait();
    absl::Status status = inner_.Gather(indices, out);
    --in_flight;
    return status;
  }

  mutable Gate gate;
  mutable std::atomic<int> started{0};
  mutable std::atomic<int> in_flight{0};
  mutable std::atomic<int> most_in_flight{0};
  // Runs at the start of every gather, from the gathering thread.
  std::function<void(uint64_t step)> on_gather;

 private:
  const IndexStream inner_;
  const std::function<bool(uint64_t)> blocked_;
};

DataLoaderOptions Sequential(std::shared_ptr<ThreadPool> pool, int prefetch,
                             int max_concurrent = 0) {
  DataLoaderOptions options;
  options.batch_size = kBatch;
  options.mode = SamplerMode::kSequential;
  options.prefetch = prefetch;
  options.max_concurrent_gathers = max_concurrent;
  options.thread_pool = std::move(pool);
  return options;
}

std::unique_ptr<DataLoader> LoaderOver(const LoaderStream& stream,
                                       const DataLoaderOptions& options) {
  return DataLoader::Create({{"x", Unowned(stream)}}, options).value();
}

// Whether `batch` is step `step` of a sequential loader over an
// `IndexStream`: records 4 step, 4 step + 1, ...
bool IsStep(const Batch& batch, uint64_t step) {
  if (batch.step() != step || batch.size() != kBatch) return false;
  for (size_t r = 0; r < kBatch; ++r) {
    if (LoadLittle<uint64_t>(batch.stream(0).record(r).data()) !=
        kBatch * step + r) {
      return false;
    }
  }
  return true;
}

TEST(DataLoaderConcurrencyTest, PrefetchRunsAheadWithinItsBound) {
  constexpr int kPrefetch = 3;
  TrackedStream stream;
  std::atomic<int64_t> nexts_started{0};
  std::atomic<bool> beyond_bound{false};
  // While the k-th `Next` (from 0) runs, steps up to k + prefetch may be
  // gathered: k itself, then the refill behind it.
  stream.on_gather = [&](uint64_t step) {
    if (static_cast<int64_t>(step) > nexts_started.load() - 1 + kPrefetch) {
      beyond_bound = true;
    }
  };
  std::unique_ptr<DataLoader> loader = LoaderOver(
      stream, Sequential(std::make_shared<ThreadPool>(2), kPrefetch));
  EXPECT_EQ(loader->options().max_concurrent_gathers, kPrefetch);
  nexts_started++;
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<Batch> batch, loader->Next());
  EXPECT_TRUE(IsStep(*batch, 0));
  // Steps 1..3 are gathered while the consumer holds step 0, and no more.
  EXPECT_TRUE(Eventually(
      [&] { return loader->stats().gathers_completed == 1 + kPrefetch; }));
  std::this_thread::sleep_for(milliseconds(30));
  EXPECT_EQ(loader->stats().gathers_completed, 1u + kPrefetch);
  for (uint64_t s = 1; s < 400; ++s) {
    nexts_started++;
    ASSERT_OK_AND_ASSIGN(batch, loader->Next());
    ASSERT_TRUE(IsStep(*batch, s));
  }
  EXPECT_FALSE(beyond_bound.load());
}

TEST(DataLoaderConcurrencyTest, AtMostMaxConcurrentGathersRunAtOnce) {
  TrackedStream stream;
  stream.on_gather = [](uint64_t) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  };
  std::unique_ptr<DataLoader> loader = LoaderOver(
      stream, Sequential(std::make_shared<ThreadPool>(3), /*prefetch=*/6,
                         /*max_concurrent=*/2));
  for (uint64_t s = 0; s < 300; ++s) {
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<Batch> batch, loader->Next());
    ASSERT_TRUE(IsStep(*batch, s));
  }
  EXPECT_LE(stream.most_in_flight.load(), 2);
  EXPECT_GE(stream.most_in_flight.load(), 1);
}

// Step 0 is gathered, steps 1 and 2 are held in flight at the gate. The
// consumer waits for its own step only, so it never runs into the gate.
DataLoaderOptions InFlightOptions() {
  DataLoaderOptions options =
      Sequential(std::make_shared<ThreadPool>(2), /*prefetch=*/2);
  options.gather_while_waiting = false;
  return options;
}

class InFlightTest : public testing::Test {
 protected:
  InFlightTest()
      : stream_([](uint64_t step) { return step >= 1 && step < 100; }),
        loader_(LoaderOver(stream_, InFlightOptions())) {}

  void StartGathersInFlight() {
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<Batch> first, loader_->Next());
    EXPECT_TRUE(IsStep(*first, 0));
    ASSERT_TRUE(Eventually([&] { return stream_.in_flight.load() == 2; }));
  }

  TrackedStream stream_;
  std::unique_ptr<DataLoader> loader_;
};

TEST_F(InFlightTest, CloseWaitsForGathersInFlightAndStartsNoMore) {
  StartGathersInFlight();
  std::atomic<bool> closed{false};
  std::thread closer([&] {
    loader_->Close();
    closed = true;
  });
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(closed.load()) << "Close returned with gathers in flight";
  stream_.gate.Open();
  closer.join();
  EXPECT_EQ(stream_.in_flight.load(), 0);
  EXPECT_EQ(stream_.started.load(), 3);  // Steps 0, 1, 2; nothing after.
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(stream_.started.load(), 3);
  EXPECT_STATUS_CODE(loader_->Next(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(InFlightTest, TheDestructorWaitsForGathersInFlight) {
  StartGathersInFlight();
  std::thread destroyer([&] { loader_.reset(); });
  std::this_thread::sleep_for(milliseconds(20));
  stream_.gate.Open();
  destroyer.join();
  EXPECT_EQ(stream_.in_flight.load(), 0);
  EXPECT_EQ(stream_.started.load(), 3);
}

TEST_F(InFlightTest, SeekWithGathersInFlightKeepsThePrefetchBound) {
  StartGathersInFlight();
  ASSERT_OK(loader_->Seek(100));
  // Steps 1 and 2 still fill the prefetch bound: step 100 waits for them.
  std::atomic<bool> returned{false};
  absl::StatusOr<std::shared_ptr<Batch>> batch;
  std::thread consumer([&] {
    batch = loader_->Next();
    returned = true;
  });
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(returned.load());
  EXPECT_EQ(stream_.started.load(), 3);
  stream_.gate.Open();
  consumer.join();
  ASSERT_OK(batch);
  EXPECT_TRUE(IsStep(**batch, 100));
  // Step 0's batch, steps 1 and 2's slots (now steps 100 and 101), at most
  // one spare.
  EXPECT_LE(loader_->stats().batches_created, 2u + 2u);
}

TEST_F(InFlightTest, CloseWakesANextWaitingInAnotherThread) {
  StartGathersInFlight();
  absl::StatusOr<std::shared_ptr<Batch>> batch;
  std::thread consumer([&] { batch = loader_->Next(); });  // Waits: step 1.
  std::thread closer([&] { loader_->Close(); });
  std::this_thread::sleep_for(milliseconds(20));
  stream_.gate.Open();
  consumer.join();
  closer.join();
  EXPECT_STATUS_CODE(batch, absl::StatusCode::kFailedPrecondition);
}

// Whether the consumer gathered a step other than the one its `Next` waited
// for, in 60 steps of slow gathers with one worker.
bool ConsumerGatheredAhead(bool gather_while_waiting) {
  const std::thread::id consumer = std::this_thread::get_id();
  std::atomic<int64_t> waiting_for{0};
  std::atomic<bool> ahead{false};
  TrackedStream stream;
  stream.on_gather = [&](uint64_t step) {
    if (std::this_thread::get_id() == consumer &&
        static_cast<int64_t>(step) != waiting_for.load()) {
      ahead = true;
    }
    std::this_thread::sleep_for(milliseconds(2));
  };
  DataLoaderOptions options =
      Sequential(std::make_shared<ThreadPool>(1), /*prefetch=*/4);
  options.gather_while_waiting = gather_while_waiting;
  std::unique_ptr<DataLoader> loader = LoaderOver(stream, options);
  for (uint64_t s = 0; s < 60; ++s) {
    waiting_for = static_cast<int64_t>(s);
    absl::StatusOr<std::shared_ptr<Batch>> batch = loader->Next();
    EXPECT_TRUE(batch.ok() && IsStep(**batch, s));
    // The refill at the end of `Next` gathers nothing on this thread.
    waiting_for = -1;
  }
  return ahead.load();
}

TEST(DataLoaderConcurrencyTest, AWaitingConsumerGathersAheadUnlessTold) {
  EXPECT_FALSE(ConsumerGatheredAhead(/*gather_while_waiting=*/false));
  // With one worker, the consumer finds its step being gathered and takes
  // the next one rather than idle.
  EXPECT_TRUE(ConsumerGatheredAhead(/*gather_while_waiting=*/true));
}

TEST(DataLoaderConcurrencyTest, BatchesMayBeReleasedFromAnotherThread) {
  TrackedStream stream;
  std::unique_ptr<DataLoader> loader =
      LoaderOver(stream, Sequential(std::make_shared<ThreadPool>(2), 4));
  std::mutex mu;
  std::condition_variable changed;
  std::deque<std::shared_ptr<Batch>> handed_over;
  bool done = false;
  std::atomic<int> checked{0};
  std::thread releaser([&] {
    for (uint64_t s = 0;; ++s) {
      std::shared_ptr<Batch> batch;
      {
        std::unique_lock lock(mu);
        changed.wait(lock, [&] { return done || !handed_over.empty(); });
        if (handed_over.empty()) return;
        batch = std::move(handed_over.front());
        handed_over.pop_front();
      }
      if (IsStep(*batch, s)) checked++;
    }  // Released here, on this thread, while the loader refills.
  });
  for (uint64_t s = 0; s < 500; ++s) {
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<Batch> batch, loader->Next());
    std::lock_guard lock(mu);
    handed_over.push_back(std::move(batch));
    changed.notify_all();
  }
  {
    std::lock_guard lock(mu);
    done = true;
    changed.notify_all();
  }
  releaser.join();
  EXPECT_EQ(checked.load(), 500);
}

TEST(DataLoaderConcurrencyTest, APoolWithoutWorkersGathersOnTheConsumer) {
  const std::thread::id consumer = std::this_thread::get_id();
  std::atomic<bool> elsewhere{false};
  TrackedStream stream;
  stream.on_gather = [&](uint64_t) {
    if (std::this_thread::get_id() != consumer) elsewhere = true;
  };
  std::unique_ptr<DataLoader> loader =
      LoaderOver(stream, Sequential(std::make_shared<ThreadPool>(0), 4));
  EXPECT_EQ(loader->options().max_concurrent_gathers, 1);
  for (uint64_t s = 0; s < 200; ++s) {
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<Batch> batch, loader->Next());
    ASSERT_TRUE(IsStep(*batch, s));
  }
  EXPECT_FALSE(elsewhere.load());
  // Nothing is gathered ahead when no thread could do it in the background.
  EXPECT_EQ(loader->stats().gathers_completed, 200u);
  ASSERT_OK(loader->Seek(7));
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<Batch> batch, loader->Next());
  EXPECT_TRUE(IsStep(*batch, 7));
}

TEST(DataLoaderConcurrencyTest, ConsumersOnEveryPoolThreadMakeProgress) {
  // Both threads of the pool (its one worker and the caller) consume a
  // loader of their own on that pool: the pool tasks those loaders queue
  // cannot run until a consumer finishes, so each consumer gathers itself.
  auto pool = std::make_shared<ThreadPool>(1);
  std::atomic<int> finished{0};
  pool->ParallelFor(2, [&](int) {
    TrackedStream stream;
    std::unique_ptr<DataLoader> loader =
        LoaderOver(stream, Sequential(pool, 3));
    for (uint64_t s = 0; s < 150; ++s) {
      absl::StatusOr<std::shared_ptr<Batch>> batch = loader->Next();
      if (!batch.ok() || !IsStep(**batch, s)) return;
    }
    finished++;
  });
  EXPECT_EQ(finished.load(), 2);
}

TEST(DataLoaderConcurrencyTest, AConsumerInAPoolTaskMakesProgress) {
  // The pool's only worker runs the consumer; the loader's own tasks queue
  // behind it.
  auto pool = std::make_shared<ThreadPool>(1);
  std::mutex mu;
  std::condition_variable changed;
  bool done = false;
  bool ok = false;
  pool->Schedule([&] {
    TrackedStream stream;
    bool all_ok = true;
    {
      std::unique_ptr<DataLoader> loader =
          LoaderOver(stream, Sequential(pool, 3));
      for (uint64_t s = 0; s < 150 && all_ok; ++s) {
        absl::StatusOr<std::shared_ptr<Batch>> batch = loader->Next();
        all_ok = batch.ok() && IsStep(**batch, s);
      }
    }
    std::lock_guard lock(mu);
    ok = all_ok;
    done = true;
    changed.notify_all();
  });
  std::unique_lock lock(mu);
  changed.wait(lock, [&] { return done; });
  EXPECT_TRUE(ok);
}

}  // namespace
}  // namespace loaderx
