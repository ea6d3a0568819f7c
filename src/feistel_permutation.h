// A keyed pseudo-random permutation of `[0, size)` that materialises
// nothing, bit-exact with loaderx 1.7.7's `permute(key, n, x)`: a balanced
// 4-round Feistel network over the smallest even number of bits `b` with
// `2^b >= size` (so the domain is at most 4x the range), brought into range
// by cycle-walking (re-applying the network until the value lands below
// `size`; fewer than 4 applications expected). Being a permutation of the
// larger domain, the walk always ends, and its restriction to `[0, size)`
// is itself a permutation.
//
// Round `i` maps (L, R) to (R, L ^ (Mix(key, R, i) & mask)): the key itself
// seeds the round function, with the round number as `Mix`'s third input,
// and there is no separate key schedule (as in the reference).
//
// Immutable after construction: safe to use from many threads at once.

#ifndef LOADERX_SRC_FEISTEL_PERMUTATION_H_
#define LOADERX_SRC_FEISTEL_PERMUTATION_H_

#include <cstdint>

namespace loaderx {

class FeistelPermutation {
 public:
  // Any `size`; the same (size, key) always gives the same permutation. A
  // size of 0 or 1 maps everything to 0, as the reference does.
  FeistelPermutation(uint64_t size, uint64_t key);

  // The image of `x`, which must be below `size` (when `size > 1`).
  uint64_t operator()(uint64_t x) const {
    if (size_ <= 1) return 0;
    do {
      x = Encrypt(x);
    } while (x >= size_);
    return x;
  }

  // Bits in each half of the network's domain (0 when `size <= 1`).
  int half_bits() const { return half_bits_; }

 private:
  static constexpr int kRounds = 4;

  uint64_t Encrypt(uint64_t x) const;

  uint64_t size_;
  uint64_t key_;
  int half_bits_;
  uint64_t half_mask_;
};

}  // namespace loaderx

#endif  // LOADERX_SRC_FEISTEL_PERMUTATION_H_
