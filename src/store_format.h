// The physical on-disk format of a record store: the reference design's
// layout, byte for byte. A store is a directory:
//
//   meta.zr      physical header (32 bytes): the store's global state and,
//                while a handle is open, its exclusive lock
//   dict.zr      the zstd dictionary (zstd_dict stores only)
//   {id}.loc     record-table segment id: 2^28 RecordLocs of 16 bytes
//   {id}.chunk   record data; chunks 0..=tail_chunk exist
//
// Physical header (meta.zr), little-endian, every field byte-aligned:
//
//   offset  size  field
//        0     4  magic        "ZREC"
//        4     1  version      4 (exactly; the reference rejects 3)
//        5     1  codec        codec tag (0 raw, 1 zstd, 2 zstd_dict)
//        6     4  tail_chunk   the chunk holding the write frontier
//       10     4  tail_offset  the frontier's offset in that chunk
//       14     8  length       physical record count
//       22    10  reserved     zero (the reference writes zero and does
//                                not read them; this reader insists on zero)
//
// RecordLoc (in {id}.loc at (index mod 2^28) * 16), little-endian:
//
//   offset  size  field
//        0     4  offset        the record's offset in its chunk
//        4     4  phys_length   bytes stored (the codec's frame)
//        8     4  logic_length  bytes the record decodes to
//       12     4  chunk_id      the chunk holding it
//
// Every entry below `length` is live (deletion swaps the tail into the
// hole), so there is no liveness flag; a record never straddles chunks.
// An entry is valid when its chunk exists, phys_length > 0,
// 0 < logic_length <= 2^31 and offset + phys_length <= 2^32; it must also
// lie behind the committed frontier (tail_chunk, tail_offset).
//
// Other files in the directory: store.zr (the typed header, see
// `typed_header.h`), written last at creation. A fresh store is exactly
// meta.zr (length 0), an empty 0.chunk, dict.zr for zstd_dict, and
// store.zr; the first .loc appears with the first append.

#ifndef LOADERX_SRC_STORE_FORMAT_H_
#define LOADERX_SRC_STORE_FORMAT_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "loaderx/spi/limits.h"
#include "loaderx/spi/little_endian.h"

namespace loaderx::store_format {

inline constexpr char kMagic[4] = {'Z', 'R', 'E', 'C'};
inline constexpr uint8_t kVersion = 4;
inline constexpr size_t kHeaderBytes = 32;
inline constexpr size_t kRecordLocBytes = 16;

// Record-table segments hold 2^28 entries (4 GiB of address range each).
inline constexpr int kSegmentShift = 28;
inline constexpr uint64_t kEntriesPerSegment = uint64_t{1} << kSegmentShift;

// A chunk's offsets are 32-bit; a record is at most 2^31 bytes.
using ::loaderx::kChunkCapacity;
using ::loaderx::kMaxRecordBytes;

inline constexpr absl::string_view kHeaderFile = "meta.zr";
inline constexpr absl::string_view kDictionaryFile = "dict.zr";
inline constexpr absl::string_view kTypedHeaderFile = "store.zr";
// Where a creation writes store.zr before renaming it into place, so that
// a store.zr is whole or absent at every instant (`TypedStore::Create`).
inline constexpr absl::string_view kTypedHeaderStagingFile = "store.zr.new";
// How every store.zr begins and its smallest size (`src/typed_header.h`
// has the layout). One that is shorter or begins otherwise is what a
// creation that wrote it in place (1.7.7, or builds before the staging
// file) leaves when it is killed before the write (`src/creation_site.h`).
inline constexpr char kTypedHeaderMagic[4] = {'L', 'X', 'S', 'T'};
inline constexpr uint64_t kTypedHeaderMinBytes = 32;

struct PhysicalHeader {
  uint8_t codec = 0;
  uint32_t tail_chunk = 0;
  uint32_t tail_offset = 0;
  uint64_t length = 0;

  friend bool operator==(const PhysicalHeader&,
                         const PhysicalHeader&) = default;
};

struct RecordLoc {
  uint32_t offset = 0;
  uint32_t phys_length = 0;
  uint32_t logic_length = 0;
  uint32_t chunk_id = 0;

  friend bool operator==(const RecordLoc&, const RecordLoc&) = default;
};

std::array<char, kHeaderBytes> EncodeHeader(const PhysicalHeader& header);

// DataLoss naming `path` if `bytes` is not a version-4 header: wrong size,
// wrong magic (not a loaderx store), unknown version, nonzero reserved bytes.
absl::StatusOr<PhysicalHeader> DecodeHeader(absl::string_view bytes,
                                            absl::string_view path);

void EncodeRecordLoc(const RecordLoc& loc, char* out);
// Inline: a gather decodes one per record.
inline RecordLoc DecodeRecordLoc(const char* bytes) {
  return RecordLoc{LoadLittle<uint32_t>(bytes), LoadLittle<uint32_t>(bytes + 4),
                   LoadLittle<uint32_t>(bytes + 8),
                   LoadLittle<uint32_t>(bytes + 12)};
}

// DataLoss naming `index` unless `loc` is a valid entry of a store whose
// header is `header` and which has `chunk_count` chunks: the checks above.
absl::Status CheckRecordLoc(const RecordLoc& loc, uint64_t index,
                            const PhysicalHeader& header, uint64_t chunk_count);

// DataLoss: the table segment at `segment_path` is too short to hold record
// `index`'s entry.
absl::Status MissingEntryError(absl::string_view segment_path, uint64_t index);

inline uint64_t SegmentOf(uint64_t index) { return index >> kSegmentShift; }
inline uint64_t OffsetInSegment(uint64_t index) {
  return (index & (kEntriesPerSegment - 1)) * kRecordLocBytes;
}

std::string SegmentFileName(uint64_t segment);  // "{segment}.loc"
std::string ChunkFileName(uint64_t chunk);      // "{chunk}.chunk"

}  // namespace loaderx::store_format

#endif  // LOADERX_SRC_STORE_FORMAT_H_
