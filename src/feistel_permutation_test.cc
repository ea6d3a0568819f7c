#include "src/feistel_permutation.h"

#include <cstdint>
#include <set>
#include <vector>

#include "gtest/gtest.h"
#include "src/mix64.h"

namespace loaderx {
namespace {

TEST(FeistelPermutationTest, MatchesTheReferenceFirstCycle) {
  // loaderx 1.7.7, cyclic, length 10, seed 42: cycle 0's key is
  // Mix(42, 0, 0) and its first positions map to 4, 9, 2, 3.
  const FeistelPermutation permutation(10, Mix(42, 0, 0));
  EXPECT_EQ(permutation(0), 4u);
  EXPECT_EQ(permutation(1), 9u);
  EXPECT_EQ(permutation(2), 2u);
  EXPECT_EQ(permutation(3), 3u);
}

TEST(FeistelPermutationTest, HalvesAreHalfTheSmallestEvenBitWidth) {
  struct Case {
    uint64_t size;
    int half_bits;
  };
  for (const Case& c : std::vector<Case>{{0, 0},
                                         {1, 0},
                                         {2, 1},
                                         {4, 1},
                                         {5, 2},
                                         {16, 2},
                                         {17, 3},
                                         {1000, 5},
                                         {uint64_t{1} << 32, 16},
                                         {(uint64_t{1} << 32) + 1, 17},
                                         {~uint64_t{0}, 32}}) {
    EXPECT_EQ(FeistelPermutation(c.size, 1).half_bits(), c.half_bits)
        << "size " << c.size;
  }
}

TEST(FeistelPermutationTest, SizesZeroAndOneMapToZero) {
  EXPECT_EQ(FeistelPermutation(0, 5)(0), 0u);
  EXPECT_EQ(FeistelPermutation(1, 5)(0), 0u);
}

TEST(FeistelPermutationTest, IsAPermutationOfTheRange) {
  for (uint64_t size : {2, 3, 4, 5, 16, 17, 1000, 4097, 65539}) {
    const FeistelPermutation permutation(size, /*key=*/size * 31 + 7);
    std::vector<bool> seen(size, false);
    for (uint64_t x = 0; x < size; ++x) {
      const uint64_t y = permutation(x);
      ASSERT_LT(y, size) << "size " << size << ", x " << x;
      ASSERT_FALSE(seen[y]) << "size " << size << ": " << y << " twice";
      seen[y] = true;
    }
  }
}

TEST(FeistelPermutationTest, SameKeySameOrderOtherKeyOtherOrder) {
  const FeistelPermutation a(1000, 1), again(1000, 1), b(1000, 2);
  int differing = 0;
  for (uint64_t x = 0; x < 1000; ++x) {
    EXPECT_EQ(a(x), again(x));
    differing += a(x) != b(x);
  }
  EXPECT_GT(differing, 900);
}

TEST(FeistelPermutationTest, ShufflesRatherThanKeepingOrder) {
  const FeistelPermutation permutation(100000, 42);
  int fixed_points = 0;
  int ascending_neighbours = 0;
  for (uint64_t x = 0; x < 100000; ++x) {
    fixed_points += permutation(x) == x;
    if (x > 0) ascending_neighbours += permutation(x) > permutation(x - 1);
  }
  // A random permutation has about one fixed point and half its neighbours
  // ascending.
  EXPECT_LT(fixed_points, 10);
  EXPECT_NEAR(ascending_neighbours, 50000, 1000);
}

TEST(FeistelPermutationTest, WorksAtTheLargestSizes) {
  for (uint64_t size :
       {uint64_t{1} << 63, (uint64_t{1} << 63) + 12345, ~uint64_t{0}}) {
    const FeistelPermutation permutation(size, 9);
    std::set<uint64_t> images;
    for (uint64_t x = 0; x < 1000; ++x) {
      const uint64_t y = permutation(size - 1 - x);
      EXPECT_LT(y, size);
      images.insert(y);
    }
    EXPECT_EQ(images.size(), 1000u);
  }
}

}  // namespace
}  // namespace loaderx
