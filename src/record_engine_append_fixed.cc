// `RecordEngine::CommitFixedRaw`: the append of a batch of equal-width
// records into a raw store, the common case of a training set written in
// large batches. The caller's bytes go to the chunk as they lie (one write
// per `contiguous_write_bytes` of each chunk the batch touches: no
// per-record iovec, frame or allocation), and while that write runs, a
// second thread computes the batch's table entries and checksum entries
// straight into reused encoding buffers (no staging copy of the records). The
// I/O stays in the one order every append keeps — payload, checksum entries,
// `.loc` entries, seal, meta.zr, seal — since only the payload write overlaps
// anything, and it overlaps computation, not other I/O.

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loaderx/spi/status_macros.h"
#include "src/checksum.h"
#include "src/record_engine.h"

namespace loaderx {
namespace {

using integrity_format::kEntryBytes;
using store_format::kRecordLocBytes;
using store_format::PhysicalHeader;
using store_format::RecordLoc;

// Batches below this many payload bytes are encoded on the calling thread
// after the write: handing the encoding to a worker (a futex wake and tens
// of microseconds of wake-up latency) would cost more than it overlaps.
constexpr uint64_t kOverlapBytes = 64 << 10;

// Grows `buffer` to at least `size` bytes (never shrinks: the next batch
// reuses it without allocating or zeroing) and returns its start.
char* Reserve(std::vector<char>& buffer, uint64_t size) {
  if (buffer.size() < size) buffer.resize(size);
  return buffer.data();
}

}  // namespace

absl::StatusOr<uint64_t> RecordEngine::CommitFixedRaw(absl::string_view data,
                                                      uint64_t count,
                                                      uint64_t width) {
  std::lock_guard lock(writer_mu_);
  LOADERX_RETURN_IF_ERROR(AdoptLocked());
  // Placement, as `Commit` does it record by record: at the frontier,
  // rolling over to a fresh chunk when a record would not fit (a record
  // never straddles chunks). Equal widths make it a few runs.
  struct Run {
    uint32_t chunk_id;
    uint64_t offset;
    uint64_t first;  // Of the batch.
    uint64_t count;
  };
  std::vector<Run> runs;
  PhysicalHeader next = header_;
  for (uint64_t placed = 0; placed < count;) {
    LOADERX_RETURN_IF_ERROR(RollOverIfFull(next, width));
    // The first record always fits at offset 0, and the others while
    // they end within the capacity.
    const uint64_t room = next.tail_offset + width <= chunk_capacity_
                              ? (chunk_capacity_ - next.tail_offset) / width
                              : 1;
    const uint64_t n = std::min(room, count - placed);
    runs.push_back(Run{next.tail_chunk, next.tail_offset, placed, n});
    next.tail_offset += n * width;
    placed += n;
  }
  next.length += count;
  for (const Run& run : runs) {
    if (run.chunk_id >= files_->chunk_count()) {
      LOADERX_RETURN_IF_ERROR(files_->CreateChunk(run.chunk_id));
    }
  }

  char* const locs = Reserve(loc_bytes_, count * kRecordLocBytes);
  char* const entries = integrity_ != nullptr
                            ? Reserve(entry_bytes_, count * kEntryBytes)
                            : nullptr;
  auto write_payload = [&]() -> absl::Status {
    const uint64_t per_write =
        std::max<uint64_t>(1, contiguous_write_bytes_ / width);
    for (const Run& run : runs) {
      LOADERX_ASSIGN_OR_RETURN(VfsFile * chunk, files_->Chunk(run.chunk_id));
      for (uint64_t done = 0; done < run.count;) {
        const uint64_t n = std::min(per_write, run.count - done);
        const absl::string_view piece =
            data.substr((run.first + done) * width, n * width);
        LOADERX_RETURN_IF_ERROR(chunk->WriteVectorAt(
            run.offset + done * width, absl::MakeConstSpan(&piece, 1)));
        done += n;
      }
      files_->MarkChunkWritten(run.chunk_id);
    }
    return absl::OkStatus();
  };
  auto encode = [&]() -> absl::Status {
    for (const Run& run : runs) {
      for (uint64_t i = 0; i < run.count; ++i) {
        const uint64_t at = run.first + i;
        char* const loc_bytes = locs + at * kRecordLocBytes;
        store_format::EncodeRecordLoc(
            RecordLoc{static_cast<uint32_t>(run.offset + i * width),
                      static_cast<uint32_t>(width),
                      static_cast<uint32_t>(width), run.chunk_id},
            loc_bytes);
        if (entries == nullptr) continue;
        integrity_format::EncodeEntry({Checksum(data.substr(at * width, width)),
                                       Checksum16(loc_bytes), epoch_},
                                      entries + at * kEntryBytes);
      }
    }
    return absl::OkStatus();
  };
  if (pool_->concurrency() > 1 && data.size() >= kOverlapBytes) {
    LOADERX_RETURN_IF_ERROR(pool_->TryParallelFor(
        2, [&](int task) { return task == 0 ? write_payload() : encode(); }));
  } else {
    LOADERX_RETURN_IF_ERROR(write_payload());
    LOADERX_RETURN_IF_ERROR(encode());
  }

  // Checksums, then the table, then the header: a committed record always
  // has its bytes and its checksum behind it.
  const uint64_t first = header_.length;
  if (entries != nullptr) {
    LOADERX_RETURN_IF_ERROR(integrity_->WriteEncodedEntries(
        first, absl::string_view(entries, count * kEntryBytes)));
  }
  LOADERX_RETURN_IF_ERROR(
      WriteLocBytes(first, absl::string_view(locs, count * kRecordLocBytes)));
  LOADERX_RETURN_IF_ERROR(WriteHeader(next));
  header_ = next;
  frontier_.store(FrontierOf(next), std::memory_order_release);
  length_.store(next.length, std::memory_order_release);
  return first;
}

}  // namespace loaderx
