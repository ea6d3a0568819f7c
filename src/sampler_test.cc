#include "loaderx/sampler.h"

#include <cstdint>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/spi/status_macros.h"
#include "tests/concurrency.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::UnorderedElementsAre;

constexpr SamplerMode kAllModes[] = {SamplerMode::kSequential,
                                     SamplerMode::kIid, SamplerMode::kCyclic,
                                     SamplerMode::kIidKeyed};

Sampler Make(uint64_t length, uint64_t batch, SamplerMode mode,
             uint64_t seed = Sampler::kDefaultSeed) {
  absl::StatusOr<Sampler> sampler = Sampler::Create(length, batch, mode, seed);
  EXPECT_TRUE(sampler.ok()) << sampler.status();
  return *std::move(sampler);
}

std::vector<uint64_t> NextOf(Sampler& sampler) {
  std::vector<uint64_t> out(sampler.batch_length());
  absl::StatusOr<size_t> count = sampler.Next(absl::MakeSpan(out));
  EXPECT_TRUE(count.ok()) << count.status();
  out.resize(count.value_or(0));
  return out;
}

std::vector<uint64_t> BatchOf(const Sampler& sampler, uint64_t step) {
  std::vector<uint64_t> out(sampler.batch_length());
  absl::StatusOr<size_t> count = sampler.Batch(step, absl::MakeSpan(out));
  EXPECT_TRUE(count.ok()) << count.status();
  out.resize(count.value_or(0));
  return out;
}

TEST(SamplerTest, MatchesTheReferenceSampleValues) {
  // Observed from loaderx 1.7.7 with seed 42.
  Sampler cyclic = Make(10, 4, SamplerMode::kCyclic);
  EXPECT_THAT(NextOf(cyclic), ElementsAre(4, 9, 2, 3));
  EXPECT_THAT(NextOf(cyclic), ElementsAre(0, 7, 8, 5));
  EXPECT_THAT(NextOf(cyclic), ElementsAre(6, 7, 3, 4));
  Sampler iid = Make(1000, 8, SamplerMode::kIid);
  EXPECT_THAT(NextOf(iid), ElementsAre(520, 433, 412, 601, 163, 713, 142, 216));
  Sampler large = Make(1000, 8, SamplerMode::kCyclic);
  EXPECT_THAT(NextOf(large),
              ElementsAre(319, 605, 475, 179, 17, 810, 826, 938));
}

