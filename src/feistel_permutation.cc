#include "src/feistel_permutation.h"

#include <bit>
#include <cstdint>

#include "src/mix64.h"

namespace loaderx {

FeistelPermutation::FeistelPermutation(uint64_t size, uint64_t key)
    : size_(size), key_(key) {
  // The bit length of the largest value, rounded up to even: n = 2 needs 2
  // bits (1 per half), n = 5..16 needs 4, n near 2^64 needs 64.
  const int bits = size <= 1 ? 0 : std::bit_width(size - 1);
  half_bits_ = (bits + 1) / 2;
  half_mask_ = half_bits_ == 0 ? 0 : (~uint64_t{0} >> (64 - half_bits_));
}

uint64_t FeistelPermutation::Encrypt(uint64_t x) const {
  uint64_t left = (x >> half_bits_) & half_mask_;
  uint64_t right = x & half_mask_;
  for (int round = 0; round < kRounds; ++round) {
    const uint64_t mixed =
        left ^ (Mix(key_, right, static_cast<uint64_t>(round)) & half_mask_);
    left = right;
    right = mixed;
  }
  return (left << half_bits_) | right;
}

}  // namespace loaderx
