// `Sampler` draws the record indices of an endless, step-based loader: batch
// after batch of indices into `[0, length)`, with no epoch to track. For the
// three modes loaderx 1.7.7 has, its sequences are bit-exact with that
// package's `Sampler`: the same (length, batch size, mode, seed) and the
// same calls give the same indices, so a training run keeps its order when
// it moves between the two implementations. Modes, numbered as 1.7.7
// numbers them (B is the batch size):
//
//   kSequential (0)  a window sliding over the index space as a circular
//                    queue: cursor, cursor + 1, ... (mod length), then the
//                    cursor moves on by B (mod length). A batch wraps inside
//                    itself when length < B.
//   kIid (1)         each index drawn uniformly, with replacement, from one
//                    Sfc64 stream seeded once (`src/sfc64.h`); every batch
//                    is B draws, even when length < B.
//   kCyclic (2)      without replacement: cycle c walks a pseudo-random
//                    permutation of the whole space keyed by (seed, c)
//                    (`src/feistel_permutation.h`), nothing the size of the
//                    data set materialised. A cycle yields floor(length / B)
//                    batches of B indices; the last length mod B positions
//                    are skipped, a different set of records each cycle.
//                    When length < B, every batch is a whole fresh
//                    permutation: `length` indices.
//   kIidKeyed (3)    a loaderx addition that 1.7.7 does not have: uniform
//                    with replacement like kIid, but batch s is a pure
//                    function of (seed, s), so seeking is O(1). Its
//                    sequences are not kIid's.
//
// Costs: `Next` is O(B) in every mode (cyclic: fewer than 4 Feistel network
// applications per index expected). `Seek(step)` is O(1), and `Batch(step)`
// O(B), in every mode but kIid, whose only way to a step is to replay its
// stream: O(distance * B) more draws, the distance counted from the current
// step when moving forward, from step 0 when moving back (1.7.7 always
// replays from 0).
//
// `Seek` follows 1.7.7's formulas, in u64 arithmetic that wraps: step * B is
// taken modulo 2^64. In sequential and IID modes `Seek(step)` therefore
// lands where `step` calls of `Next` would only while step * B < 2^64
// (step < 2^56 for B = 256); in cyclic and keyed IID modes it always does.
//
// Rank sharding (data-parallel training): a sampler made with a
// `SamplerShard{rank, world_size}` draws the same global batches as the
// single-process sampler of the same (length, batch size, mode, seed), and
// writes only rank `rank`'s contiguous slice of each: positions
// [rank * B / world, (rank + 1) * B / world) of the global batch, clipped
// to the batch's own length (only cyclic batches over fewer than B indices
// are shorter). The world size must divide B. The ranks' slices, in rank
// order, are exactly the global batch: no padding, no repeated samples, no
// coordination between ranks. A shard's costs are the global batch's
// (every rank draws the whole batch and keeps its slice; IID must, to keep
// its single stream), and a step means the same batch at any world size,
// so a job resumed with another world size continues the same sequence.
//
// Thread safety: const methods, `Batch` included, may run concurrently from
// many threads; `Next` and `Seek` change the sampler and need exclusive
// access. Copying a sampler copies its whole state (cursor, cycle,
// generator), so a copy continues exactly where the original was.

#ifndef LOADERX_SAMPLER_H_
#define LOADERX_SAMPLER_H_

#include <array>
#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace loaderx {

enum class SamplerMode : uint8_t {
  kSequential = 0,
  kIid = 1,
  kCyclic = 2,
  kIidKeyed = 3,
};

// Which slice of every global batch a sampler writes (see above).
struct SamplerShard {
  uint64_t rank = 0;
  uint64_t world_size = 1;
};

class Sampler {
 public:
  // 1.7.7's default seed.
  static constexpr uint64_t kDefaultSeed = 42;

