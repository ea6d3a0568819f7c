#include "src/record_table.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "loaderx/spi/status_macros.h"

namespace loaderx {
namespace {

using store_format::kChunkCapacity;
using store_format::kRecordLocBytes;
using store_format::RecordLoc;

std::string Describe(uint64_t index, const RecordLoc& loc) {
  return absl::StrCat("record-table entry ", index, " (chunk ", loc.chunk_id,
                      ", offset ", loc.offset, ", ", loc.phys_length,
                      " bytes stored, ", loc.logic_length, " decoded)");
}

}  // namespace

absl::StatusOr<TableBounds> MeasureChunks(
    std::string directory, const store_format::PhysicalHeader& header,
    const std::function<absl::StatusOr<const VfsFile*>(uint64_t)>& chunks,
    const Codec& codec) {
  TableBounds bounds;
  bounds.directory = std::move(directory);
  bounds.tail_chunk = header.tail_chunk;
  bounds.tail_offset = header.tail_offset;
  bounds.codec = &codec;
  for (uint64_t id = 0; id <= header.tail_chunk; ++id) {
    LOADERX_ASSIGN_OR_RETURN(const VfsFile* chunk, chunks(id));
    LOADERX_ASSIGN_OR_RETURN(const uint64_t size, chunk->Size());
    if (size > kChunkCapacity) {
      return absl::DataLossError(
          absl::StrCat(chunk->path(), " has ", size,
                       " bytes, more than a chunk's 2^32 (damaged store)"));
    }
    bounds.chunk_sizes.push_back(size);
  }
  if (bounds.chunk_sizes.back() < header.tail_offset) {
    return absl::DataLossError(absl::StrCat(
        bounds.directory, "/", store_format::ChunkFileName(header.tail_chunk),
        " has ", bounds.chunk_sizes.back(),
        " bytes but the header's frontier is at ", header.tail_offset,
        " (damaged store)"));
  }
  return bounds;
}

absl::Status CheckRecordLoc(uint64_t index, const RecordLoc& loc,
                            const TableBounds& bounds) {
  auto damaged = [&](absl::string_view why) {
    return absl::DataLossError(absl::StrCat(bounds.directory, ": ",
                                            Describe(index, loc), " ", why,
                                            " (damaged record table)"));
  };
  // The format's own rules first (the reference's checks).
  store_format::PhysicalHeader frontier;
  frontier.tail_chunk = bounds.tail_chunk;
  frontier.tail_offset = bounds.tail_offset;
  if (absl::Status valid = store_format::CheckRecordLoc(
          loc, index, frontier, bounds.chunk_sizes.size());
      !valid.ok()) {
    return absl::Status(valid.code(),
                        absl::StrCat(bounds.directory, ": ", valid.message()));
  }
  const uint64_t end = uint64_t{loc.offset} + loc.phys_length;
  if (end > bounds.chunk_sizes[loc.chunk_id]) {
    return damaged(absl::StrCat("runs past the end of its chunk file (",
                                bounds.chunk_sizes[loc.chunk_id], " bytes)"));
  }
  const Codec& codec = *bounds.codec;
  if (codec.stores_verbatim()
          ? loc.logic_length != loc.phys_length
          : loc.logic_length > codec.MaxDecodedSize(loc.phys_length)) {
    return damaged(absl::StrCat("decodes to more than the ", codec.name(),
                                " codec can make of its stored bytes"));
  }
  return absl::OkStatus();
}

absl::Status ScanSegment(
    const VfsFile& segment, uint64_t first, uint64_t count,
    const std::function<absl::Status(uint64_t, const RecordLoc&)>& visit) {
  if (count == 0) return absl::OkStatus();
  const uint64_t offset = first * kRecordLocBytes;
  const uint64_t bytes = count * kRecordLocBytes;
  auto too_short = [&](const absl::Status& status) {
    return absl::DataLossError(absl::StrCat(
        segment.path(), " is too short for the ", first + count,
        " records the header counts (damaged store): ", status.message()));
  };
  absl::StatusOr<std::unique_ptr<MappedRegion>> mapped =
      segment.MapReadOnly(offset, bytes);
  if (mapped.ok()) {
    const char* data = (*mapped)->data().data();
    for (uint64_t i = 0; i < count; ++i) {
      LOADERX_RETURN_IF_ERROR(
          visit(first + i,
                store_format::DecodeRecordLoc(data + i * kRecordLocBytes)));
    }
    return absl::OkStatus();
  }
  if (absl::IsOutOfRange(mapped.status())) return too_short(mapped.status());
  // No mapping: read in blocks.
  constexpr uint64_t kBlockEntries = (1 << 20) / kRecordLocBytes;
  std::string block;
  for (uint64_t done = 0; done < count;) {
    const uint64_t n = std::min(kBlockEntries, count - done);
    block.resize(n * kRecordLocBytes);
    absl::Status read =
        segment.ReadAt(offset + done * kRecordLocBytes, absl::MakeSpan(block));
    if (absl::IsOutOfRange(read)) return too_short(read);
    LOADERX_RETURN_IF_ERROR(read);
    for (uint64_t i = 0; i < n; ++i) {
      LOADERX_RETURN_IF_ERROR(
          visit(first + done + i,
                store_format::DecodeRecordLoc(&block[i * kRecordLocBytes])));
    }
    done += n;
  }
  return absl::OkStatus();
}

}  // namespace loaderx
