// `RecordEngine::Compact`: reclaiming the space deleted records left.

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/spi/status_macros.h"
#include "src/record_engine.h"

namespace loaderx {
namespace {

using store_format::kRecordLocBytes;
using store_format::OffsetInSegment;
using store_format::PhysicalHeader;
using store_format::RecordLoc;
using store_format::SegmentOf;

// A live record and where it is.
struct Placed {
  uint64_t index;
  RecordLoc loc;
};

// Physical order: by chunk, then offset.
bool Before(const RecordLoc& a, const RecordLoc& b) {
  return a.chunk_id != b.chunk_id ? a.chunk_id < b.chunk_id
                                  : a.offset < b.offset;
}

}  // namespace

absl::Status RecordEngine::Compact() {
  std::lock_guard lock(writer_mu_);
  const uint64_t length = header_.length;
  std::vector<Placed> records;
  records.reserve(length);
  LOADERX_RETURN_IF_ERROR(
      ForEachLoc(length, [&](uint64_t index, const RecordLoc& loc) {
        records.push_back({index, loc});
      }));
  std::sort(
      records.begin(), records.end(),
      [](const Placed& a, const Placed& b) { return Before(a.loc, b.loc); });

  // Repack in physical order from the start of chunk 0. A record's new
  // place is never after its old one: were the packed place later (a store
  // written with a larger chunk capacity), the record stays where it is and
  // packing continues behind it.
  RecordLoc frontier{};  // offset/chunk_id of the next free byte.
  std::string buffer;
  for (Placed& record : records) {
    RecordLoc target = record.loc;
    target.chunk_id = frontier.chunk_id;
    target.offset = frontier.offset;
    if (target.offset > 0 &&
        uint64_t{target.offset} + record.loc.phys_length > chunk_capacity_) {
      ++target.chunk_id;
      target.offset = 0;
    }
    if (Before(record.loc, target)) target = record.loc;
    if (!(target == record.loc)) {
      LOADERX_ASSIGN_OR_RETURN(VfsFile * from,
                               files_->Chunk(record.loc.chunk_id));
      LOADERX_ASSIGN_OR_RETURN(VfsFile * to, files_->Chunk(target.chunk_id));
      buffer.resize(record.loc.phys_length);
      LOADERX_RETURN_IF_ERROR(
          from->ReadAt(record.loc.offset, absl::MakeSpan(buffer)));
      LOADERX_RETURN_IF_ERROR(to->WriteAt(target.offset, buffer));
      files_->MarkChunkWritten(target.chunk_id);
      // The entry follows its record at once: the store is consistent
      // after every step.
      LOADERX_RETURN_IF_ERROR(WriteLocs(record.index, {target}));
      record.loc = target;
    }
    frontier.chunk_id = record.loc.chunk_id;
    frontier.offset = record.loc.offset + record.loc.phys_length;
  }

  // Publish the new frontier, then drop what lies past it.
  PhysicalHeader next = header_;
  next.tail_chunk = frontier.chunk_id;
  next.tail_offset = frontier.offset;
  LOADERX_RETURN_IF_ERROR(WriteHeader(next));
  header_ = next;
  LOADERX_RETURN_IF_ERROR(
      files_->RemoveChunksFrom(uint64_t{next.tail_chunk} + 1));
  LOADERX_ASSIGN_OR_RETURN(VfsFile * tail, files_->Chunk(next.tail_chunk));
  LOADERX_RETURN_IF_ERROR(tail->Truncate(next.tail_offset));
  files_->MarkChunkWritten(next.tail_chunk);

  const uint64_t segments = length == 0 ? 0 : SegmentOf(length - 1) + 1;
  LOADERX_RETURN_IF_ERROR(files_->RemoveSegmentsFrom(segments));
  if (segments > 0) {
    LOADERX_ASSIGN_OR_RETURN(VfsFile * last, files_->Segment(segments - 1));
    LOADERX_RETURN_IF_ERROR(
        last->Truncate(OffsetInSegment(length - 1) + kRecordLocBytes));
    files_->MarkSegmentWritten(segments - 1);
  }
  return files_->SyncWritten();
}

}  // namespace loaderx