TEST(SamplerTest, RejectsWhatTheReferenceCrashesOn) {
  for (SamplerMode mode : kAllModes) {
    EXPECT_STATUS_CODE(Sampler::Create(0, 4, mode, 1),
                       absl::StatusCode::kInvalidArgument);
    EXPECT_STATUS_CODE(Sampler::Create(10, 0, mode, 1),
                       absl::StatusCode::kInvalidArgument);
  }
  EXPECT_STATUS_CODE(Sampler::Create(10, 1, static_cast<SamplerMode>(4), 1),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(Sampler::Create(10, 1, static_cast<SamplerMode>(7), 1),
                     absl::StatusCode::kInvalidArgument);
  // The whole u64 range is valid otherwise, batches larger than the space
  // included.
  for (SamplerMode mode : kAllModes) {
    EXPECT_OK(Sampler::Create(~uint64_t{0}, ~uint64_t{0}, mode, ~uint64_t{0}));
    EXPECT_OK(Sampler::Create(3, 5, mode, 0));
  }
}

TEST(SamplerTest, DestinationMustHoldOneBatch) {
  Sampler sampler = Make(10, 4, SamplerMode::kIid);
  std::vector<uint64_t> small(3), large(6);
  EXPECT_STATUS_CODE(sampler.Next(absl::MakeSpan(small)),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(sampler.Batch(0, absl::MakeSpan(small)),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(sampler.step(), 0u);  // A failed Next changes nothing.
  const std::vector<uint64_t> first = BatchOf(sampler, 0);
  large.back() = 12345;
  ASSERT_OK_AND_ASSIGN(size_t count, sampler.Next(absl::MakeSpan(large)));
  EXPECT_EQ(count, 4u);
  EXPECT_THAT(absl::MakeSpan(large).first(4), ElementsAreArray(first));
  EXPECT_EQ(large.back(), 12345u);  // Only the front is written.
}

TEST(SamplerTest, SequentialSlidesAroundTheCircle) {
  Sampler sampler = Make(10, 4, SamplerMode::kSequential);
  EXPECT_THAT(NextOf(sampler), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(NextOf(sampler), ElementsAre(4, 5, 6, 7));
  EXPECT_THAT(NextOf(sampler), ElementsAre(8, 9, 0, 1));
  Sampler wide = Make(3, 5, SamplerMode::kSequential);
  EXPECT_THAT(NextOf(wide), ElementsAre(0, 1, 2, 0, 1));
  EXPECT_THAT(NextOf(wide), ElementsAre(2, 0, 1, 2, 0));
}

TEST(SamplerTest, SequentialSeekWrapsStepTimesBatchAsTheReference) {
  // 1.7.7: cursor = (step * B mod 2^64) mod length. 2^62 * 4 wraps to 0,
  // where 2^62 calls of next() would have reached 2^64 mod 10 = 6.
  Sampler sampler = Make(10, 4, SamplerMode::kSequential);
  sampler.Seek(uint64_t{1} << 62);
  EXPECT_THAT(NextOf(sampler), ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(sampler.step(), (uint64_t{1} << 62) + 1);
  sampler.Seek(7);
  EXPECT_THAT(NextOf(sampler), ElementsAre(8, 9, 0, 1));
  // Indices near 2^64: cursor + i wraps before the modulo, as in 1.7.7.
  Sampler huge = Make(~uint64_t{0}, 3, SamplerMode::kSequential);
  huge.Seek((~uint64_t{0} - 1) / 3);
  EXPECT_THAT(NextOf(huge), ElementsAre(~uint64_t{0} - 3, ~uint64_t{0} - 2,
                                        ~uint64_t{0} - 1));
  EXPECT_THAT(NextOf(huge), ElementsAre(0, 1, 2));
}

TEST(SamplerTest, IidIsUniform) {
  // 70,000 draws over 7 values: Pearson's chi-square with 6 degrees of
  // freedom stays below 22.46 (p = 0.001) for a uniform draw. Seeded, so
  // the outcome is fixed.
  for (SamplerMode mode : {SamplerMode::kIid, SamplerMode::kIidKeyed}) {
    Sampler sampler = Make(7, 1000, mode, 2026);
    std::vector<int> counts(7, 0);
    for (int step = 0; step < 70; ++step) {
      for (uint64_t index : NextOf(sampler)) ++counts[index];
    }
    double chi_square = 0;
    for (int count : counts) {
      chi_square += (count - 10000.0) * (count - 10000.0) / 10000.0;
    }
    EXPECT_LT(chi_square, 22.46) << static_cast<int>(mode);
  }
}

TEST(SamplerTest, IidHasNoModuloBiasOnHugeSpaces) {
  // With length = 3 * 2^62, `random % length` would land below length / 2
  // with probability 0.625; an unbiased draw, 0.5.
  const uint64_t length = uint64_t{3} << 62;
  for (SamplerMode mode : {SamplerMode::kIid, SamplerMode::kIidKeyed}) {
    Sampler sampler = Make(length, 1000, mode, 11);
    int below_half = 0;
    for (int step = 0; step < 100; ++step) {
      for (uint64_t index : NextOf(sampler)) {
        ASSERT_LT(index, length);
        below_half += index < length / 2;
      }
    }
    EXPECT_NEAR(below_half / 100000.0, 0.5, 0.006) << static_cast<int>(mode);
  }
}

TEST(SamplerTest, KeyedIidIsItsOwnSequence) {
  Sampler iid = Make(1000, 16, SamplerMode::kIid, 7);
  Sampler keyed = Make(1000, 16, SamplerMode::kIidKeyed, 7);
  Sampler other_seed = Make(1000, 16, SamplerMode::kIidKeyed, 8);
  EXPECT_NE(NextOf(iid), BatchOf(keyed, 0));
  EXPECT_NE(BatchOf(keyed, 0), BatchOf(other_seed, 0));
  EXPECT_NE(BatchOf(keyed, 0), BatchOf(keyed, 1));
  // Any step is computed directly, without replaying the ones before.
  const std::vector<uint64_t> far = BatchOf(keyed, uint64_t{1} << 60);
  keyed.Seek(uint64_t{1} << 60);
  EXPECT_EQ(NextOf(keyed), far);
}

TEST(SamplerTest, CyclicIsAPermutationWithinEachCycle) {
  Sampler sampler = Make(12, 4, SamplerMode::kCyclic, 3);
  ASSERT_EQ(sampler.batches_per_cycle(), 3u);
  std::vector<std::vector<uint64_t>> cycles;
  for (int cycle = 0; cycle < 4; ++cycle) {
    std::vector<uint64_t> order;
    for (int b = 0; b < 3; ++b) {
      for (uint64_t index : NextOf(sampler)) order.push_back(index);
    }
    EXPECT_EQ(std::set<uint64_t>(order.begin(), order.end()).size(), 12u);
    cycles.push_back(order);
  }
  EXPECT_NE(cycles[0], cycles[1]);  // Each cycle is a fresh permutation.
  EXPECT_NE(cycles[1], cycles[2]);
}

TEST(SamplerTest, CyclicSkipsADifferentRemainderEachCycle) {
  Sampler sampler = Make(10, 3, SamplerMode::kCyclic, 5);
  ASSERT_EQ(sampler.batches_per_cycle(), 3u);
  std::set<uint64_t> skipped;
  for (int cycle = 0; cycle < 20; ++cycle) {
    std::set<uint64_t> drawn;
    for (int b = 0; b < 3; ++b) {
      for (uint64_t index : NextOf(sampler)) {
        EXPECT_TRUE(drawn.insert(index).second) << "repeat in cycle " << cycle;
      }
    }
    ASSERT_EQ(drawn.size(), 9u);
    for (uint64_t i = 0; i < 10; ++i) {
      if (!drawn.count(i)) skipped.insert(i);
    }
  }
  EXPECT_GT(skipped.size(), 3u);  // Every record is reached over time.
}

TEST(SamplerTest, CyclicBelowOneBatchGivesAWholePermutationPerStep) {
  Sampler sampler = Make(3, 8, SamplerMode::kCyclic, 42);
  EXPECT_EQ(sampler.batch_length(), 3u);
  EXPECT_EQ(sampler.batches_per_cycle(), 1u);
  std::set<std::vector<uint64_t>> orders;
  for (int step = 0; step < 30; ++step) {
    const std::vector<uint64_t> batch = NextOf(sampler);
    EXPECT_THAT(batch, UnorderedElementsAre(0, 1, 2));
    orders.insert(batch);
  }
  EXPECT_GT(orders.size(), 3u);  // A fresh permutation each step.
  // Sequential and IID batches stay B long.
  EXPECT_EQ(Make(3, 8, SamplerMode::kSequential).batch_length(), 8u);
  EXPECT_EQ(Make(3, 8, SamplerMode::kIid).batch_length(), 8u);
}

TEST(SamplerTest, CyclicSeeksWhereTheReferenceDividesByZero) {
  // Length 2^64 - 1, batch 3: every position is used, and 1.7.7 computes
  // the steps per cycle as (usable + B - 1) / B in wrapping u64, gets 0 and
  // dies with SIGFPE in seek. Here it is (2^64 - 1) / 3.
  const uint64_t length = ~uint64_t{0};
  const uint64_t per_cycle = length / 3;
  Sampler sampler = Make(length, 3, SamplerMode::kCyclic);
  EXPECT_EQ(sampler.batches_per_cycle(), per_cycle);
  sampler.Seek(per_cycle - 1);
  NextOf(sampler);  // The last batch of cycle 0.
  Sampler second_cycle = Make(length, 3, SamplerMode::kCyclic);
  second_cycle.Seek(per_cycle);
  EXPECT_EQ(NextOf(sampler), NextOf(second_cycle));
  Sampler first_cycle = Make(length, 3, SamplerMode::kCyclic);
  EXPECT_NE(NextOf(first_cycle), BatchOf(first_cycle, per_cycle));
}

TEST(SamplerTest, CyclicOverAMillionRecordsRepeatsNothingInACycle) {
  Sampler sampler = Make(1000000, 256, SamplerMode::kCyclic, 42);
  std::vector<bool> seen(1000000, false);
  for (uint64_t step = 0; step < sampler.batches_per_cycle(); ++step) {
    for (uint64_t index : NextOf(sampler)) {
      ASSERT_FALSE(seen[index]) << index << " twice in step " << step;
      seen[index] = true;
    }
  }
}

TEST(SamplerTest, SeekThenNextIsTheStepThCallOfNext) {
  // Through cycle boundaries and back: 10 / 3 has 3 batches per cycle.
  for (SamplerMode mode : kAllModes) {
    for (uint64_t length : {1, 2, 10, 1000}) {
      Sampler fresh = Make(length, 3, mode, 9);
      std::vector<std::vector<uint64_t>> run;
      for (int step = 0; step < 26; ++step) run.push_back(NextOf(fresh));
      Sampler seeker = Make(length, 3, mode, 9);
      for (uint64_t step : {7, 2, 3, 24, 0, 11, 5, 6, 6, 1}) {
        seeker.Seek(step);
        EXPECT_EQ(seeker.step(), step);
        EXPECT_EQ(NextOf(seeker), run[step])
            << "mode " << static_cast<int>(mode) << " length " << length
            << " step " << step;
        EXPECT_EQ(NextOf(seeker), run[step + 1]);
      }
    }
  }
}

TEST(SamplerTest, BatchIsSeekThenNextWithoutMovingTheCursor) {
  for (SamplerMode mode : kAllModes) {
    Sampler sampler = Make(100, 8, mode);
    for (int step = 0; step < 5; ++step) NextOf(sampler);
    for (uint64_t step : {9, 3, 5, 0, 40}) {
      Sampler copy = sampler;
      copy.Seek(step);
      EXPECT_EQ(BatchOf(sampler, step), NextOf(copy))
          << "mode " << static_cast<int>(mode) << " step " << step;
    }
    EXPECT_EQ(sampler.step(), 5u);
    Sampler fresh = Make(100, 8, mode);
    fresh.Seek(5);
    EXPECT_EQ(NextOf(sampler), NextOf(fresh));  // The cursor did not move.
  }
}

TEST(SamplerTest, ACopyContinuesWhereTheOriginalWas) {
  for (SamplerMode mode : kAllModes) {
    Sampler sampler = Make(50, 7, mode, 3);
    for (int step = 0; step < 9; ++step) NextOf(sampler);
    Sampler copy = sampler;
    for (int step = 0; step < 9; ++step) {
      EXPECT_EQ(NextOf(copy), NextOf(sampler));
    }
  }
}

TEST(SamplerTest, BatchIsSafeFromManyThreads) {
  for (SamplerMode mode : {SamplerMode::kCyclic, SamplerMode::kIid}) {
    const Sampler sampler = Make(100000, 64, mode, 9);
    std::vector<std::vector<uint64_t>> expected;
    for (uint64_t step = 0; step < 40; ++step) {
      expected.push_back(BatchOf(sampler, step));
    }
    auto replay = [&](int t) -> absl::Status {
      std::vector<uint64_t> out(64);
      for (uint64_t step = t; step < 40; step += 4) {
        LOADERX_ASSIGN_OR_RETURN(size_t count,
                                 sampler.Batch(step, absl::MakeSpan(out)));
        if (count != 64 || out != expected[step]) {
          return absl::InternalError(absl::StrCat("step ", step, " differs"));
        }
      }
      return absl::OkStatus();
    };
    for (const absl::Status& status : RunOnThreads(4, replay)) {
      EXPECT_OK(status);
    }
  }
}

}  // namespace
}  // namespace loaderx
