// Training a "zstd_dict" dictionary on a store's own records, as the
// reference's `loaderx.utils.train_dict(store, tier)` does: a tier presets
// the dictionary's capacity and how many bytes of records train it, and
// the samples are an evenly strided subset of the records, as many as fill
// that budget. The same store and tier give the reference's dictionary.
//
// Used by the `loaderx recode` command; any program that rewrites a store
// into "zstd_dict" can call it.

#ifndef LOADERX_STORE_DICTIONARY_H_
#define LOADERX_STORE_DICTIONARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace loaderx {

class TypedStore;

// One of the reference's `DICT_TIERS`.
struct DictionaryTier {
  absl::string_view name;      // "fast", "balanced" or "max".
  uint64_t capacity = 0;       // The dictionary's largest size in bytes.
  uint64_t sample_budget = 0;  // Bytes of records that train it.
};

// The tiers, smallest first: fast 32 KiB / 4 MiB, balanced 128 KiB /
// 16 MiB (the default), max 1 MiB / 64 MiB.
absl::Span<const DictionaryTier> DictionaryTiers();
inline constexpr absl::string_view kDefaultDictionaryTier = "balanced";

// The tier called `name`, or the default for an empty name;
// InvalidArgument naming the tiers otherwise.
absl::StatusOr<DictionaryTier> FindDictionaryTier(absl::string_view name);

// The indices of the evenly strided sample of `count` records of about
// `item_bytes` each: k = max(1, min(count, budget / max(item_bytes, 1)))
// indices spread over [0, count) as numpy's
// `unique(linspace(0, count - 1, k).astype(int64))` spreads them, so the
// reference picks the same records. Empty for `count` 0.
std::vector<uint64_t> StridedSampleIndices(uint64_t count, uint64_t item_bytes,
                                           uint64_t budget);

// Trains a dictionary on `store`'s records for `tier`: a fixed-width
// store's records are `record_bytes()` each; a shaped store's item size is
// the mean payload of its first 32 records, and only payloads train (not
// shapes). InvalidArgument for an empty store; the trainer's errors
// (`ErrorCode::kDictTrainingFailed`) and read errors as they come.
absl::StatusOr<std::string> TrainDictionaryOnStore(const TypedStore& store,
                                                   const DictionaryTier& tier);

}  // namespace loaderx

#endif  // LOADERX_STORE_DICTIONARY_H_
