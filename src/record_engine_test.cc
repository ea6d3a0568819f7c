#include "src/record_engine.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/error_code.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/vfs_registry.h"
#include "tests/concurrency.h"
#include "tests/record_testing.h"
#include "tests/status_testing.h"
#include "vfs/fault/fault_vfs.h"

namespace loaderx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string VariableRecordFor(uint64_t i) {
  return RecordFor(i, 1 + (i * 37) % 300);
}

RecordEngineOptions WithCodec(const std::string& codec) {
  RecordEngineOptions options;
  options.codec = codec;
  if (codec == "zstd_dict") {
    for (int i = 0; i < 50; ++i)
      options.codec_options.dictionary += RecordFor(i, 64);
  }
  return options;
}

class RecordEngineTest : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(vfs_, CreateVfs("memory"));
    ASSERT_OK(vfs_->CreateDirectory("/data"));
  }

  std::unique_ptr<RecordEngine> CreateStore(RecordEngineOptions options = {}) {
    options.codec = WithCodec(GetParam()).codec;
    options.codec_options = WithCodec(GetParam()).codec_options;
    auto engine = RecordEngine::Create(*vfs_, "/data/store", options);
    EXPECT_TRUE(engine.ok()) << engine.status();
    return engine.ok() ? *std::move(engine) : nullptr;
  }

  std::unique_ptr<RecordEngine> Reopen() {
    auto engine = RecordEngine::Open(*vfs_, "/data/store");
    EXPECT_TRUE(engine.ok()) << engine.status();
    return engine.ok() ? *std::move(engine) : nullptr;
  }

  // Appends records [first, first + count) of `width` bytes.
  void AppendFixed(RecordEngine& engine, uint64_t first, uint64_t count,
                   size_t width) {
    std::string data;
    for (uint64_t i = first; i < first + count; ++i)
      data += RecordFor(i, width);
    ASSERT_OK_AND_ASSIGN(uint64_t at, engine.AppendFixed(data, count, width));
    EXPECT_EQ(at, first);
  }

  std::string GatherFixed(const RecordEngine& engine,
                          std::vector<uint64_t> indices, size_t width) {
    std::string out(indices.size() * width, '\0');
    absl::Status status =
        engine.GatherFixed(indices, width, absl::MakeSpan(out));
    EXPECT_TRUE(status.ok()) << status;
    return out;
  }

  std::vector<std::string> GatherVariable(const RecordEngine& engine,
                                          std::vector<uint64_t> indices) {
    auto sizes = engine.RecordSizes(indices);
    EXPECT_TRUE(sizes.ok()) << sizes.status();
    std::vector<std::string> out;
    for (uint64_t size : sizes.value_or(std::vector<uint64_t>{})) {
      out.emplace_back(size, '\0');
    }
    std::vector<absl::Span<char>> slots;
    for (std::string& record : out) slots.push_back(absl::MakeSpan(record));
    absl::Status status = engine.GatherVariable(indices, slots);
    EXPECT_TRUE(status.ok()) << status;
    return out;
  }

  std::unique_ptr<Vfs> vfs_;
};

INSTANTIATE_TEST_SUITE_P(Codecs, RecordEngineTest,
                         testing::Values("raw", "zstd", "zstd_dict"));

TEST_P(RecordEngineTest, FixedRecordsRoundTripInAnyOrder) {
  auto engine = CreateStore();
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->length(), 0u);
  AppendFixed(*engine, 0, 100, 48);
  AppendFixed(*engine, 100, 1, 48);
  EXPECT_EQ(engine->length(), 101u);
  const std::vector<uint64_t> indices = {100, 0, 57, 57, 3};
  std::string expected;
  for (uint64_t i : indices) expected += RecordFor(i, 48);
  EXPECT_EQ(GatherFixed(*engine, indices, 48), expected);
  EXPECT_EQ(engine->codec().name(), GetParam());
}

