// How a gather's batch is split: inline while cheap, one shard per thread
// in the middle, finer (bounded) for long batches.

#include "src/engine_sharding.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace loaderx {
namespace {

TEST(GatherShardsTest, ACheapBatchRunsInlineOnTheCaller) {
  EXPECT_EQ(GatherShards(/*records=*/16, /*bytes=*/16 * 64, false, 2), 1);
  EXPECT_EQ(GatherShards(1, 1, true, 8), 1);
}

TEST(GatherShardsTest, ABatchOfSmallRecordsTakesOneShardPerThread) {
  // 4096 records of 64 B: 1.3 MB of work, short of a fine shard.
  EXPECT_EQ(GatherShards(4096, 4096 * 64, false, 2), 2);
  EXPECT_EQ(GatherShards(4096, 4096 * 64, false, 4), 4);
}

TEST(GatherShardsTest, ALongBatchIsCutFinerButBounded) {
  // 4096 zstd records of 4 KiB: ~68 MB of work.
  EXPECT_EQ(GatherShards(4096, 4096 * 4096, true, 2),
            static_cast<int>(2 * kShardsPerThread));
  // 256 raw records of 256 KiB.
  EXPECT_EQ(GatherShards(256, 256 << 18, false, 2),
            static_cast<int>(2 * kShardsPerThread));
  // Between: as many fine shards as the work fills, never fewer than the
  // threads.
  const uint64_t twelve_fine = 12 * kFineShardCost;
  EXPECT_EQ(GatherShards(0, twelve_fine, false, 2), 8);
  EXPECT_EQ(GatherShards(0, twelve_fine, false, 4), 12);
  EXPECT_EQ(GatherShards(0, 3 * kFineShardCost, false, 4), 4);
}

TEST(GatherShardsTest, WithoutWorkersEverythingIsOneShard) {
  EXPECT_EQ(GatherShards(4096, 4096 * 4096, true, 1), 1);
}

TEST(GatherPieceRecordsTest, APieceIsAboutTheSameWorkWhateverTheRecords) {
  // 64 B raw records: 64 KiB of work at 320 byte-equivalents each.
  EXPECT_EQ(GatherPieceRecords(4096, 4096 * 64, false),
            kGatherPieceCost / (64 + kGatherRecordCost));
  // Decoding costs `kDecodeCostFactor` times as much: fewer per piece.
  EXPECT_LT(GatherPieceRecords(4096, 4096 * 64, true),
            GatherPieceRecords(4096, 4096 * 64, false));
  // A record larger than a piece's work is a piece on its own.
  EXPECT_EQ(GatherPieceRecords(256, 256 << 18, false), 1u);
  EXPECT_EQ(GatherPieceRecords(0, 0, false), 1u);
}

}  // namespace
}  // namespace loaderx
