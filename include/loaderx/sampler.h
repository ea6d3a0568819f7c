// `Sampler` draws the indices of an endless, step-based loader: batch after
// batch of exactly `batch_size` indices into `[0, length)`, with no epoch to
// track. Every batch is a pure function of (seed, step), so a run resumes
// exactly by seeking to the step it stopped at. Three modes:
//
//   kSequential  a window sliding over the index space, treated as a circular
//                queue: step s is s*B, s*B+1, ... (mod length), so the tail
//                never truncates.
//   kIid         each index drawn uniformly with replacement (Lemire's method
//                with rejection: unbiased for every length).
//   kCyclic      without replacement: cycle c walks a fresh pseudo-random
//                permutation of the whole space (a Feistel network brought
//                into range by cycle-walking, so nothing the size of the
//                data set is materialised). Each cycle yields
//                floor(length / batch_size) batches, no index twice; the
//                remainder is dropped, a different one each cycle.
//
// Thread safety: `Batch` is const and may be called from many threads at
// once; `Next` and `Seek` change the cursor and need external
// synchronisation. Copying a sampler copies its cursor.

#ifndef LOADERX_SAMPLER_H_
#define LOADERX_SAMPLER_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace loaderx {

enum class SamplerMode : uint8_t {
  kSequential = 0,
  kIid = 1,
  kCyclic = 2,
};

class Sampler {
 public:
  // InvalidArgument if `length` or `batch_size` is 0, if `length` exceeds
  // 2^63 (indices must fit `int64_t`), or if a cyclic batch is larger than
  // the index space (it could not be drawn without replacement).
  static absl::StatusOr<Sampler> Create(uint64_t length, uint64_t batch_size,
                                        SamplerMode mode, uint64_t seed);

  // Fills `out` with the indices of batch `step`. InvalidArgument unless
  // `out.size() == batch_size()`.
  absl::Status Batch(uint64_t step, absl::Span<int64_t> out) const;

  // `Batch(step())` followed by `Seek(step() + 1)`.
  absl::Status Next(absl::Span<int64_t> out);

  // Moves the cursor to `step`.
  void Seek(uint64_t step) { step_ = step; }

  uint64_t step() const { return step_; }
  uint64_t length() const { return length_; }
  uint64_t batch_size() const { return batch_size_; }
  SamplerMode mode() const { return mode_; }
  uint64_t seed() const { return seed_; }

  // Cyclic mode: the batches in one cycle, floor(length / batch_size).
  uint64_t batches_per_cycle() const { return length_ / batch_size_; }

 private:
  Sampler(uint64_t length, uint64_t batch_size, SamplerMode mode, uint64_t seed)
      : length_(length), batch_size_(batch_size), mode_(mode), seed_(seed) {}

  void SequentialBatch(uint64_t step, absl::Span<int64_t> out) const;
  void IidBatch(uint64_t step, absl::Span<int64_t> out) const;
  void CyclicBatch(uint64_t step, absl::Span<int64_t> out) const;

  uint64_t length_;
  uint64_t batch_size_;
  SamplerMode mode_;
  uint64_t seed_;
  uint64_t step_ = 0;
};

}  // namespace loaderx

#endif  // LOADERX_SAMPLER_H_
