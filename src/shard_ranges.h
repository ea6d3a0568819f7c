// `ShardRanges`: a batch's positions [0, count) divided into one contiguous
// range per shard, handed out while threads of very different speeds work
// on it. The thread running shard s claims its range piece by piece from
// the front (`Claim`); a thread whose range is exhausted takes the back
// half of the fullest other range (`Steal`) into its own and goes on
// claiming. So a thread that starts late, or runs on a core the host
// shares, holds the batch back by at most about a piece, and each
// thread's pieces follow one another, which keeps its look-ahead (a
// gather's prefetches) useful across them. Every position is handed out
// exactly once. Thread-safe: any threads may call `Claim` and `Steal`
// for any shard, though each shard is meant to be run by one thread at a
// time. Claims order nothing else: the caller synchronises the work
// itself (a gather's pool does, when the shards finish).

#ifndef LOADERX_SRC_SHARD_RANGES_H_
#define LOADERX_SRC_SHARD_RANGES_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>

namespace loaderx {

class ShardRanges {
 public:
  // Positions [begin, end) to work on, and where the range they came from
  // ended when they were claimed (positions up to `range_end` are likely
  // to be this thread's next: worth looking ahead to).
  struct Piece {
    uint64_t begin = 0;
    uint64_t end = 0;
    uint64_t range_end = 0;
    bool empty() const { return begin == end; }
  };

  // `count` positions in `shards` (at least 1) ranges of near-equal size,
  // claimed `piece` (at least 1) positions at a time.
  ShardRanges(uint64_t count, int shards, uint64_t piece)
      : count_(count),
        // Positions are counted in grains that fit 32 bits (one position a
        // grain for any batch below 2^32 records).
        grain_(std::max<uint64_t>(1, count / kMaxGrains + 1)),
        piece_grains_(std::max<uint64_t>(1, piece / grain_)),
        shards_(std::max(shards, 1)),
        ranges_(new Range[shards_]) {
    const uint64_t grains = (count + grain_ - 1) / grain_;
    for (int s = 0; s < shards_; ++s) {
      ranges_[s].packed.store(
          Pack(grains * s / shards_, grains * (s + 1) / shards_),
          std::memory_order_relaxed);
    }
  }

  ShardRanges(const ShardRanges&) = delete;
  ShardRanges& operator=(const ShardRanges&) = delete;

  // The next piece from the front of `shard`'s range; empty once the range
  // is exhausted (its rest claimed, or stolen).
  Piece Claim(int shard) {
    std::atomic<uint64_t>& packed = ranges_[shard].packed;
    uint64_t seen = packed.load(std::memory_order_relaxed);
    for (;;) {
      const uint64_t front = Front(seen), back = Back(seen);
      if (front >= back) return Piece{};
      const uint64_t end = std::min(back, front + piece_grains_);
      if (packed.compare_exchange_weak(seen, Pack(end, back),
                                       std::memory_order_relaxed)) {
        return Piece{Position(front), Position(end), Position(back)};
      }
    }
  }

  // Moves the back half of the fullest other range into `shard`'s own,
  // which must be exhausted (`Claim` returned empty). False, moving
  // nothing, when no other range has more than a piece left: its owner
  // claims that at once.
  bool Steal(int shard) {
    for (;;) {
      int victim = -1;
      uint64_t seen = 0, most = 0;
      for (int s = 0; s < shards_; ++s) {
        if (s == shard) continue;
        const uint64_t packed =
            ranges_[s].packed.load(std::memory_order_relaxed);
        const uint64_t left =
            Back(packed) > Front(packed) ? Back(packed) - Front(packed) : 0;
        if (left > most) victim = s, seen = packed, most = left;
      }
      if (victim < 0 || most <= piece_grains_) return false;
      const uint64_t front = Front(seen), back = Back(seen);
      const uint64_t middle = front + (back - front) / 2;
      // The packed value is the whole state of a range, so a compare that
      // succeeds takes unclaimed positions, whatever happened in between.
      if (ranges_[victim].packed.compare_exchange_strong(
              seen, Pack(front, middle), std::memory_order_relaxed)) {
        // Only this thread writes an exhausted range of its own, and no
        // other steals from it (it had nothing left).
        ranges_[shard].packed.store(Pack(middle, back),
                                    std::memory_order_relaxed);
        return true;
      }
    }
  }

 private:
  static constexpr uint64_t kMaxGrains = 0xFFFFFFFF;

  // Each on a cache line of its own: a range is written by its owner at
  // every claim, and by others only when they steal.
  struct alignas(64) Range {
    std::atomic<uint64_t> packed{0};  // front << 32 | back, in grains.
  };

  static uint64_t Pack(uint64_t front, uint64_t back) {
    return front << 32 | back;
  }
  static uint64_t Front(uint64_t packed) { return packed >> 32; }
  static uint64_t Back(uint64_t packed) { return packed & kMaxGrains; }
  uint64_t Position(uint64_t grains) const {
    return std::min(count_, grains * grain_);
  }

  const uint64_t count_;
  const uint64_t grain_;
  const uint64_t piece_grains_;
  const int shards_;
  const std::unique_ptr<Range[]> ranges_;
};

}  // namespace loaderx

#endif  // LOADERX_SRC_SHARD_RANGES_H_
