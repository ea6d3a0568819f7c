#include "loaderx/sampler.h"

#include <cstdint>
#include <set>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/spi/status_macros.h"
#include "tests/concurrency.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

using ::testing::ElementsAre;

std::vector<int64_t> BatchAt(const Sampler& sampler, uint64_t step) {
  std::vector<int64_t> out(sampler.batch_size());
  absl::Status status = sampler.Batch(step, absl::MakeSpan(out));
  EXPECT_TRUE(status.ok()) << status;
  return out;
}

Sampler Make(uint64_t length, uint64_t batch, SamplerMode mode,
             uint64_t seed = 42) {
  absl::StatusOr<Sampler> sampler = Sampler::Create(length, batch, mode, seed);
  EXPECT_TRUE(sampler.ok()) << sampler.status();
  return *std::move(sampler);
}

TEST(SamplerTest, RejectsImpossibleConfigurations) {
  EXPECT_STATUS_CODE(Sampler::Create(0, 4, SamplerMode::kIid, 1),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(Sampler::Create(10, 0, SamplerMode::kIid, 1),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(Sampler::Create(10, 11, SamplerMode::kCyclic, 1),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(
      Sampler::Create((uint64_t{1} << 63) + 1, 1, SamplerMode::kIid, 1),
      absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(Sampler::Create(10, 1, static_cast<SamplerMode>(7), 1),
                     absl::StatusCode::kInvalidArgument);
  // Sequential and IID batches may be larger than the space.
  EXPECT_OK(Sampler::Create(3, 5, SamplerMode::kSequential, 1));
  EXPECT_OK(Sampler::Create(3, 5, SamplerMode::kIid, 1));
}

TEST(SamplerTest, DestinationMustHoldExactlyOneBatch) {
  Sampler sampler = Make(10, 4, SamplerMode::kIid);
  std::vector<int64_t> small(3), large(5);
  EXPECT_STATUS_CODE(sampler.Batch(0, absl::MakeSpan(small)),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(sampler.Next(absl::MakeSpan(large)),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(sampler.step(), 0u);  // A failed Next does not advance.
}

TEST(SamplerTest, SequentialSlidesAroundTheCircle) {
  Sampler sampler = Make(10, 4, SamplerMode::kSequential);
  EXPECT_THAT(BatchAt(sampler, 0), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(BatchAt(sampler, 1), ElementsAre(4, 5, 6, 7));
  EXPECT_THAT(BatchAt(sampler, 2), ElementsAre(8, 9, 0, 1));
  // (2^62 * 4) mod 10 = 6, computed without overflow.
  EXPECT_THAT(BatchAt(sampler, uint64_t{1} << 62), ElementsAre(6, 7, 8, 9));
  Sampler wide = Make(3, 5, SamplerMode::kSequential);
  EXPECT_THAT(BatchAt(wide, 0), ElementsAre(0, 1, 2, 0, 1));
  EXPECT_THAT(BatchAt(wide, 1), ElementsAre(2, 0, 1, 2, 0));
}

TEST(SamplerTest, IidIsInRangeAndAPureFunctionOfSeedAndStep) {
  Sampler sampler = Make(1000, 256, SamplerMode::kIid, 7);
  Sampler twin = Make(1000, 256, SamplerMode::kIid, 7);
  Sampler other_seed = Make(1000, 256, SamplerMode::kIid, 8);
  for (uint64_t step : {5, 0, 3, 1000000}) {
    const std::vector<int64_t> batch = BatchAt(sampler, step);
    for (int64_t index : batch) {
      ASSERT_GE(index, 0);
      ASSERT_LT(index, 1000);
    }
    EXPECT_EQ(batch, BatchAt(twin, step));  // Order of calls does not matter.
    EXPECT_NE(batch, BatchAt(other_seed, step));
    EXPECT_NE(batch, BatchAt(sampler, step + 1));
  }
}

TEST(SamplerTest, IidIsUniform) {
  // 70,000 draws over 7 values: Pearson's chi-square with 6 degrees of
  // freedom stays below 22.46 (p = 0.001) for a uniform draw. Seeded, so
  // the outcome is fixed.
  Sampler sampler = Make(7, 1000, SamplerMode::kIid, 2026);
  std::vector<int> counts(7, 0);
  for (uint64_t step = 0; step < 70; ++step) {
    for (int64_t index : BatchAt(sampler, step)) ++counts[index];
  }
  double chi_square = 0;
  for (int count : counts)
    chi_square += (count - 10000.0) * (count - 10000.0) / 10000.0;
  EXPECT_LT(chi_square, 22.46);
}

TEST(SamplerTest, IidHasNoModuloBiasOnHugeSpaces) {
  // With length = 3 * 2^61, `random % length` would land below length / 2
  // with probability 0.5625; an unbiased draw, 0.5.
  const uint64_t length = uint64_t{3} << 61;
  Sampler sampler = Make(length, 1000, SamplerMode::kIid, 11);
  int below_half = 0;
  for (uint64_t step = 0; step < 100; ++step) {
    for (int64_t index : BatchAt(sampler, step)) {
      below_half += static_cast<uint64_t>(index) < length / 2;
    }
  }
  EXPECT_NEAR(below_half / 100000.0, 0.5, 0.006);
}

TEST(SamplerTest, CyclicCoversEveryIndexOncePerCycle) {
  Sampler sampler = Make(12, 4, SamplerMode::kCyclic, 3);
  ASSERT_EQ(sampler.batches_per_cycle(), 3u);
  std::vector<std::vector<int64_t>> cycles;
  for (uint64_t cycle = 0; cycle < 4; ++cycle) {
    std::vector<int64_t> order;
    for (uint64_t b = 0; b < 3; ++b) {
      for (int64_t index : BatchAt(sampler, cycle * 3 + b))
        order.push_back(index);
    }
    EXPECT_EQ(std::set<int64_t>(order.begin(), order.end()).size(), 12u);
    cycles.push_back(order);
  }
  // Each cycle is a fresh permutation.
  EXPECT_NE(cycles[0], cycles[1]);
  EXPECT_NE(cycles[1], cycles[2]);
}

TEST(SamplerTest, CyclicDropsADifferentRemainderEachCycle) {
  Sampler sampler = Make(10, 3, SamplerMode::kCyclic, 5);
  std::set<int64_t> dropped;
  for (uint64_t cycle = 0; cycle < 20; ++cycle) {
    std::set<int64_t> drawn;
    for (uint64_t b = 0; b < 3; ++b) {
      for (int64_t index : BatchAt(sampler, cycle * 3 + b)) {
        EXPECT_TRUE(drawn.insert(index).second) << "repeat in cycle " << cycle;
      }
    }
    ASSERT_EQ(drawn.size(), 9u);
    for (int64_t i = 0; i < 10; ++i) {
      if (!drawn.count(i)) dropped.insert(i);
    }
  }
  EXPECT_GT(dropped.size(), 3u);  // Every record is reached over time.
}

TEST(SamplerTest, CyclicOverAMillionRecordsRepeatsNothingInACycle) {
  Sampler sampler = Make(1000000, 256, SamplerMode::kCyclic, 42);
  std::vector<bool> seen(1000000, false);
  for (uint64_t step = 0; step < sampler.batches_per_cycle(); ++step) {
    for (int64_t index : BatchAt(sampler, step)) {
      ASSERT_FALSE(seen[index]) << index << " twice in step " << step;
      seen[index] = true;
    }
  }
}

TEST(SamplerTest, NextAndSeekFollowBatch) {
  for (SamplerMode mode :
       {SamplerMode::kSequential, SamplerMode::kIid, SamplerMode::kCyclic}) {
    Sampler sampler = Make(100, 8, mode);
    std::vector<int64_t> out(8);
    for (uint64_t step = 0; step < 30; ++step) {
      ASSERT_OK(sampler.Next(absl::MakeSpan(out)));
      EXPECT_EQ(out, BatchAt(sampler, step));
    }
    EXPECT_EQ(sampler.step(), 30u);
    // Resuming: a copy seeks back and replays exactly.
    Sampler resumed = sampler;
    resumed.Seek(12);
    ASSERT_OK(resumed.Next(absl::MakeSpan(out)));
    EXPECT_EQ(out, BatchAt(sampler, 12));
    EXPECT_EQ(resumed.step(), 13u);
    EXPECT_EQ(sampler.step(), 30u);
  }
}

TEST(SamplerTest, BatchIsSafeFromManyThreads) {
  const Sampler sampler = Make(100000, 64, SamplerMode::kCyclic, 9);
  std::vector<std::vector<int64_t>> expected;
  for (uint64_t step = 0; step < 40; ++step) {
    expected.push_back(BatchAt(sampler, step));
  }
  auto replay = [&](int t) -> absl::Status {
    std::vector<int64_t> out(64);
    for (uint64_t step = t; step < 40; step += 4) {
      LOADERX_RETURN_IF_ERROR(sampler.Batch(step, absl::MakeSpan(out)));
      if (out != expected[step]) return absl::InternalError("batch differs");
    }
    return absl::OkStatus();
  };
  for (const absl::Status& status : RunOnThreads(4, replay)) EXPECT_OK(status);
}

}  // namespace
}  // namespace loaderx
