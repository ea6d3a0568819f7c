#include "src/feistel_permutation.h"

#include <bit>
#include <cstdint>

#include "src/keyed_random.h"

namespace loaderx {

FeistelPermutation::FeistelPermutation(uint64_t size, uint64_t key)
    : size_(size) {
  // Bits needed for the largest value, split evenly (at least 1 per half).
  const int bits = size <= 1 ? 0 : 64 - std::countl_zero(size - 1);
  half_bits_ = bits <= 2 ? 1 : (bits + 1) / 2;
  half_mask_ = half_bits_ == 32 ? 0xFFFFFFFFULL : (1ULL << half_bits_) - 1;
  KeyedRandom keys(key, 0x46656973746C6ULL);  // "Feistl"
  for (uint64_t& round_key : round_keys_) round_key = keys.Next();
}

uint64_t FeistelPermutation::Encrypt(uint64_t x) const {
  uint64_t left = (x >> half_bits_) & half_mask_;
  uint64_t right = x & half_mask_;
  for (uint64_t round_key : round_keys_) {
    const uint64_t mixed = left ^ (Mix64(right ^ round_key) & half_mask_);
    left = right;
    right = mixed;
  }
  return (left << half_bits_) | right;
}

}  // namespace loaderx