TEST_P(RecordEngineTest, VariableRecordsKeepTheirSizes) {
  auto engine = CreateStore();
  ASSERT_NE(engine, nullptr);
  std::vector<std::string> records;
  for (uint64_t i = 0; i < 200; ++i) records.push_back(VariableRecordFor(i));
  std::vector<absl::string_view> views(records.begin(), records.end());
  ASSERT_OK_AND_ASSIGN(uint64_t first, engine->AppendVariable(views));
  EXPECT_EQ(first, 0u);
  EXPECT_THAT(GatherVariable(*engine, {199, 0, 13}),
              ElementsAre(records[199], records[0], records[13]));
  ASSERT_OK_AND_ASSIGN(auto sizes, engine->RecordSizes({5, 6}));
  EXPECT_THAT(sizes, ElementsAre(records[5].size(), records[6].size()));
}

TEST_P(RecordEngineTest, ReopenedStoreHasEverything) {
  {
    auto engine = CreateStore();
    ASSERT_NE(engine, nullptr);
    AppendFixed(*engine, 0, 30, 16);
    AppendFixed(*engine, 30, 30, 16);
  }
  auto engine = Reopen();
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->length(), 60u);
  EXPECT_EQ(engine->codec().name(), GetParam());
  EXPECT_EQ(GatherFixed(*engine, {59, 0}, 16),
            RecordFor(59, 16) + RecordFor(0, 16));
  AppendFixed(*engine, 60, 5, 16);  // Appending continues at the frontier.
  EXPECT_EQ(GatherFixed(*engine, {64, 30}, 16),
            RecordFor(64, 16) + RecordFor(30, 16));
}

