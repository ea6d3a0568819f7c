// The resident index of a store of small fixed-width raw records: each
// record's location and checksum in one 16-byte entry in memory, made once
// from its table entry ({id}.loc) and its checksum entry (checksums.lx),
// when the checksum entry's binding of the table entry is checked. A
// verified gather of such records then reads one entry and the record's
// bytes (two cache lines) instead of a table entry, a checksum entry and
// the bytes (three lines, in three files), and hashes only the bytes.
//
// An entry is made only for a record of exactly the index's width, whose
// checksum entry is set and binds its table entry; every other record's
// entry is `kNotResident`, and a gather hands such a record to the general
// path, which reads the files, checks and words errors as it always does.
// Entries never change once made: a rewrite of committed table entries (a
// delete, a compaction) drops the index together with the mappings
// (`StoreMappings::Invalidate`), and it is made afresh.
//
// The index lives in `MappedView` (`StoreMappings::Reside` extends it) and
// covers a prefix of the store's records: at most `kResidentMaxRecords`,
// grown by at most `kResidentRecordsPerGather` a gather, so the first
// gather of a large store does not wait for all of it.

#ifndef LOADERX_SRC_RESIDENT_INDEX_H_
#define LOADERX_SRC_RESIDENT_INDEX_H_

#include <cstdint>
#include <limits>
#include <memory>

#include "absl/strings/string_view.h"

namespace loaderx {

// Not a file format: the engine's own memory, in the machine's byte order.
// The checksum comes first, as in a checksum entry, so the block check
// (`checksum_internal::BlockCheck`) reads both the same way.
struct ResidentEntry {
  uint64_t checksum = 0;  // XXH3-64 of the record's stored bytes.
  uint32_t offset = 0;    // In its chunk.
  uint32_t chunk_id = 0;  // `kNotResident`: use the general path.
};
static_assert(sizeof(ResidentEntry) == 16);

inline constexpr uint32_t kNotResident = std::numeric_limits<uint32_t>::max();

// Records wider than this are gathered without the index: one line saved
// per record matters only when a record is a line or a few.
inline constexpr uint64_t kResidentMaxWidth = 256;
// 1 GiB of entries at most; the records past it use the files' entries.
inline constexpr uint64_t kResidentMaxRecords = uint64_t{1} << 26;
// ~5 ms of work: how far one gather extends the index.
inline constexpr uint64_t kResidentRecordsPerGather = uint64_t{1} << 20;

// The entries of a resident index, in a block that only grows. Entries
// below a view's count are never written again, so readers read them
// without a lock while `StoreMappings` fills those past it.
struct ResidentBlock {
  explicit ResidentBlock(uint64_t capacity)
      : entries(new ResidentEntry[capacity]), capacity(capacity) {}
  std::unique_ptr<ResidentEntry[]> entries;
  uint64_t capacity;
};

// Makes the entries of records [first, end) into `out[0, end - first)`,
// for records of `width` bytes, from `segment` (the mapped bytes of table
// segment 0) and `checksums` (the mapped bytes of checksums.lx), both of
// which must hold these records' entries.
void MakeResidentEntries(absl::string_view segment, absl::string_view checksums,
                         uint64_t first, uint64_t end, uint64_t width,
                         ResidentEntry* out);

// How many records of a store `segment` and `checksums` (mapped as above)
// hold both entries of: the end of the prefix an index can cover.
uint64_t ResidentCoverable(absl::string_view segment,
                           absl::string_view checksums);

}  // namespace loaderx

#endif  // LOADERX_SRC_RESIDENT_INDEX_H_
