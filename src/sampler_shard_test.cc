// Rank sharding of the sampler: in every mode, at every world size that
// divides the batch, the ranks' slices of step s, in rank order, are the
// single-process batch of step s, whether drawn by `Next` from step 0, by
// `Next` after a `Seek`, or by `Batch`; shards of a short cyclic batch are
// clipped, never padded; and bad shards are refused.

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/sampler.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

constexpr SamplerMode kModes[] = {SamplerMode::kSequential, SamplerMode::kIid,
                                  SamplerMode::kCyclic, SamplerMode::kIidKeyed};

std::vector<uint64_t> Draw(Sampler& sampler) {
  std::vector<uint64_t> out(sampler.batch_length());
  out.resize(sampler.Next(absl::MakeSpan(out)).value());
  return out;
}

// Steps [first, first + count) drawn by `world` shards seeked to `first`,
// each step's slices concatenated in rank order.
std::vector<std::vector<uint64_t>> ShardedSteps(uint64_t length, uint64_t batch,
                                                SamplerMode mode,
                                                uint64_t world, uint64_t first,
                                                uint64_t count) {
  std::vector<std::vector<uint64_t>> steps(count);
  for (uint64_t rank = 0; rank < world; ++rank) {
    Sampler shard =
        Sampler::Create(length, batch, mode, 9, SamplerShard{rank, world})
            .value();
    shard.Seek(first);
    for (uint64_t s = 0; s < count; ++s) {
      const std::vector<uint64_t> slice = Draw(shard);
      EXPECT_LE(slice.size(), batch / world);
      steps[s].insert(steps[s].end(), slice.begin(), slice.end());
    }
  }
  return steps;
}

std::vector<std::vector<uint64_t>> SingleSteps(uint64_t length, uint64_t batch,
                                               SamplerMode mode, uint64_t first,
                                               uint64_t count) {
  Sampler sampler = Sampler::Create(length, batch, mode, 9).value();
  sampler.Seek(first);
  std::vector<std::vector<uint64_t>> steps;
  for (uint64_t s = 0; s < count; ++s) steps.push_back(Draw(sampler));
  return steps;
}

TEST(SamplerShardTest, RanksTogetherDrawTheSingleProcessBatch) {
  // 101 records, batch 12: a remainder in every mode.
  for (SamplerMode mode : kModes) {
    for (uint64_t world : {1, 2, 3, 4, 6, 12}) {
      SCOPED_TRACE(testing::Message()
                   << "mode " << static_cast<int>(mode) << " world " << world);
      EXPECT_EQ(ShardedSteps(101, 12, mode, world, 0, 40),
                SingleSteps(101, 12, mode, 0, 40));
      EXPECT_EQ(ShardedSteps(101, 12, mode, world, 23, 10),
                SingleSteps(101, 12, mode, 23, 10));
    }
  }
}

TEST(SamplerShardTest, ElasticWorldSizesContinueOneSequence) {
  for (SamplerMode mode : kModes) {
    SCOPED_TRACE(static_cast<int>(mode));
    std::vector<std::vector<uint64_t>> elastic =
        ShardedSteps(101, 24, mode, 4, 0, 7);
    for (const auto& step : ShardedSteps(101, 24, mode, 2, 7, 9)) {
      elastic.push_back(step);
    }
    for (const auto& step : ShardedSteps(101, 24, mode, 8, 16, 6)) {
      elastic.push_back(step);
    }
    EXPECT_EQ(elastic, SingleSteps(101, 24, mode, 0, 22));
  }
}

TEST(SamplerShardTest, BatchOfAShardIsItsSliceOfTheGlobalBatch) {
  for (SamplerMode mode : kModes) {
    SCOPED_TRACE(static_cast<int>(mode));
    const Sampler single = Sampler::Create(50, 8, mode, 3).value();
    const Sampler shard =
        Sampler::Create(50, 8, mode, 3, SamplerShard{2, 4}).value();
    EXPECT_EQ(shard.rank(), 2u);
    EXPECT_EQ(shard.world_size(), 4u);
    EXPECT_EQ(shard.batch_length(), 2u);
    EXPECT_EQ(shard.global_batch_length(), 8u);
    for (uint64_t step : {0, 5, 17}) {
      std::vector<uint64_t> whole(8);
      ASSERT_OK(single.Batch(step, absl::MakeSpan(whole)));
      std::vector<uint64_t> slice(2);
      ASSERT_OK_AND_ASSIGN(size_t count,
                           shard.Batch(step, absl::MakeSpan(slice)));
      EXPECT_EQ(count, 2u);
      EXPECT_EQ(slice,
                std::vector<uint64_t>(whole.begin() + 4, whole.begin() + 6));
    }
  }
}

TEST(SamplerShardTest, ShortCyclicBatchesAreClippedNotPadded) {
  // 10 records, batch 12: every global batch is a permutation of 10. With
  // 4 ranks of 3, rank 3 gets the last index alone.
  for (uint64_t step : {0, 1, 6}) {
    const std::vector<std::vector<uint64_t>> sharded =
        ShardedSteps(10, 12, SamplerMode::kCyclic, 4, step, 1);
    EXPECT_EQ(sharded, SingleSteps(10, 12, SamplerMode::kCyclic, step, 1));
  }
  Sampler last =
      Sampler::Create(10, 12, SamplerMode::kCyclic, 9, SamplerShard{3, 4})
          .value();
  EXPECT_EQ(Draw(last).size(), 1u);
}

TEST(SamplerShardTest, RejectsAWorldThatDoesNotDivideTheBatch) {
  absl::StatusOr<Sampler> sampler =
      Sampler::Create(100, 10, SamplerMode::kCyclic, 1, SamplerShard{0, 4});
  EXPECT_STATUS_CODE(sampler, absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(sampler.status().message(),
              testing::HasSubstr("world size (4) must divide the global batch "
                                 "size (10)"));
  EXPECT_STATUS_CODE(
      Sampler::Create(100, 8, SamplerMode::kCyclic, 1, SamplerShard{4, 4}),
      absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(
      Sampler::Create(100, 8, SamplerMode::kCyclic, 1, SamplerShard{0, 0}),
      absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace loaderx
