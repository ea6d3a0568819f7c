#include "src/resident_index.h"

#include <algorithm>
#include <cstdint>

#include "src/checksum.h"
#include "src/integrity_format.h"
#include "src/store_format.h"

namespace loaderx {

void MakeResidentEntries(absl::string_view segment, absl::string_view checksums,
                         uint64_t first, uint64_t end, uint64_t width,
                         ResidentEntry* out) {
  static_assert(store_format::kRecordLocBytes == 16);
  for (uint64_t index = first; index < end; ++index) {
    const char* const table_entry =
        segment.data() + store_format::OffsetInSegment(index);
    const store_format::RecordLoc loc =
        store_format::DecodeRecordLoc(table_entry);
    const integrity_format::ChecksumEntry checksum_entry =
        integrity_format::DecodeEntry(checksums.data() +
                                      integrity_format::EntryOffset(index));
    ResidentEntry& entry = out[index - first];
    entry.checksum = checksum_entry.checksum;
    entry.offset = loc.offset;
    entry.chunk_id = loc.phys_length == width && loc.logic_length == width &&
                             !checksum_entry.empty() &&
                             Checksum16(table_entry) == checksum_entry.binding
                         ? loc.chunk_id
                         : kNotResident;
  }
}

uint64_t ResidentCoverable(absl::string_view segment,
                           absl::string_view checksums) {
  const uint64_t in_table =
      std::min<uint64_t>(segment.size() / store_format::kRecordLocBytes,
                         store_format::kEntriesPerSegment);
  const uint64_t in_checksums =
      checksums.size() < integrity_format::kEntriesOffset
          ? 0
          : (checksums.size() - integrity_format::kEntriesOffset) /
                integrity_format::kEntryBytes;
  return std::min(in_table, in_checksums);
}

}  // namespace loaderx
