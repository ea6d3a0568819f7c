// The small stores the damage catalogue damages, and the records they hold.
//
// A sample store is a dense or ragged `TypedStore` of `kSampleRecords`
// records in one codec (raw, zstd or zstd_dict) on the real filesystem.
// Every record's bytes follow from an id (`SampleRecord`), and begin with
// that id, so a reader can tell which record it got and whether it is
// exactly that record: `IdentifySample` is the one judge of "correct data".
//
// `CreateSampleStore` uses the store's thread pool: call it in a process
// that will not fork afterwards (the catalogue runs it in a child).

#ifndef LOADERX_TESTS_DAMAGE_SAMPLE_STORE_H_
#define LOADERX_TESTS_DAMAGE_SAMPLE_STORE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace loaderx::damage {

inline constexpr uint64_t kSampleRecords = 6;
// Dense records are this many bytes (dtype |u1, item_shape {kDenseWidth}).
inline constexpr uint64_t kDenseWidth = 40;

struct SampleKind {
  std::string kind;   // "dense" or "ragged"
  std::string codec;  // "raw", "zstd" or "zstd_dict"

  std::string Name() const { return kind + "/" + codec; }
};

// The bytes of record `id` of a store of `kind`: the id (u64, little
// endian), then a pattern of the id. Dense records are `kDenseWidth`
// bytes; ragged ones 9 + 11 * id bytes.
std::string SampleRecord(absl::string_view kind, uint64_t id);

// The id whose record `bytes` is exactly, if any (ids below `limit`).
std::optional<uint64_t> IdentifySample(absl::string_view kind,
                                       absl::string_view bytes, uint64_t limit);

// Creates the sample store at `path`: records 0..kSampleRecords appended
// and synced, then the last deleted (so journal.lx exists).
absl::Status CreateSampleStore(const SampleKind& sample,
                               const std::string& path);

}  // namespace loaderx::damage

#endif  // LOADERX_TESTS_DAMAGE_SAMPLE_STORE_H_
