// A keyed pseudo-random permutation of `[0, size)` that materialises
// nothing: a 4-round balanced Feistel network over the smallest power of
// four at least `size` (at most 4x larger), brought into range by
// cycle-walking (re-applying the network until the value lands below
// `size`; expected fewer than 4 applications). Being a permutation of the
// larger domain, the walk always ends, and the restriction to `[0, size)` is
// itself a permutation.

#ifndef LOADERX_SRC_FEISTEL_PERMUTATION_H_
#define LOADERX_SRC_FEISTEL_PERMUTATION_H_

#include <cstdint>

namespace loaderx {

class FeistelPermutation {
 public:
  // `size` in `[1, 2^64)`; the same (size, key) always gives the same
  // permutation.
  FeistelPermutation(uint64_t size, uint64_t key);

  // The image of `x`, which must be below `size`.
  uint64_t operator()(uint64_t x) const {
    do {
      x = Encrypt(x);
    } while (x >= size_);
    return x;
  }

 private:
  static constexpr int kRounds = 4;

  uint64_t Encrypt(uint64_t x) const;

  uint64_t size_;
  int half_bits_;
  uint64_t half_mask_;
  uint64_t round_keys_[kRounds];
};

}  // namespace loaderx

#endif  // LOADERX_SRC_FEISTEL_PERMUTATION_H_
