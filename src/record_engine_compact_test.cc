// Compaction: deleted bytes are reclaimed in place, every live record keeps
// its index and bytes, and an interrupted run leaves a consistent store that
// a second run finishes.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "loaderx/vfs_registry.h"
#include "src/record_engine.h"
#include "tests/record_testing.h"
#include "tests/status_testing.h"
#include "vfs/fault/fault_vfs.h"

namespace loaderx {
namespace {

constexpr size_t kWidth = 200;

class CompactTest : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(memory_, CreateVfs("memory"));
    vfs_ = std::make_unique<FaultVfs>(memory_.get());
    ASSERT_OK(vfs_->CreateDirectory("/s"));
    RecordEngineOptions options;
    options.codec = GetParam();
    if (GetParam() == "zstd_dict") {
      options.codec_options.dictionary = NoiseRecordFor(0, 512);
    }
    options.chunk_capacity = 5 * kWidth + 100;  // ~5 records per chunk.
    ASSERT_OK_AND_ASSIGN(engine_,
                         RecordEngine::Create(*vfs_, "/s/store", options));
    // Incompressible records, so every codec fills several chunks.
    for (uint64_t i = 0; i < 40; ++i) {
      records_.push_back(NoiseRecordFor(i + 1, kWidth));
      ASSERT_OK(engine_->AppendFixed(records_.back(), 1, kWidth));
    }
  }

  // Deletes like the engine does (swap-last), in the test's model too.
  void Delete(std::vector<uint64_t> indices) {
    ASSERT_OK(engine_->Delete(indices));
    std::sort(indices.rbegin(), indices.rend());
    for (uint64_t index : indices) {
      records_[index] = records_.back();
      records_.pop_back();
    }
  }

  void ExpectModel(const RecordEngine& engine) {
    ASSERT_EQ(engine.length(), records_.size());
    for (uint64_t i = 0; i < records_.size(); ++i) {
      std::string out(kWidth, '\0');
      ASSERT_OK(engine.GatherFixed({i}, kWidth, absl::MakeSpan(out)));
      EXPECT_EQ(out, records_[i]) << "index " << i;
    }
  }

  uint64_t Files(absl::string_view suffix) {
    auto names = vfs_->List("/s/store");
    EXPECT_TRUE(names.ok()) << names.status();
    return std::count_if(
        names->begin(), names->end(),
        [&](const std::string& n) { return absl::EndsWith(n, suffix); });
  }

  // The bytes of every chunk file together.
  uint64_t ChunkFileBytes() {
    auto names = vfs_->List("/s/store");
    EXPECT_TRUE(names.ok()) << names.status();
    uint64_t bytes = 0;
    for (const std::string& name : names.value_or(std::vector<std::string>{})) {
      if (!absl::EndsWith(name, ".chunk")) continue;
      auto contents = ReadFileToString(*vfs_, "/s/store/" + name);
      EXPECT_TRUE(contents.ok()) << contents.status();
      bytes += contents.value_or("").size();
    }
    return bytes;
  }

  std::unique_ptr<Vfs> memory_;
  std::unique_ptr<FaultVfs> vfs_;
  std::unique_ptr<RecordEngine> engine_;
  std::vector<std::string> records_;  // The model: index -> bytes.
};

INSTANTIATE_TEST_SUITE_P(Codecs, CompactTest,
                         testing::Values("raw", "zstd", "zstd_dict"));

TEST_P(CompactTest, ReclaimsDeletedBytesAndKeepsEveryRecord) {
  Delete({0, 3, 7, 8, 20, 21, 22});
  ASSERT_OK_AND_ASSIGN(auto before, engine_->Stats());
  EXPECT_GT(before.reclaimable, 0u);
  const uint64_t chunks_before = Files(".chunk");

  ASSERT_OK(engine_->Compact());
  ASSERT_OK_AND_ASSIGN(auto after, engine_->Stats());
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  // What remains is at most the slack of records that did not fit a chunk
  // (`reclaimable` counts every chunk as 2^32 bytes but the last, as the
  // reference does, so the files tell the slack).
  EXPECT_LT(ChunkFileBytes() - after.live_bytes,
            Files(".chunk") * (kWidth + 100));
  EXPECT_LT(after.chunk_bytes, before.chunk_bytes);
  EXPECT_LT(Files(".chunk"), chunks_before);
  ExpectModel(*engine_);

  engine_.reset();
  ASSERT_OK_AND_ASSIGN(auto reopened, RecordEngine::Open(*vfs_, "/s/store"));
  ExpectModel(*reopened);
  // Appends continue at the compacted frontier.
  records_.push_back(NoiseRecordFor(999, kWidth));
  ASSERT_OK(reopened->AppendFixed(records_.back(), 1, kWidth));
  ExpectModel(*reopened);
}

TEST_P(CompactTest, CompactingTwiceMovesNothing) {
  Delete({5, 6});
  ASSERT_OK(engine_->Compact());
  const int64_t writes = vfs_->CallCount(VfsOp::kWriteAt);
  ASSERT_OK(engine_->Compact());
  // Nothing moves: the only writes are the end step's journal record and
  // its clearing (zeroed in place, journal.h).
  EXPECT_EQ(vfs_->CallCount(VfsOp::kWriteAt) - writes, 2);
  ExpectModel(*engine_);
}

TEST_P(CompactTest, EmptiedStoreShrinksToNothing) {
  std::vector<uint64_t> all(records_.size());
  for (uint64_t i = 0; i < all.size(); ++i) all[i] = i;
  Delete(all);
  ASSERT_OK(engine_->Compact());
  ASSERT_OK_AND_ASSIGN(auto stats, engine_->Stats());
  EXPECT_EQ(stats.records, 0u);
  EXPECT_EQ(stats.chunk_bytes, 0u);
  EXPECT_EQ(Files(".chunk"), 1u);  // chunk 0 always exists
  EXPECT_EQ(Files(".loc"), 0u);
  records_.push_back(NoiseRecordFor(7, kWidth));
  ASSERT_OK(engine_->AppendFixed(records_.back(), 1, kWidth));
  ExpectModel(*engine_);
}

TEST_P(CompactTest, InterruptedCompactionLeavesAConsistentStore) {
  Delete({0, 1, 2, 10, 11});
  ASSERT_OK(engine_->Sync());
  // Fail the fourth record move.
  vfs_->FailOnCall(VfsOp::kWriteAt, 4, absl::UnavailableError("disk gone"),
                   false, ".chunk");
  EXPECT_STATUS_CODE(engine_->Compact(), absl::StatusCode::kUnavailable);
  vfs_->ClearFaults();
  ExpectModel(*engine_);
  engine_.reset();
  ASSERT_OK_AND_ASSIGN(engine_, RecordEngine::Open(*vfs_, "/s/store"));
  ExpectModel(*engine_);
  ASSERT_OK(engine_->Compact());  // Running it again finishes the job.
  ExpectModel(*engine_);
  ASSERT_OK_AND_ASSIGN(auto stats, engine_->Stats());
  EXPECT_LT(stats.reclaimable, Files(".chunk") * (kWidth + 100));
}

}  // namespace
}  // namespace loaderx