  // Any `length` and `batch_size` in [1, 2^64) and any seed. InvalidArgument
  // for a length or batch size of 0 or an unknown mode (cases where 1.7.7
  // crashes or silently runs another mode).
  static absl::StatusOr<Sampler> Create(uint64_t length, uint64_t batch_size,
                                        SamplerMode mode,
                                        uint64_t seed = kDefaultSeed);
  // The same, writing rank `shard.rank`'s slice of every batch.
  // InvalidArgument also for a world size of 0, a rank not below it, or a
  // world size that does not divide the batch size.
  static absl::StatusOr<Sampler> Create(uint64_t length, uint64_t batch_size,
                                        SamplerMode mode, uint64_t seed,
                                        SamplerShard shard);

  // How many indices every global batch holds: the batch size, except in
  // cyclic mode over fewer indices than the batch size, where it is
  // `length`.
  uint64_t global_batch_length() const;
  // The most indices `Next` writes: `global_batch_length()` unsharded, at
  // most batch_size / world_size for a shard (fewer when the global batch
  // is short).
  uint64_t batch_length() const;

  // Writes the current step's batch (a shard: its slice) to the front of
  // `out`, moves to the next step and returns how many indices it wrote
  // (`batch_length()`, or fewer for a shard of a short batch).
  // InvalidArgument, changing nothing, if `out` holds fewer than
  // `batch_length()` indices.
  absl::StatusOr<size_t> Next(absl::Span<uint64_t> out);

  // Writes what `Seek(step)` then `Next(out)` would, without moving this
  // sampler; returns how many indices it wrote. Costs as `Seek` (see the
  // top of this file: kIid replays its stream). InvalidArgument as `Next`.
  absl::StatusOr<size_t> Batch(uint64_t step, absl::Span<uint64_t> out) const;

  // Moves to `step`: the next `Next` writes that step's batch.
  void Seek(uint64_t step);

  // The step the next `Next` writes: the last `Seek` target (0 at first)
  // plus the `Next` calls since, modulo 2^64.
  uint64_t step() const { return state_.step; }
  uint64_t length() const { return length_; }
  uint64_t batch_size() const { return batch_size_; }
  SamplerMode mode() const { return mode_; }
  uint64_t seed() const { return seed_; }
  uint64_t rank() const { return shard_.rank; }
  uint64_t world_size() const { return shard_.world_size; }

  // The batches in one cyclic cycle: floor(length / batch_size), or 1 when
  // length < batch_size (the value of 1.7.7's steps-per-cycle in every
  // mode; only cyclic mode has cycles).
  uint64_t batches_per_cycle() const;

 private:
  // Everything `Next` changes; each mode uses its own fields.
  struct State {
    uint64_t step = 0;
    // Sequential: the first index of the next batch. Cyclic: the position
    // in the current cycle's permutation.
    uint64_t cursor = 0;
    uint64_t cycle = 0;  // Cyclic.
    // IID: the generator's words (`src/sfc64.h`), `draws` bounded draws
    // (modulo 2^64) after seeding.
    std::array<uint64_t, 4> generator{};
    uint64_t draws = 0;
  };

  Sampler(uint64_t length, uint64_t batch_size, SamplerMode mode, uint64_t seed,
          SamplerShard shard);

  void SeekState(State& state, uint64_t step) const;
  size_t FillBatch(State& state, absl::Span<uint64_t> out) const;
  // `FillBatch` for a shard: the global batch, then this rank's slice.
  size_t FillShard(State& state, absl::Span<uint64_t> out) const;
  absl::Status CheckDestination(absl::Span<uint64_t> out) const;

  uint64_t length_;
  uint64_t batch_size_;
  SamplerMode mode_;
  uint64_t seed_;
  SamplerShard shard_;
  // Cyclic: the positions used in each cycle, a multiple of the batch size
  // (or `length` when length < batch_size).
  uint64_t usable_;
  State state_;
};

}  // namespace loaderx

#endif  // LOADERX_SAMPLER_H_