TEST_P(RecordEngineTest, BadAppendsAreRejectedAndChangeNothing) {
  auto engine = CreateStore();
  ASSERT_NE(engine, nullptr);
  AppendFixed(*engine, 0, 3, 8);
  ASSERT_OK_AND_ASSIGN(auto before, engine->Stats());

  EXPECT_STATUS_CODE(engine->AppendFixed("", 0, 8),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(engine->AppendFixed("", 0, 0),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(engine->AppendFixed("abcdefg", 1, 8),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(engine->AppendFixed("abcdefghi", 1, 8),
                     absl::StatusCode::kInvalidArgument);
  std::vector<absl::string_view> with_empty = {"ok", "", "ok"};
  absl::Status empty = engine->AppendVariable(with_empty).status();
  EXPECT_EQ(empty.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty.message(), HasSubstr("record 1"));
  EXPECT_STATUS_CODE(engine->AppendVariable({}),
                     absl::StatusCode::kInvalidArgument);

  EXPECT_EQ(engine->length(), 3u);
  ASSERT_OK_AND_ASSIGN(auto after, engine->Stats());
  EXPECT_EQ(after.chunk_bytes, before.chunk_bytes);
  EXPECT_EQ(GatherFixed(*engine, {2}, 8), RecordFor(2, 8));
}

TEST_P(RecordEngineTest, BadGathersAreRejected) {
  auto engine = CreateStore();
  ASSERT_NE(engine, nullptr);
  AppendFixed(*engine, 0, 4, 8);
  std::string out(16, '\0');
  absl::Status out_of_range =
      engine->GatherFixed({1, 4}, 8, absl::MakeSpan(out));
  EXPECT_EQ(out_of_range.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(out_of_range.message(), HasSubstr("index 4"));
  EXPECT_STATUS_CODE(engine->GatherFixed({1}, 8, absl::MakeSpan(out)),
                     absl::StatusCode::kInvalidArgument);
  // A width other than the records' is a store/type mismatch.
  std::string wide(10, '\0');
  EXPECT_STATUS_CODE(engine->GatherFixed({1}, 10, absl::MakeSpan(wide)),
                     absl::StatusCode::kDataLoss);
  std::string small(3, '\0');
  std::vector<absl::Span<char>> slots = {absl::MakeSpan(small)};
  EXPECT_STATUS_CODE(engine->GatherVariable({0}, slots),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(engine->RecordSizes({9}), absl::StatusCode::kOutOfRange);
}

TEST_P(RecordEngineTest, DeleteSwapsTheLastRecordsIn) {
  auto engine = CreateStore();
  ASSERT_NE(engine, nullptr);
  AppendFixed(*engine, 0, 6, 8);
  ASSERT_OK(engine->Delete({1, 4}));
  // Descending: 4 takes 5's record, then 1 takes the record now last (5).
  EXPECT_EQ(engine->length(), 4u);
  EXPECT_EQ(
      GatherFixed(*engine, {0, 1, 2, 3}, 8),
      RecordFor(0, 8) + RecordFor(5, 8) + RecordFor(2, 8) + RecordFor(3, 8));
  ASSERT_OK(engine->Delete({3, 2}));  // The tail itself: nothing moves.
  EXPECT_EQ(GatherFixed(*engine, {0, 1}, 8), RecordFor(0, 8) + RecordFor(5, 8));
  auto reopened = (engine.reset(), Reopen());
  ASSERT_NE(reopened, nullptr);
  EXPECT_EQ(reopened->length(), 2u);
  EXPECT_EQ(GatherFixed(*reopened, {1}, 8), RecordFor(5, 8));
}

TEST_P(RecordEngineTest, DuplicateDeletionsDeleteOnce) {
  auto engine = CreateStore();
  ASSERT_NE(engine, nullptr);
  AppendFixed(*engine, 0, 4, 8);
  ASSERT_OK(engine->Delete({0, 0, 1}));  // As the reference: tolerated.
  EXPECT_EQ(engine->length(), 2u);
  EXPECT_EQ(GatherFixed(*engine, {0, 1}, 8), RecordFor(2, 8) + RecordFor(3, 8));
}

TEST_P(RecordEngineTest, BadDeletesChangeNothing) {
  auto engine = CreateStore();
  ASSERT_NE(engine, nullptr);
  AppendFixed(*engine, 0, 5, 8);
  EXPECT_STATUS_CODE(engine->Delete({0, 5}), absl::StatusCode::kOutOfRange);
  EXPECT_STATUS_CODE(engine->Delete({~uint64_t{0}}),
                     absl::StatusCode::kOutOfRange);
  EXPECT_OK(engine->Delete({}));
  EXPECT_EQ(engine->length(), 5u);
  EXPECT_EQ(GatherFixed(*engine, {0, 1, 4}, 8),
            RecordFor(0, 8) + RecordFor(1, 8) + RecordFor(4, 8));
}

TEST_P(RecordEngineTest, AnIndexListedTwiceIsDeletedOnce) {
  auto engine = CreateStore();
  ASSERT_NE(engine, nullptr);
  AppendFixed(*engine, 0, 5, 8);
  ASSERT_OK(engine->Delete({1, 3, 1}));
  // Descending without repeats: 3 takes 4's record, then 1 takes the
  // record now last (4 again, at index 3).
  EXPECT_EQ(engine->length(), 3u);
  EXPECT_EQ(GatherFixed(*engine, {0, 1, 2}, 8),
            RecordFor(0, 8) + RecordFor(4, 8) + RecordFor(2, 8));
}

TEST_P(RecordEngineTest, StatsCountLiveAndReclaimableBytes) {
  auto engine = CreateStore();
  ASSERT_NE(engine, nullptr);
  AppendFixed(*engine, 0, 10, 100);
  ASSERT_OK_AND_ASSIGN(auto stats, engine->Stats());
  EXPECT_EQ(stats.records, 10u);
  EXPECT_EQ(stats.chunk_bytes, stats.live_bytes);
  EXPECT_EQ(stats.reclaimable, 0u);
  if (GetParam() == "raw") {
    EXPECT_EQ(stats.live_bytes, 1000u);
  }
  ASSERT_OK(engine->Delete({0, 1, 2}));
  ASSERT_OK_AND_ASSIGN(auto after, engine->Stats());
  EXPECT_EQ(after.records, 7u);
  EXPECT_EQ(after.chunk_bytes, stats.chunk_bytes);
  EXPECT_GT(after.reclaimable, 0u);
  EXPECT_EQ(after.live_bytes + after.reclaimable, after.chunk_bytes);
}

// A batch of 16 MiB or more is stored around the cache: records longer
// than 16 KiB in 8 KiB pieces hashed as they are copied (`ChecksumAndCopy`),
// medium ones streamed whole without a fence each, then hashed from the
// source, one fence per run. Records of an odd width
// put every destination off the vector boundary. Every byte must arrive,
// verified or not, and a damaged record must still be refused.
TEST_P(RecordEngineTest, LargeBatchesArriveByteForByte) {
  struct Case {
    size_t width;
    uint64_t records;
    uint64_t damaged_at;  // A byte of record 5.
  };
  for (const Case& c : {Case{(256 << 10) + 40, 72, 20000},  // 18 MiB.
                        Case{4096 + 40, 4200, 3000}}) {     // 16.6 MiB.
    SCOPED_TRACE(c.width);
    ASSERT_OK_AND_ASSIGN(vfs_, CreateVfs("memory"));  // A fresh store.
    ASSERT_OK(vfs_->CreateDirectory("/data"));
    auto engine = CreateStore();
    ASSERT_NE(engine, nullptr);
    std::string records;
    for (uint64_t i = 0; i < c.records; ++i) {
      records += NoiseRecordFor(i, c.width);
    }
    ASSERT_OK(engine->AppendFixed(records, c.records, c.width));
    std::vector<uint64_t> order(c.records);
    std::string expected;
    for (uint64_t i = 0; i < c.records; ++i) {
      order[i] = (i * 29) % c.records;
      expected += records.substr(order[i] * c.width, c.width);
    }
    EXPECT_TRUE(GatherFixed(*engine, order, c.width) == expected);
    engine.reset();
    RecordEngineOptions unverified;
    unverified.verify_checksums = false;
    ASSERT_OK_AND_ASSIGN(engine,
                         RecordEngine::Open(*vfs_, "/data/store", unverified));
    EXPECT_TRUE(GatherFixed(*engine, order, c.width) == expected);
    if (GetParam() != "raw") continue;
    engine.reset();
    {
      ASSERT_OK_AND_ASSIGN(
          auto chunk, vfs_->Open("/data/store/0.chunk", OpenMode::kReadWrite));
      ASSERT_OK(chunk->WriteAt(5 * c.width + c.damaged_at, "!"));
    }
    engine = Reopen();
    ASSERT_NE(engine, nullptr);
    std::string out(c.records * c.width, '\0');
    absl::Status status =
        engine->GatherFixed(order, c.width, absl::MakeSpan(out));
    EXPECT_EQ(ErrorCodeOf(status), ErrorCode::kCorruptRecord) << status;
  }
}

// A batch gathered by four threads reports the first damaged record in the
// batch's order, whichever thread met its damage first.
TEST_P(RecordEngineTest, AShardedGatherReportsItsFirstDamagedRecord) {
  if (GetParam() != "raw") GTEST_SKIP() << "damages raw bytes in place";
  constexpr size_t kWidth = 64;
  constexpr uint64_t kRecords = 4096;
  {
    auto engine = CreateStore();
    ASSERT_NE(engine, nullptr);
    AppendFixed(*engine, 0, kRecords, kWidth);
  }
  {
    ASSERT_OK_AND_ASSIGN(
        auto chunk, vfs_->Open("/data/store/0.chunk", OpenMode::kReadWrite));
    for (uint64_t damaged : {3900, 100, 2500}) {
      ASSERT_OK(chunk->WriteAt(damaged * kWidth + 7, "!"));
    }
  }
  RecordEngineOptions options;
  options.thread_pool = std::make_shared<ThreadPool>(3);
  ASSERT_OK_AND_ASSIGN(auto engine,
                       RecordEngine::Open(*vfs_, "/data/store", options));
  std::vector<uint64_t> order(kRecords);
  for (uint64_t i = 0; i < kRecords; ++i) order[i] = i;
  std::string out(kRecords * kWidth, '\0');
  for (int attempt = 0; attempt < 20; ++attempt) {
    const absl::Status status =
        engine->GatherFixed(order, kWidth, absl::MakeSpan(out));
    EXPECT_EQ(ErrorCodeOf(status), ErrorCode::kCorruptRecord) << status;
    EXPECT_THAT(status.message(), HasSubstr("record 100 ")) << status;
  }
  // The records around the damage all arrive.
  std::vector<uint64_t> intact;
  for (uint64_t i = 0; i < kRecords; ++i) {
    if (i != 100 && i != 2500 && i != 3900) intact.push_back(i);
  }
  std::string expected;
  for (uint64_t i : intact) expected += RecordFor(i, kWidth);
  EXPECT_TRUE(GatherFixed(*engine, intact, kWidth) == expected);
}

// A batch split between the caller and a worker that never comes (busy
// with a task of its own) is gathered whole by the caller: it takes the
// worker's records from the back of its shard, then the shard itself, and
// does not wait for the worker.
TEST_P(RecordEngineTest, AGatherDoesNotWaitForABusyWorker) {
  constexpr size_t kWidth = 64;
  constexpr uint64_t kRecords = 4096;
  {
    auto engine = CreateStore();
    ASSERT_NE(engine, nullptr);
    AppendFixed(*engine, 0, kRecords, kWidth);
  }
  // Declared before the pool, which joins its worker when destroyed.
  std::atomic<bool> release{false};
  auto pool = std::make_shared<ThreadPool>(1);
  RecordEngineOptions options;
  options.thread_pool = pool;
  ASSERT_OK_AND_ASSIGN(auto engine,
                       RecordEngine::Open(*vfs_, "/data/store", options));
  // The worker is busy until the test ends, however it ends: the guard
  // releases it before the engine and the pool go.
  struct Release {
    std::atomic<bool>& release;
    ~Release() { release.store(true); }
  } guard{release};
  pool->Schedule([&release] {
    while (!release.load()) std::this_thread::yield();
  });
  std::vector<uint64_t> order(kRecords);
  for (uint64_t i = 0; i < kRecords; ++i)
    order[i] = (i * 2654435761u) % kRecords;
  std::string expected;
  for (uint64_t i : order) expected += RecordFor(i, kWidth);
  for (int attempt = 0; attempt < 3; ++attempt) {
    EXPECT_TRUE(GatherFixed(*engine, order, kWidth) == expected);
  }
}

TEST_P(RecordEngineTest, RecordsNeverStraddleChunks) {
  RecordEngineOptions options;
  options.chunk_capacity = 1000;
  auto engine = CreateStore(options);
  ASSERT_NE(engine, nullptr);
  std::string expected;
  for (uint64_t i = 0; i < 40; ++i) {
    const std::string record = NoiseRecordFor(i, 300);
    ASSERT_OK(engine->AppendFixed(record, 1, 300));
    expected += record;
  }
  // About three records fit a chunk; every chunk stays within capacity.
  ASSERT_OK_AND_ASSIGN(auto names, vfs_->List("/data/store"));
  uint64_t chunks = 0;
  for (const std::string& name : names) {
    if (!absl::EndsWith(name, ".chunk")) continue;
    ++chunks;
    ASSERT_OK_AND_ASSIGN(std::string bytes,
                         ReadFileToString(*vfs_, "/data/store/" + name));
    EXPECT_LE(bytes.size(), 1000u) << name;
  }
  EXPECT_GE(chunks, 13u);
  engine.reset();
  engine = Reopen();
  ASSERT_NE(engine, nullptr);
  std::vector<uint64_t> all(40);
  for (uint64_t i = 0; i < 40; ++i) all[i] = i;
  EXPECT_EQ(GatherFixed(*engine, all, 300), expected);
  // chunk_bytes is the frontier's address, as the reference counts it.
  ASSERT_OK_AND_ASSIGN(auto stats, engine->Stats());
  ASSERT_OK_AND_ASSIGN(
      std::string tail,
      ReadFileToString(*vfs_,
                       absl::StrCat("/data/store/", chunks - 1, ".chunk")));
  EXPECT_EQ(stats.chunk_bytes,
            (chunks - 1) * (uint64_t{1} << 32) + tail.size());
}

TEST_P(RecordEngineTest, SecondHandleIsBusyUntilTheFirstCloses) {
  auto engine = CreateStore();
  ASSERT_NE(engine, nullptr);
  absl::Status busy = RecordEngine::Open(*vfs_, "/data/store").status();
  EXPECT_TRUE(IsBusy(busy)) << busy;
  engine.reset();
  EXPECT_OK(RecordEngine::Open(*vfs_, "/data/store"));
}

TEST_P(RecordEngineTest, CreatingOverAnEmptyStoreTakesItOver) {
  // An engine with no records and no store.zr is what a typed creation that
  // never finished leaves behind: `Create` does it again.
  { ASSERT_NE(CreateStore(), nullptr); }
  auto engine = CreateStore();
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->length(), 0u);
  AppendFixed(*engine, 0, 1, 8);
}

TEST_P(RecordEngineTest, CreatingOverAStoreIsRefusedAndKeepsIt) {
  {
    auto engine = CreateStore();
    ASSERT_NE(engine, nullptr);
    AppendFixed(*engine, 0, 2, 8);
  }
  EXPECT_STATUS_CODE(
      RecordEngine::Create(*vfs_, "/data/store", WithCodec(GetParam())),
      absl::StatusCode::kAlreadyExists);
  auto engine = Reopen();
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->length(), 2u);
}

TEST_P(RecordEngineTest, ConcurrentGathersWhileAppending) {
  auto engine = CreateStore();
  ASSERT_NE(engine, nullptr);
  AppendFixed(*engine, 0, 64, 32);
  std::atomic<bool> appending{true};
  std::thread writer([&] {
    for (uint64_t first = 64; first < 64 + 40 * 16; first += 16) {
      AppendFixed(*engine, first, 16, 32);
    }
    appending = false;
  });
  auto reader = [&](int t) -> absl::Status {
    uint64_t round = 0;
    while (appending.load() || round < 10) {
      const uint64_t n = engine->length();
      std::vector<uint64_t> indices = {n - 1, (round * 7 + t) % n, 0};
      std::string out(3 * 32, '\0');
      LOADERX_RETURN_IF_ERROR(
          engine->GatherFixed(indices, 32, absl::MakeSpan(out)));
      for (size_t i = 0; i < indices.size(); ++i) {
        if (out.substr(i * 32, 32) != RecordFor(indices[i], 32)) {
          return absl::DataLossError(absl::StrCat("record ", indices[i]));
        }
      }
      ++round;
    }
    return absl::OkStatus();
  };
  std::vector<absl::Status> results = RunOnThreads(3, reader);
  writer.join();
  for (const absl::Status& status : results) EXPECT_OK(status);
  EXPECT_EQ(engine->length(), 64u + 40 * 16);
}

// Records that lie apart go out in vectored writes of at most
// `flush_bytes`; a fixed-width batch, contiguous in memory, in writes of at
// most `contiguous_write_bytes` (64 MiB by default: one write here).
TEST(RecordEngineFlushTest, RawAppendsGoOutInWritesOfTheirCap) {
  struct Case {
    bool contiguous;
    uint64_t flush_bytes, contiguous_write_bytes;
    int64_t writes;
  };
  // 100 records of 1000 bytes: four per 4096-byte write, so 25 writes,
  // whatever the batch size.
  for (const Case& c :
       {Case{false, 4096, 64 << 20, 25}, Case{true, 4096, 4096, 25},
        Case{true, 4096, 64 << 20, 1}}) {
    SCOPED_TRACE(absl::StrCat(c.contiguous, " ", c.contiguous_write_bytes));
    FaultVfs vfs(CreateVfs("memory").value());
    ASSERT_OK(vfs.CreateDirectory("/s"));
    RecordEngineOptions options;
    options.flush_bytes = c.flush_bytes;
    options.contiguous_write_bytes = c.contiguous_write_bytes;
    ASSERT_OK_AND_ASSIGN(auto engine,
                         RecordEngine::Create(vfs, "/s/store", options));
    const int64_t before = vfs.CallCount(VfsOp::kWriteVectorAt);
    const std::string data(100 * 1000, 'x');
    if (c.contiguous) {
      ASSERT_OK(engine->AppendFixed(data, 100, 1000));
    } else {
      std::vector<absl::string_view> records;
      for (int i = 0; i < 100; ++i) {
        records.push_back(absl::string_view(data).substr(i * 1000, 1000));
      }
      ASSERT_OK(engine->AppendVariable(records).status());
    }
    EXPECT_EQ(vfs.CallCount(VfsOp::kWriteVectorAt) - before, c.writes);
  }
}

TEST(RecordEngineCodecTest, UnknownCodecIsAnUnknownName) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("memory"));
  RecordEngineOptions options;
  options.codec = "lz4";
  absl::Status status = RecordEngine::Create(*vfs, "/store", options).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ErrorCodeOf(status), ErrorCode::kUnknownName);
  EXPECT_THAT(status.message(), HasSubstr("zstd"));
  ASSERT_OK_AND_ASSIGN(bool exists, vfs->Exists("/store"));
  EXPECT_FALSE(exists);         // Nothing was created.
  options.codec = "zstd_dict";  // Without its dictionary.
  EXPECT_STATUS_CODE(RecordEngine::Create(*vfs, "/store", options),
                     absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace loaderx
