// A store's `Delete` and `Compact` may be called while other threads read
// and append (a loader reading batch after batch): they wait for the calls
// in flight and hold new ones off, so no reader sees a table entry half
// rewritten or a file compaction moved. Records 0..kKept-1 are never
// deleted (every delete takes indices at or past kKept, and the engine's
// swap-last fills a hole from the end), so a read of them must always give
// exactly their bytes; a read past kKept gives some live record or, once
// the store has shrunk under it, OutOfRange. Run under TSan too
// (`--config=tsan`), which sees a missing exclusion as a data race.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "loaderx/dense_store.h"
#include "loaderx/vfs_registry.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

constexpr uint64_t kKept = 500;
constexpr uint64_t kRecordBytes = 16;

// Record `id`'s bytes: its id, twice, little-endian.
std::string RecordOf(uint64_t id) {
  std::string bytes(kRecordBytes, '\0');
  for (int half = 0; half < 2; ++half) {
    for (int b = 0; b < 8; ++b)
      bytes[8 * half + b] = static_cast<char>(id >> (8 * b));
  }
  return bytes;
}

// The id `bytes` hold, or ~0 when the two halves disagree.
uint64_t IdOf(const char* bytes) {
  uint64_t first = 0, second = 0;
  std::memcpy(&first, bytes, 8);
  std::memcpy(&second, bytes + 8, 8);
  return first == second ? first : ~uint64_t{0};
}

class TypedStoreConcurrencyTest : public ::testing::TestWithParam<const char*> {
};

TEST_P(TypedStoreConcurrencyTest, DeletesAndCompactionsWaitForReaders) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("memory"));
  StoreOptions options;
  options.codec = GetParam();
  ASSERT_OK_AND_ASSIGN(
      auto store,
      DenseStore::Create(*vfs, "/s",
                         TypeIdentity{DType::Simple("|u1"), {kRecordBytes}},
                         options));
  std::string initial;
  for (uint64_t id = 0; id < 2 * kKept; ++id) initial += RecordOf(id);
  ASSERT_OK(store->Append(initial));

  std::atomic<bool> writing{true};
  std::atomic<uint64_t> reads{0};
  const auto reader = [&](uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<uint64_t> batch(32);
    std::string out(batch.size() * kRecordBytes, '\0');
    while (writing.load()) {
      // Kept records: always there, always theirs.
      for (uint64_t& index : batch) index = random() % kKept;
      absl::Status gathered = store->Gather(batch, absl::MakeSpan(out));
      EXPECT_TRUE(gathered.ok()) << gathered;
      if (!gathered.ok()) return;
      for (size_t k = 0; k < batch.size(); ++k) {
        ASSERT_EQ(IdOf(&out[k * kRecordBytes]), batch[k]);
      }
      // Records past them: some live record, or gone (OutOfRange).
      const uint64_t size = store->size();
      for (uint64_t& index : batch) {
        index = kKept + random() % (size - kKept + 8);
      }
      gathered = store->Gather(batch, absl::MakeSpan(out));
      if (!absl::IsOutOfRange(gathered)) {
        ASSERT_TRUE(gathered.ok()) << gathered;
        for (size_t k = 0; k < batch.size(); ++k) {
          const uint64_t id = IdOf(&out[k * kRecordBytes]);
          ASSERT_NE(id, ~uint64_t{0}) << "record " << batch[k] << " is torn";
          ASSERT_GE(id, kKept) << "record " << batch[k];
        }
      }
      reads.fetch_add(1);
    }
  };
  std::vector<std::thread> readers;
  for (uint64_t seed = 1; seed <= 2; ++seed) readers.emplace_back(reader, seed);

  std::mt19937_64 random(7);
  uint64_t next_id = 2 * kKept;
  for (int round = 0; round < 30; ++round) {
    // Let the readers in between rounds (for up to a second each).
    const uint64_t before = reads.load();
    for (int wait = 0; wait < 1000 && reads.load() < before + 2; ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::string more;
    for (int k = 0; k < 40; ++k) more += RecordOf(next_id++);
    ASSERT_OK(store->Append(more));
    std::vector<uint64_t> doomed;
    for (int k = 0; k < 40; ++k) {
      doomed.push_back(kKept + random() % (store->size() - kKept));
    }
    ASSERT_OK(store->Delete(doomed));
    if (round % 3 == 2) ASSERT_OK(store->Compact());
  }
  writing = false;
  for (std::thread& thread : readers) thread.join();
  EXPECT_GT(reads.load(), 0u);
  // Every kept record is still itself after all of it.
  std::vector<uint64_t> all(kKept);
  for (uint64_t i = 0; i < kKept; ++i) all[i] = i;
  std::string out(kKept * kRecordBytes, '\0');
  ASSERT_OK(store->Gather(all, absl::MakeSpan(out)));
  for (uint64_t i = 0; i < kKept; ++i) {
    ASSERT_EQ(IdOf(&out[i * kRecordBytes]), i);
  }
}

INSTANTIATE_TEST_SUITE_P(Codecs, TypedStoreConcurrencyTest,
                         ::testing::Values("raw", "zstd"));

}  // namespace
}  // namespace loaderx
