// 64-bit mixing functions shared by the sampler's modes.
//
// `Mix64` is SplitMix64's finaliser: a bijection of the 64-bit words with
// full avalanche. `Mix` is loaderx 1.7.7's keyed hash `mix(seed, v, r)`,
// which the cyclic sampler uses both to key each cycle and as its Feistel
// round function; it must stay bit-exact with the reference.

#ifndef LOADERX_SRC_MIX64_H_
#define LOADERX_SRC_MIX64_H_

#include <cstdint>

namespace loaderx {

inline constexpr uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// The reference's `mix(seed, v, r)`: `value` and `round` spread by two odd
// constants (the golden ratio's and another Weyl increment), folded into the
// seed, then finalised. Products wrap modulo 2^64.
inline constexpr uint64_t Mix(uint64_t seed, uint64_t value, uint64_t round) {
  return Mix64(seed ^ (value * 0x9E3779B97F4A7C15ULL) ^
               (round * 0xD1B54A32D192ED03ULL));
}

}  // namespace loaderx

#endif  // LOADERX_SRC_MIX64_H_
