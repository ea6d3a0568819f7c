// `LoaderState` is a data loader's whole checkpoint: six numbers, whatever
// the data set's size, the world size or how far the run has got. The
// sampler is a pure function of (length, batch size, mode, seed, step), so
// these say exactly where a run is; the fingerprint says over which data.
//
// A state saved by any rank of a run at any world size resumes a loader of
// any world size that divides the batch size: step s means the same global
// batch everywhere (`loaderx/sampler.h`, "Rank sharding"). `CheckResumable`
// is the one place that decides whether a saved state fits a loader; it
// never lets a run silently continue over different data or a different
// sequence.
//
// Thread safety: a plain value.

#ifndef LOADERX_LOADER_STATE_H_
#define LOADERX_LOADER_STATE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "loaderx/sampler.h"

namespace loaderx {

struct LoaderState {
  // The step the loader's next batch is.
  uint64_t step = 0;
  uint64_t seed = Sampler::kDefaultSeed;
  SamplerMode mode = SamplerMode::kCyclic;
  // The global batch size (all ranks together).
  uint64_t batch_size = 0;
  // Records in the data set (the sampler's length).
  uint64_t length = 0;
  // The data set's fingerprint (`DataLoader::fingerprint`).
  uint64_t fingerprint = 0;

  friend bool operator==(const LoaderState&, const LoaderState&) = default;
};

// OK if a loader whose own state is `current` may continue from `saved`:
// everything but the step must match. InvalidArgument otherwise, naming
// the first field that differs and both values (a different fingerprint:
// "another data set or a changed one"; a different batch size or length;
// another mode or seed).
absl::Status CheckResumable(const LoaderState& saved,
                            const LoaderState& current);

}  // namespace loaderx

#endif  // LOADERX_LOADER_STATE_H_
