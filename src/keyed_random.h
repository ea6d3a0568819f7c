// Counter-based randomness for the sampler's keyed IID mode
// (`SamplerMode::kIidKeyed`, a loaderx addition that 1.7.7 does not have):
// every stream is a pure function of a (seed, stream) key, so any step's
// batch can be recomputed without replaying the ones before it. Not used by
// the reference-compatible modes (see `sfc64.h` and `mix64.h`).

#ifndef LOADERX_SRC_KEYED_RANDOM_H_
#define LOADERX_SRC_KEYED_RANDOM_H_

#include <cstdint>

#include "src/mix64.h"

namespace loaderx {

// A xoshiro256** generator whose state is derived from (seed, stream) with
// SplitMix64, so distinct keys give independent-looking streams.
class KeyedRandom {
 public:
  KeyedRandom(uint64_t seed, uint64_t stream) {
    uint64_t splitmix = Mix64(seed) ^ Mix64(stream + kGolden);
    for (uint64_t& word : state_) {
      splitmix += kGolden;
      word = Mix64(splitmix);  // Bijective: the four words are never all 0.
    }
  }

  uint64_t Next() {
    const uint64_t result = RotateLeft(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = RotateLeft(state_[3], 45);
    return result;
  }

  // Uniform in `[0, bound)`, `bound > 0`, without bias: Lemire's
  // multiply-shift, rejecting the few products that would favour low values.
  uint64_t Below(uint64_t bound) {
    unsigned __int128 product = static_cast<unsigned __int128>(Next()) * bound;
    uint64_t low = static_cast<uint64_t>(product);
    if (low < bound) {
      const uint64_t threshold = (0 - bound) % bound;
      while (low < threshold) {
        product = static_cast<unsigned __int128>(Next()) * bound;
        low = static_cast<uint64_t>(product);
      }
    }
    return static_cast<uint64_t>(product >> 64);
  }

 private:
  static constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

  static uint64_t RotateLeft(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
  }

  uint64_t state_[4];
};

}  // namespace loaderx

#endif  // LOADERX_SRC_KEYED_RANDOM_H_
