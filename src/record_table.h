// Reading and checking the record table: the checks every entry must pass
// against the store's header and files before anything trusts it (the
// reference's open-time checks, plus the codec's bound on what a frame of
// its size can decode to), and a scan of a segment file at memory speed.

#ifndef LOADERX_SRC_RECORD_TABLE_H_
#define LOADERX_SRC_RECORD_TABLE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "loaderx/codec.h"
#include "loaderx/vfs.h"
#include "src/store_format.h"

namespace loaderx {

// What a valid entry must fit in.
struct TableBounds {
  std::string directory;  // For messages.
  uint32_t tail_chunk = 0;
  uint32_t tail_offset = 0;
  std::vector<uint64_t> chunk_sizes;  // Of chunks 0..=tail_chunk.
  const Codec* codec = nullptr;
};

// The sizes of `chunks` (0..=tail_chunk, open), checked: each at most 2^32
// bytes, the tail one at least `tail_offset`. DataLoss naming the file.
absl::StatusOr<TableBounds> MeasureChunks(
    std::string directory, const store_format::PhysicalHeader& header,
    const std::function<absl::StatusOr<const VfsFile*>(uint64_t)>& chunks,
    const Codec& codec);

// OK if entry `index` is a record the store can hold: the format's rules
// (`store_format::CheckRecordLoc`: nonempty, at most 2^31 bytes decoded, in
// an existing chunk's range, below the committed frontier), and also inside
// its chunk's file and no more than its frame can decode to (raw: exactly
// its stored size). DataLoss naming the directory and the record otherwise.
absl::Status CheckRecordLoc(uint64_t index, const store_format::RecordLoc& loc,
                            const TableBounds& bounds);

// Calls `visit(i, loc)` for entries `first` .. `first + count - 1` of one
// segment file (positions within the segment), reading them through one
// read-only mapping if the VFS maps, else in 1 MiB blocks: never a system
// call per entry. Stops at the first error `visit` returns; DataLoss if the
// file is too short.
absl::Status ScanSegment(
    const VfsFile& segment, uint64_t first, uint64_t count,
    const std::function<absl::Status(uint64_t, const store_format::RecordLoc&)>&
        visit);

}  // namespace loaderx

#endif  // LOADERX_SRC_RECORD_TABLE_H_
