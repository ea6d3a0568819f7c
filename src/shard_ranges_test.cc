// `ShardRanges` hands out every position exactly once: claimed in order
// from each shard's front, stolen in halves from the fullest other range,
// and under threads that claim and steal at once.

#include "src/shard_ranges.h"

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace loaderx {
namespace {

// Claims shard `shard` to exhaustion; returns its pieces.
std::vector<ShardRanges::Piece> ClaimAll(ShardRanges& ranges, int shard) {
  std::vector<ShardRanges::Piece> pieces;
  for (ShardRanges::Piece piece = ranges.Claim(shard); !piece.empty();
       piece = ranges.Claim(shard)) {
    pieces.push_back(piece);
  }
  return pieces;
}

TEST(ShardRangesTest, EachShardClaimsItsRangeInPiecesFromTheFront) {
  ShardRanges ranges(/*count=*/10, /*shards=*/2, /*piece=*/2);
  const std::vector<ShardRanges::Piece> first = ClaimAll(ranges, 0);
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first[0].begin, 0u);
  EXPECT_EQ(first[0].end, 2u);
  EXPECT_EQ(first[1].begin, 2u);
  EXPECT_EQ(first[2].begin, 4u);
  EXPECT_EQ(first[2].end, 5u);  // The range's last, short piece.
  for (const ShardRanges::Piece& piece : first) EXPECT_EQ(piece.range_end, 5u);
  const std::vector<ShardRanges::Piece> second = ClaimAll(ranges, 1);
  ASSERT_EQ(second.size(), 3u);
  EXPECT_EQ(second[0].begin, 5u);
  EXPECT_EQ(second[2].end, 10u);
  EXPECT_TRUE(ranges.Claim(0).empty());
  EXPECT_TRUE(ranges.Claim(1).empty());
}

TEST(ShardRangesTest, AnExhaustedShardStealsTheBackHalfOfTheFullestRange) {
  ShardRanges ranges(/*count=*/300, /*shards=*/3, /*piece=*/10);
  ClaimAll(ranges, 0);
  ASSERT_EQ(ranges.Claim(2).begin, 200u);  // Shard 2 has 90 left, 1 has 100.
  ASSERT_TRUE(ranges.Steal(0));
  // Shard 0 now holds [150, 200): shard 1 keeps [100, 150).
  const ShardRanges::Piece stolen = ranges.Claim(0);
  EXPECT_EQ(stolen.begin, 150u);
  EXPECT_EQ(stolen.end, 160u);
  EXPECT_EQ(stolen.range_end, 200u);
  const std::vector<ShardRanges::Piece> kept = ClaimAll(ranges, 1);
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept.front().begin, 100u);
  EXPECT_EQ(kept.back().end, 150u);
}

TEST(ShardRangesTest, NothingIsStolenWhenEveryOtherRangeHasAPieceOrLess) {
  ShardRanges ranges(/*count=*/40, /*shards=*/2, /*piece=*/10);
  ClaimAll(ranges, 0);
  ranges.Claim(1);  // [20, 30) claimed: 10 left, one piece.
  EXPECT_FALSE(ranges.Steal(0));
  const ShardRanges::Piece last = ranges.Claim(1);
  EXPECT_EQ(last.begin, 30u);
  EXPECT_EQ(last.end, 40u);
}

TEST(ShardRangesTest, AShardNobodyStartedCanBeTakenWhole) {
  // A pool's worker that has not woken: the caller steals its shard in
  // halves, then claims what is left of it.
  ShardRanges ranges(/*count=*/1000, /*shards=*/2, /*piece=*/8);
  std::vector<int> seen(1000, 0);
  for (int shard = 0; shard < 2; ++shard) {
    do {
      for (const ShardRanges::Piece& piece : ClaimAll(ranges, shard)) {
        for (uint64_t p = piece.begin; p < piece.end; ++p) ++seen[p];
      }
    } while (ranges.Steal(shard));
  }
  for (int count : seen) ASSERT_EQ(count, 1);
}

TEST(ShardRangesTest, EmptyAndTinyBatches) {
  ShardRanges empty(/*count=*/0, /*shards=*/4, /*piece=*/16);
  for (int shard = 0; shard < 4; ++shard) {
    EXPECT_TRUE(empty.Claim(shard).empty());
    EXPECT_FALSE(empty.Steal(shard));
  }
  ShardRanges tiny(/*count=*/3, /*shards=*/8, /*piece=*/0);  // Piece 1.
  uint64_t claimed = 0;
  for (int shard = 0; shard < 8; ++shard) {
    for (const ShardRanges::Piece& piece : ClaimAll(tiny, shard)) {
      claimed += piece.end - piece.begin;
    }
  }
  EXPECT_EQ(claimed, 3u);
}

TEST(ShardRangesTest, ABatchOfMoreThan32BitsOfPositionsIsCoveredWhole) {
  // Positions are counted in grains above 2^32: pieces still tile [0, n).
  const uint64_t count = (uint64_t{1} << 33) + 5;
  ShardRanges ranges(count, /*shards=*/2, /*piece=*/uint64_t{1} << 31);
  uint64_t next = 0;
  for (int shard = 0; shard < 2; ++shard) {
    for (const ShardRanges::Piece& piece : ClaimAll(ranges, shard)) {
      ASSERT_EQ(piece.begin, next);
      ASSERT_GT(piece.end, piece.begin);
      next = piece.end;
    }
  }
  EXPECT_EQ(next, count);
}

TEST(ShardRangesTest, ThreadsClaimingAndStealingAtOnceTakeEachPositionOnce) {
  constexpr uint64_t kCount = 200000;
  constexpr int kThreads = 4;
  for (uint64_t piece : {uint64_t{1}, uint64_t{7}, uint64_t{256}}) {
    ShardRanges ranges(kCount, kThreads, piece);
    std::vector<std::atomic<int>> seen(kCount);
    std::vector<std::thread> threads;
    for (int shard = 0; shard < kThreads; ++shard) {
      threads.emplace_back([&, shard] {
        do {
          for (ShardRanges::Piece p = ranges.Claim(shard); !p.empty();
               p = ranges.Claim(shard)) {
            // Uneven speeds: shard 0 dawdles, so the others steal from it.
            if (shard == 0) std::this_thread::yield();
            for (uint64_t i = p.begin; i < p.end; ++i) {
              seen[i].fetch_add(1, std::memory_order_relaxed);
            }
          }
        } while (ranges.Steal(shard));
      });
    }
    for (std::thread& thread : threads) thread.join();
    // Whatever a steal left (at most a piece per range) is its owner's,
    // and every owner ran its range to the end.
    for (uint64_t i = 0; i < kCount; ++i) {
      ASSERT_EQ(seen[i].load(), 1) << "position " << i << ", piece " << piece;
    }
  }
}

}  // namespace
}  // namespace loaderx
