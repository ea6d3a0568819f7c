// The binding surface used from many threads at once, as free-threaded
// Python (no GIL) and Java use it; run under every sanitizer configuration
// (ThreadSanitizer included). What the Python package relies on:
// - a `LoaderBatch` and its `BatchMemory` read and released on other
//   threads (the loader's transform workers) while the consumer keeps
//   taking steps, every byte right;
// - `LoaderHandle::close` from another thread while the consumer is in
//   `next`: that `next` returns its batch or throws FailedPrecondition;
// - a `StoreHandle` gathered from, appended to and verified from several
//   threads at once, then closed while gathers run.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "swig/binding.h"
#include "swig/loader_binding.h"
#include "swig/store_binding.h"

namespace loaderx::binding {
namespace {

constexpr int kRecords = 64;
constexpr int kCyclic = 2;

// Dense record i: two uint32 values, i and 7 * i + 1.
std::unique_ptr<StoreHandle> DenseStore(const Filesystem& fs,
                                        const std::string& path) {
  OpenRequest request;
  request.set_dtype(DType::Simple("<u4"));
  request.set_item_shape({2});
  request.set_codec("raw");
  auto store = std::make_unique<StoreHandle>(fs, path, "dense", request);
  std::vector<uint32_t> values;
  for (uint32_t i = 0; i < kRecords; ++i)
    values.insert(values.end(), {i, 7 * i + 1});
  store->append_array(DType::Simple("<u4"), {kRecords, 2},
                      {values.data(), values.size() * sizeof(uint32_t)});
  return store;
}

// Checks a dense batch's rows against its indices; false on any mismatch.
bool BatchIsRight(const LoaderBatch& batch) {
  const BatchMemory indices = batch.indices();
  const BatchMemory rows = batch.buffer(0);
  const size_t count = indices.size / sizeof(uint64_t);
  if (rows.size != count * 2 * sizeof(uint32_t)) return false;
  for (size_t r = 0; r < count; ++r) {
    uint64_t index;
    uint32_t row[2];
    std::memcpy(&index, indices.data + r * sizeof(uint64_t), sizeof(index));
    std::memcpy(row, rows.data + r * sizeof(row), sizeof(row));
    if (row[0] != index || row[1] != 7 * index + 1) return false;
  }
  return true;
}

// A queue of batches from the consumer to the workers.
class Handoff {
 public:
  void Put(std::unique_ptr<LoaderBatch> batch) {
    std::lock_guard lock(mu_);
    batches_.push_back(std::move(batch));
    ready_.notify_one();
  }
  void Finish() {
    std::lock_guard lock(mu_);
    done_ = true;
    ready_.notify_all();
  }
  // Null once finished and empty.
  std::unique_ptr<LoaderBatch> Take() {
    std::unique_lock lock(mu_);
    ready_.wait(lock, [&] { return done_ || !batches_.empty(); });
    if (batches_.empty()) return nullptr;
    auto batch = std::move(batches_.front());
    batches_.pop_front();
    return batch;
  }

 private:
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::unique_ptr<LoaderBatch>> batches_;
  bool done_ = false;
};

TEST(BindingThreadsTest, BatchesAreReadAndReleasedOnWorkerThreads) {
  Filesystem fs("memory");
  fs.create_directory("/d");
  auto store = DenseStore(fs, "/d/dense");
  LoaderStreams streams;
  streams.add_store("dense", *store);
  LoaderHandle loader(streams, /*batch_size=*/8, kCyclic, /*seed=*/3,
                      /*prefetch=*/2);
  Handoff handoff;
  std::atomic<int> checked{0}, wrong{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 3; ++w) {
    workers.emplace_back([&] {
      while (auto batch = handoff.Take()) {
        // Half are released explicitly, half by destruction.
        if (!BatchIsRight(*batch)) ++wrong;
        if (batch->step() % 2 == 0) batch->release();
        ++checked;
      }
    });
  }
  for (int step = 0; step < 200; ++step) {
    handoff.Put(std::unique_ptr<LoaderBatch>(loader.next()));
  }
  handoff.Finish();
  for (auto& worker : workers) worker.join();
  EXPECT_EQ(checked.load(), 200);
  EXPECT_EQ(wrong.load(), 0);
  loader.close();
}

TEST(BindingThreadsTest, CloseFromAnotherThreadStopsTheConsumer) {
  Filesystem fs("memory");
  fs.create_directory("/d");
  auto store = DenseStore(fs, "/d/dense");
  LoaderStreams streams;
  streams.add_store("dense", *store);
  LoaderHandle loader(streams, /*batch_size=*/4, kCyclic, /*seed=*/9,
                      /*prefetch=*/3);
  std::atomic<int> taken{0}, wrong{0}, other_errors{0};
  std::atomic<bool> stopped{false};
  std::thread consumer([&] {
    while (true) {
      try {
        std::unique_ptr<LoaderBatch> batch(loader.next());
        if (!BatchIsRight(*batch)) ++wrong;
        ++taken;
      } catch (const BindingError& error) {
        if (error.status_code() !=
            static_cast<int>(absl::StatusCode::kFailedPrecondition)) {
          ++other_errors;
        }
        stopped = true;
        return;
      }
    }
  });
  while (taken.load() < 20) std::this_thread::yield();
  std::thread closer([&] { loader.close(); });
  closer.join();
  consumer.join();
  EXPECT_TRUE(stopped.load());
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(other_errors.load(), 0);
  EXPECT_TRUE(loader.closed());
}

TEST(BindingThreadsTest, OneStoreGatheredAppendedVerifiedThenClosed) {
  Filesystem fs("memory");
  fs.create_directory("/d");
  auto store = DenseStore(fs, "/d/dense");
  std::atomic<int> wrong{0}, closed_errors{0}, other_errors{0};
  std::atomic<bool> closing{false};
  auto gather = [&](uint64_t seed) {
    uint64_t state = seed;
    while (true) {
      uint64_t indices[8];
      for (uint64_t& index : indices) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        index = (state >> 33) % kRecords;
      }
      uint32_t out[8][2];
      try {
        store->gather_into({IndexBuffer::Kind::kUnsigned, indices, 8, 1},
                           {out, sizeof(out)});
      } catch (const BindingError& error) {
        (error.status_code() ==
                 static_cast<int>(absl::StatusCode::kFailedPrecondition)
             ? closed_errors
             : other_errors)++;
        return;
      }
      for (int r = 0; r < 8; ++r) {
        if (out[r][0] != indices[r] || out[r][1] != 7 * indices[r] + 1) ++wrong;
      }
    }
  };
  auto append = [&](uint32_t base) {
    for (uint32_t n = 0; n < 20 && !closing.load(); ++n) {
      const uint32_t values[2] = {base + n, 7 * (base + n) + 1};
      try {
        store->append_array(DType::Simple("<u4"), {1, 2},
                            {values, sizeof(values)});
      } catch (const BindingError&) {
        ++other_errors;
      }
    }
  };
  std::vector<std::thread> threads;
  for (uint64_t seed = 1; seed <= 3; ++seed) threads.emplace_back(gather, seed);
  std::thread appender_a(append, 1000), appender_b(append, 2000);
  std::thread verifier([&] {
    for (int n = 0; n < 3; ++n) {
      if (!store->verify().ok()) ++wrong;
    }
  });
  appender_a.join();
  appender_b.join();
  verifier.join();
  closing = true;
  store->close();
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(other_errors.load(), 0);
  EXPECT_EQ(closed_errors.load(), 3);
}

}  // namespace
}  // namespace loaderx::binding
