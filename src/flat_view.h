// `FlatView`: a `MappedView`'s mapped prefixes as plain arrays, for the
// engine's inner read loops (`RecordEngine::GatherMappedRun`, the mapped
// path of `RecordEngine::ReadLocRuns`). It answers where a table entry, a
// checksum entry or a record's stored bytes lie in the mapped files, or
// null when they lie past what is mapped, and whether stored bytes match
// their checksum entry. It never reports: a loop that gets null or false
// hands the record to the general path (`GatherMapped`), which extends the
// view, reads an overlay or words the error. A `FlatView` is valid while
// the view it was made from is.

#ifndef LOADERX_SRC_FLAT_VIEW_H_
#define LOADERX_SRC_FLAT_VIEW_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/strings/string_view.h"
#include "src/checksum.h"
#include "src/integrity_format.h"
#include "src/store_format.h"
#include "src/store_mappings.h"

namespace loaderx {

class FlatView {
 public:
  explicit FlatView(const MappedView& view)
      : chunks_(view.chunks().data()),
        chunk_count_(view.chunks().size()),
        segments_(view.segments().data()),
        segment_count_(view.segments().size()),
        first_segment_(segment_count_ > 0 ? segments_[0].data() : nullptr),
        first_segment_entries_(
            segment_count_ > 0
                ? std::min<uint64_t>(
                      segments_[0].size() / store_format::kRecordLocBytes,
                      store_format::kEntriesPerSegment)
                : 0),
        checksums_(view.checksums().data()),
        checksums_size_(view.checksums().size()) {}

  // Record `index`'s table entry (`kRecordLocBytes` bytes). One compare for
  // the first segment's entries (every record of a store of fewer than
  // 2^28), which is all a gather's inner loop pays per record.
  const char* Entry(uint64_t index) const {
    if (ABSL_PREDICT_TRUE(index < first_segment_entries_)) {
      return first_segment_ + index * store_format::kRecordLocBytes;
    }
    const uint64_t segment = store_format::SegmentOf(index);
    const uint64_t at = store_format::OffsetInSegment(index);
    if (segment >= segment_count_ ||
        at + store_format::kRecordLocBytes > segments_[segment].size()) {
      return nullptr;
    }
    return segments_[segment].data() + at;
  }
  // Record `index`'s checksum entry (`integrity_format::kEntryBytes`).
  const char* ChecksumEntry(uint64_t index) const {
    const uint64_t entry_end =
        integrity_format::EntryOffset(index) + integrity_format::kEntryBytes;
    return entry_end <= checksums_size_
               ? checksums_ + entry_end - integrity_format::kEntryBytes
               : nullptr;
  }
  // Fetches record `index`'s checksum entry into cache, if mapped: 24
  // bytes, so maybe two cache lines. Never faults.
  //
  // Always inlined: GCC's pure-const analysis counts a prefetch as no
  // effect at all, so an out-of-line function that only prefetches is
  // deemed `const` and every call to it is deleted (GCC 12 did exactly
  // that to this one, and the gather then waited on every checksum entry).
  ABSL_ATTRIBUTE_ALWAYS_INLINE void PrefetchChecksumEntry(
      uint64_t index) const {
    if (const char* entry = ChecksumEntry(index)) {
      __builtin_prefetch(entry);
      __builtin_prefetch(entry + integrity_format::kEntryBytes - 1);
    }
  }
  // The `loc.phys_length` stored bytes at `loc`.
  const char* Stored(const store_format::RecordLoc& loc) const {
    if (loc.chunk_id >= chunk_count_ ||
        uint64_t{loc.offset} + loc.phys_length > chunks_[loc.chunk_id].size()) {
      return nullptr;
    }
    return chunks_[loc.chunk_id].data() + loc.offset;
  }

  // Where `loc`'s stored bytes would lie, for a prefetch: the chunk
  // number alone is checked (the mapped chunks are indexed by it), not
  // the bytes' end, so a damaged entry may point past its chunk's
  // mapping. Only for a prefetch, which never faults.
  const char* StoredToPrefetch(const store_format::RecordLoc& loc) const {
    return loc.chunk_id < chunk_count_
               ? chunks_[loc.chunk_id].data() + loc.offset
               : nullptr;
  }

  // Whether record `index`'s checksum entry is mapped and binds its mapped
  // table entry `entry`, or is empty (a record appended by a program that
  // keeps no checksums.lx, unverified, as `RecordEngine::Classify` has it).
  // If so, `*expected` is the checksum its stored bytes must have, or
  // nullopt for an empty entry.
  bool BoundChecksum(uint64_t index, const char* entry,
                     std::optional<uint64_t>* expected) const {
    const char* const checksum_entry = ChecksumEntry(index);
    if (ABSL_PREDICT_FALSE(checksum_entry == nullptr)) return false;
    const integrity_format::ChecksumEntry decoded =
        integrity_format::DecodeEntry(checksum_entry);
    if (decoded.empty()) {
      *expected = std::nullopt;
      return true;
    }
    *expected = decoded.checksum;
    static_assert(store_format::kRecordLocBytes == 16);
    return Checksum16(entry) == decoded.binding;
  }

  // Whether record `index`, whose mapped table entry is `entry` and whose
  // stored bytes are `stored`, matches its checksum entry
  // (`BoundChecksum`, then the bytes' hash).
  bool MatchesChecksum(uint64_t index, const char* entry,
                       absl::string_view stored) const {
    std::optional<uint64_t> expected;
    return BoundChecksum(index, entry, &expected) &&
           (!expected.has_value() || Checksum(stored) == *expected);
  }

 private:
  const absl::string_view* chunks_;
  size_t chunk_count_;
  const absl::string_view* segments_;
  size_t segment_count_;
  const char* first_segment_;
  uint64_t first_segment_entries_;
  const char* checksums_;
  uint64_t checksums_size_;
};

}  // namespace loaderx

#endif  // LOADERX_SRC_FLAT_VIEW_H_
