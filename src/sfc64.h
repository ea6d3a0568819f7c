// The IID sampler's generator, bit-exact with loaderx 1.7.7: Zig's
// `std.Random.Sfc64` (Chris Doty-Humphrey's Small Fast Counting generator,
// 64-bit) and Zig's `Random.uintLessThan` over it. Matching the reference's
// IID sequences means matching both exactly: the seeding (a = b = c = seed,
// counter = 1, 12 outputs thrown away), the output step, and the bounded
// draw (Lemire's multiply-shift, whose rejection threshold Zig computes in
// steps but whose value is `2^64 mod bound`).
//
// All arithmetic wraps modulo 2^64. A copy carries the whole state, so a
// copy can run ahead without disturbing the original. Not thread-safe: one
// owner at a time.

#ifndef LOADERX_SRC_SFC64_H_
#define LOADERX_SRC_SFC64_H_

#include <array>
#include <bit>
#include <cstdint>

namespace loaderx {

class Sfc64 {
 public:
  // The whole state as words (a, b, c, counter), for keeping a generator
  // in a plain struct and resuming it later with `FromWords`.
  using Words = std::array<uint64_t, 4>;

  explicit Sfc64(uint64_t seed) : a_(seed), b_(seed), c_(seed) {
    for (int i = 0; i < kSeedingDiscards; ++i) Next();
  }

  static Sfc64 FromWords(const Words& words) {
    return Sfc64(words[0], words[1], words[2], words[3]);
  }
  Words ToWords() const { return {a_, b_, c_, counter_}; }

  // The next raw 64-bit output (Zig's `Sfc64.next`, and `Random.int(u64)`,
  // which is one output read as little-endian bytes).
  uint64_t Next() {
    const uint64_t result = a_ + b_ + counter_;
    ++counter_;
    a_ = b_ ^ (b_ >> 11);
    b_ = c_ + (c_ << 3);
    c_ = std::rotl(c_, 24) + result;
    return result;
  }

  // Uniform in `[0, bound)` without bias, `bound > 0` (Zig's
  // `uintLessThan(u64, bound)`): the high word of `x * bound`, drawing a new
  // `x` while the low word falls below `2^64 mod bound`. One call is one
  // draw, however many outputs it consumed.
  uint64_t UintLessThan(uint64_t bound) {
    unsigned __int128 product = static_cast<unsigned __int128>(Next()) * bound;
    uint64_t low = static_cast<uint64_t>(product);
    if (low < bound) {
      const uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
      while (low < threshold) {
        product = static_cast<unsigned __int128>(Next()) * bound;
        low = static_cast<uint64_t>(product);
      }
    }
    return static_cast<uint64_t>(product >> 64);
  }

  // `draws` calls of `UintLessThan(bound)` whose results are thrown away.
  void DiscardDraws(uint64_t bound, uint64_t draws) {
    for (uint64_t i = 0; i < draws; ++i) UintLessThan(bound);
  }

 private:
  static constexpr int kSeedingDiscards = 12;

  Sfc64(uint64_t a, uint64_t b, uint64_t c, uint64_t counter)
      : a_(a), b_(b), c_(c), counter_(counter) {}

  uint64_t a_;
  uint64_t b_;
  uint64_t c_;
  uint64_t counter_ = 1;
};

}  // namespace loaderx

#endif  // LOADERX_SRC_SFC64_H_
