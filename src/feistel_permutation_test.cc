#include "src/feistel_permutation.h"

#include <cstdint>
#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace loaderx {
namespace {

TEST(FeistelPermutationTest, IsAPermutationOfTheRange) {
  for (uint64_t size : {1, 2, 3, 4, 5, 16, 17, 1000, 4097, 65539}) {
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
