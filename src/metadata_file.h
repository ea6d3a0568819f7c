// Reading a store's metadata files with a bound. Every metadata file has a
// documented maximum size, checked against the file's size before anything
// is allocated for it, so a damaged or planted file (an 8 GiB sparse
// store.zr) is a clean DataLoss naming the file and the limit instead of
// an allocation of its size. The limits, and why each is what it is
// (docs/design.md, "Bounded metadata"):
//
//   file           at most                     why
//   store.zr       32 + 1 MiB                  the fixed header and an
//                                              identity of at most 1 MiB,
//                                              which `Create` refuses beyond
//   dict.zr        32 MiB                      `Create` refuses a larger
//                                              dictionary; zstd's trainer
//                                              makes ~100 KiB ones
//   journal.lx     56 + 48 x 5,592,404 bytes   one step's record; a delete
//                  (256 MiB)                   moving more records than
//                                              that is refused up front
//   meta.zr        32 (33 are read)            fixed size
//   checksums.lx   3 blocks of header          read slot by slot; entries
//                                              are read one at a time
//
// Writers respect the same limits, so no store this build writes is ever
// refused by its own reader.

#ifndef LOADERX_SRC_METADATA_FILE_H_
#define LOADERX_SRC_METADATA_FILE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "loaderx/vfs.h"

namespace loaderx {

inline constexpr uint64_t kMaxIdentityBytes = uint64_t{1} << 20;
inline constexpr uint64_t kMaxTypedHeaderBytes = 32 + kMaxIdentityBytes;
inline constexpr uint64_t kMaxDictionaryBytes = uint64_t{32} << 20;
inline constexpr uint64_t kJournalFixedBytes = 48 + 8;
inline constexpr uint64_t kJournalEntryBytes = 48;
inline constexpr uint64_t kMaxJournalBytes = uint64_t{256} << 20;
inline constexpr uint64_t kMaxJournalEntries =
    (kMaxJournalBytes - kJournalFixedBytes) / kJournalEntryBytes;

// DataLoss naming `path`, its `size` and the `limit`.
absl::Status OversizedMetadataError(absl::string_view path, uint64_t size,
                                    uint64_t limit);

// The whole of `path` if it is at most `max_bytes` long (checked before
// anything is allocated); OversizedMetadataError otherwise; the VFS's
// errors (NotFound for a missing file) as they are.
absl::StatusOr<std::string> ReadMetadataFile(Vfs& vfs, absl::string_view path,
                                             uint64_t max_bytes);

}  // namespace loaderx

#endif  // LOADERX_SRC_METADATA_FILE_H_
