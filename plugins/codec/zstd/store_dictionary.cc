#include "loaderx/store_dictionary.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "loaderx/typed_store.h"
#include "loaderx/zstd_dictionary.h"

namespace loaderx {
namespace {

constexpr std::array<DictionaryTier, 3> kTiers = {{
    {"fast", uint64_t{32} << 10, uint64_t{4} << 20},
    {"balanced", uint64_t{128} << 10, uint64_t{16} << 20},
    {"max", uint64_t{1} << 20, uint64_t{64} << 20},
}};

// How many records of a shaped store give its mean record size.
constexpr uint64_t kPreviewRecords = 32;

// Reads `indices` of `store` into `buffer`; returns each record's bytes.
absl::StatusOr<std::vector<absl::string_view>> ReadRecords(
    const TypedStore& store, absl::Span<const uint64_t> indices,
    std::string& buffer) {
  absl::StatusOr<ShapedBatch> batch = store.Read(
      indices, [&](uint64_t bytes) -> absl::StatusOr<absl::Span<char>> {
        buffer.resize(bytes);
        return absl::MakeSpan(buffer);
      });
  if (!batch.ok()) return batch.status();
  std::vector<absl::string_view> records;
  records.reserve(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    const uint64_t end =
        i + 1 < indices.size() ? batch->offsets[i + 1] : batch->total_bytes;
    records.emplace_back(buffer.data() + batch->offsets[i],
                         end - batch->offsets[i]);
  }
  return records;
}

}  // namespace

absl::Span<const DictionaryTier> DictionaryTiers() { return kTiers; }

absl::StatusOr<DictionaryTier> FindDictionaryTier(absl::string_view name) {
  if (name.empty()) name = kDefaultDictionaryTier;
  for (const DictionaryTier& tier : kTiers) {
    if (tier.name == name) return tier;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown dictionary tier '", name, "', expected one of ",
      absl::StrJoin(kTiers, ", ",
                    [](std::string* out, const DictionaryTier& tier) {
                      absl::StrAppend(out, tier.name);
                    })));
}

std::vector<uint64_t> StridedSampleIndices(uint64_t count, uint64_t item_bytes,
                                           uint64_t budget) {
  if (count == 0) return {};
  const uint64_t k = std::max<uint64_t>(
      1, std::min(count, std::max<uint64_t>(
                             1, budget / std::max<uint64_t>(item_bytes, 1))));
  // numpy's linspace: i * ((count - 1) / (k - 1)) in doubles, the last one
  // exactly count - 1, truncated towards zero by astype(int64).
  std::vector<uint64_t> indices;
  indices.reserve(k);
  if (k == 1) {
    indices.push_back(0);
    return indices;
  }
  const double step =
      static_cast<double>(count - 1) / static_cast<double>(k - 1);
  for (uint64_t i = 0; i + 1 < k; ++i) {
    indices.push_back(static_cast<uint64_t>(static_cast<double>(i) * step));
  }
  indices.push_back(count - 1);
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  return indices;
}

absl::StatusOr<std::string> TrainDictionaryOnStore(const TypedStore& store,
                                                   const DictionaryTier& tier) {
  const uint64_t count = store.size();
  if (count == 0) {
    return absl::InvalidArgumentError(
        "cannot train a zstd dictionary on an empty store");
  }
  std::string buffer;
  uint64_t item_bytes = store.record_bytes();
  if (!store.fixed_width()) {
    std::vector<uint64_t> preview(std::min(count, kPreviewRecords));
    std::iota(preview.begin(), preview.end(), uint64_t{0});
    absl::StatusOr<std::vector<absl::string_view>> records =
        ReadRecords(store, preview, buffer);
    if (!records.ok()) return records.status();
    uint64_t total = 0;
    for (absl::string_view record : *records) total += record.size();
    // numpy's mean in doubles, truncated by int(); 0 becomes 1.
    item_bytes = static_cast<uint64_t>(static_cast<double>(total) /
                                       static_cast<double>(records->size()));
    item_bytes = std::max<uint64_t>(item_bytes, 1);
  }
  const std::vector<uint64_t> picked =
      StridedSampleIndices(count, item_bytes, tier.sample_budget);
  absl::StatusOr<std::vector<absl::string_view>> samples =
      ReadRecords(store, picked, buffer);
  if (!samples.ok()) return samples.status();
  return TrainZstdDictionary(*samples, tier.capacity);
}

}  // namespace loaderx
