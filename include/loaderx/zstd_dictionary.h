// Training the shared dictionary a "zstd_dict" store compresses against.
// Training is an explicit, separate step on settled data: the result is
// handed to `StoreOptions::dictionary` when the store is created.

#ifndef LOADERX_ZSTD_DICTIONARY_H_
#define LOADERX_ZSTD_DICTIONARY_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace loaderx {

// Trains a dictionary of at most `capacity` bytes on `samples` (typically
// a strided subset of a store's records), as zstd's `ZDICT_trainFromBuffer`
// does with its default parameters, so the same samples give the
// reference's dictionary. InvalidArgument if `capacity` is 0, or (with
// `ErrorCode::kDictTrainingFailed` attached) if the samples are too few or
// too small to train on.
absl::StatusOr<std::string> TrainZstdDictionary(
    absl::Span<const absl::string_view> samples, size_t capacity);

}  // namespace loaderx

#endif  // LOADERX_ZSTD_DICTIONARY_H_
