// `RecordEngine`: creation, appends and stats. Opening is in
// record_engine_open.cc, reads in record_engine_read.cc, the seal, syncs and
// durable state in record_engine_state.cc, maintenance in
// record_engine_delete.cc and record_engine_compact.cc.

#include "src/record_engine.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/codec_registry.h"
#include "loaderx/error_code.h"
#include "loaderx/spi/path.h"
#include "loaderx/spi/status_macros.h"
#include "src/checksum.h"
#include "src/engine_sharding.h"

namespace loaderx {
namespace {

using integrity_format::ChecksumEntry;
using integrity_format::MetaBytesOf;
using store_format::kChunkCapacity;
using store_format::kMaxRecordBytes;
using store_format::kRecordLocBytes;
using store_format::OffsetInSegment;
using store_format::PhysicalHeader;
using store_format::RecordLoc;
using store_format::SegmentOf;

absl::Status CheckRecordSize(uint64_t size, uint64_t index) {
  if (size == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "record ", index, " of the batch is empty; records must be nonempty"));
  }
  if (size > kMaxRecordBytes) {
    return RecordTooLargeError(
        absl::StrCat("record ", index, " of the batch has ", size,
                     " bytes; a record is at most 2^31"));
  }
  return absl::OkStatus();
}

}  // namespace

uint64_t FrontierOf(const PhysicalHeader& header) {
  return uint64_t{header.tail_chunk} << 32 | header.tail_offset;
}

RecordEngine::RecordEngine(std::unique_ptr<StoreFiles> files,
                           std::unique_ptr<Codec> codec,
                           std::unique_ptr<IntegrityFile> integrity,
                           const RecordEngineOptions& options,
                           const PhysicalHeader& header)
    : files_(std::move(files)),
      codec_(std::move(codec)),
      decompression_contexts_(*codec_),
      integrity_(std::move(integrity)),
      integrity_published_(integrity_ != nullptr),
      raw_(codec_->stores_verbatim()),
      decode_before_check_(!raw_ && codec_->decodes_untrusted_input()),
      read_only_(options.read_only),
      verify_(options.verify_checksums),
      resident_index_(options.resident_index),
      flush_bytes_(std::max<uint64_t>(options.flush_bytes, 1)),
      contiguous_write_bytes_(
          std::max<uint64_t>(options.contiguous_write_bytes, 1)),
      chunk_capacity_(
          std::clamp<uint64_t>(options.chunk_capacity, 1, kChunkCapacity - 1)),
      batch_bytes_(std::max<uint64_t>(options.compaction_batch_bytes, 1)),
      batch_records_(std::max<uint64_t>(options.compaction_batch_records, 1)),
      pool_(options.thread_pool != nullptr ? options.thread_pool
                                           : DefaultThreadPool()),
      header_(header),
      length_(header.length),
      frontier_(FrontierOf(header)) {}

RecordEngine::~RecordEngine() = default;

absl::Status RecordEngine::RequireWritable(absl::string_view operation) const {
  if (!read_only_) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      operation, ": the store at ", files_->directory(), " is open read-only"));
}

absl::StatusOr<uint64_t> RecordEngine::AppendFixed(absl::string_view data,
                                                   uint64_t count,
                                                   uint64_t width) {
  LOADERX_RETURN_IF_ERROR(RequireWritable("append"));
  if (count == 0) {
    return absl::InvalidArgumentError("append: a batch needs records");
  }
  LOADERX_RETURN_IF_ERROR(CheckRecordSize(width, 0));
  if (data.size() / width != count || data.size() % width != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("append: ", count, " records of ", width, " bytes need ",
                     count * width, " bytes, got ", data.size()));
  }
  if (raw_) return CommitFixedRaw(data, count, width);
  std::vector<absl::string_view> records(count);
  for (uint64_t i = 0; i < count; ++i) {
    records[i] = data.substr(i * width, width);
  }
  return AppendVariable(records);
}

absl::StatusOr<uint64_t> RecordEngine::AppendVariable(
    absl::Span<const absl::string_view> records) {
  LOADERX_RETURN_IF_ERROR(RequireWritable("append"));
  if (records.empty()) {
    return absl::InvalidArgumentError("append: a batch needs records");
  }
  for (size_t i = 0; i < records.size(); ++i) {
    LOADERX_RETURN_IF_ERROR(CheckRecordSize(records[i].size(), i));
  }
  LOADERX_ASSIGN_OR_RETURN(std::vector<Frame> frames, Encode(records));
  return Commit(frames);
}

absl::StatusOr<std::vector<RecordEngine::Frame>> RecordEngine::Encode(
    absl::Span<const absl::string_view> records) {
  std::vector<Frame> frames(records.size());
  // Each shard encodes (or, raw, just hashes) a contiguous block, with one
  // reused compression context.
  // Hashing a raw record is cheap (a gather's work model); compressing one
  // is not, so compressed batches shard down to a few records per thread.
  uint64_t bytes = 0;
  for (absl::string_view record : records) bytes += record.size();
  const int shards =
      raw_ ? GatherShards(records.size(), bytes, false, pool_->concurrency())
           : ShardsFor(records.size(), pool_->concurrency(), 4);
  LOADERX_RETURN_IF_ERROR(pool_->TryParallelFor(shards, [&](int shard) {
    const size_t begin = records.size() * shard / shards;
    const size_t end = records.size() * (shard + 1) / shards;
    std::unique_ptr<CompressionContext> context;
    if (!raw_) {
      LOADERX_ASSIGN_OR_RETURN(context, codec_->NewCompressionContext());
    }
    for (size_t i = begin; i < end; ++i) {
      Frame& frame = frames[i];
      frame.original_size = records[i].size();
      if (raw_) {
        frame.borrowed = records[i];
      } else {
        frame.owned.resize(codec_->CompressBound(records[i].size()));
        LOADERX_ASSIGN_OR_RETURN(
            const size_t size,
            context->Compress(records[i], absl::MakeSpan(frame.owned)));
        frame.owned.resize(size);
        frame.owned.shrink_to_fit();
      }
      frame.checksum = Checksum(frame.stored());
    }
    return absl::OkStatus();
  }));
  return frames;
}

absl::Status RecordEngine::RollOverIfFull(PhysicalHeader& next,
                                          uint64_t size) const {
  if (next.tail_offset == 0 || next.tail_offset + size <= chunk_capacity_) {
    return absl::OkStatus();
  }
  if (next.tail_chunk == std::numeric_limits<uint32_t>::max()) {
    return WithErrorCode(absl::ResourceExhaustedError(
                             "append: the store has used all 2^32 - 1 chunks"),
                         ErrorCode::kStoreFull);
  }
  ++next.tail_chunk;
  next.tail_offset = 0;
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> RecordEngine::Commit(
    const std::vector<Frame>& frames) {
  std::lock_guard lock(writer_mu_);
  LOADERX_RETURN_IF_ERROR(AdoptLocked());
  // Place every frame at the frontier, rolling over to a fresh chunk when
  // one would not fit: a record never straddles chunks.
  PhysicalHeader next = header_;
  std::vector<RecordLoc> locs(frames.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    const uint64_t size = frames[i].stored().size();
    LOADERX_RETURN_IF_ERROR(RollOverIfFull(next, size));
    locs[i] = RecordLoc{next.tail_offset, static_cast<uint32_t>(size),
                        static_cast<uint32_t>(frames[i].original_size),
                        next.tail_chunk};
    next.tail_offset += size;
  }
  next.length += frames.size();

  // Payloads, then their checksums, then the table, then the header: a
  // committed record always has its bytes and its checksum behind it.
  LOADERX_RETURN_IF_ERROR(WritePayloads(frames, locs));
  if (integrity_ != nullptr) {
    std::vector<ChecksumEntry> entries(frames.size());
    for (size_t i = 0; i < frames.size(); ++i) {
      entries[i] = ChecksumEntry{frames[i].checksum,
                                 integrity_format::BindingOf(locs[i]), epoch_};
    }
    LOADERX_RETURN_IF_ERROR(WriteChecksums(header_.length, entries));
  }
  LOADERX_RETURN_IF_ERROR(WriteLocs(header_.length, locs));
  LOADERX_RETURN_IF_ERROR(WriteHeader(next));
  const uint64_t first = header_.length;
  header_ = next;
  frontier_.store(FrontierOf(next), std::memory_order_release);
  length_.store(next.length, std::memory_order_release);
  return first;
}

absl::Status RecordEngine::WritePayloads(const std::vector<Frame>& frames,
                                         const std::vector<RecordLoc>& locs) {
  // Contiguous frames in one chunk go out in vectored writes of at most
  // `flush_bytes_`, whatever the caller's batch and record sizes.
  size_t begin = 0;
  while (begin < frames.size()) {
    const uint32_t chunk_id = locs[begin].chunk_id;
    if (chunk_id >= files_->chunk_count()) {
      LOADERX_RETURN_IF_ERROR(files_->CreateChunk(chunk_id));
    }
    LOADERX_ASSIGN_OR_RETURN(VfsFile * chunk, files_->Chunk(chunk_id));
    std::vector<absl::string_view> pieces;
    uint64_t bytes = 0;
    size_t end = begin;
    while (end < frames.size() && locs[end].chunk_id == chunk_id &&
           (pieces.empty() || bytes + locs[end].phys_length <= flush_bytes_)) {
      const absl::string_view stored = frames[end].stored();
      // Records the caller laid out back to back (a fixed-width batch)
      // go out as one piece: one iovec, not one per record.
      if (!pieces.empty() &&
          pieces.back().data() + pieces.back().size() == stored.data()) {
        pieces.back() = absl::string_view(pieces.back().data(),
                                          pieces.back().size() + stored.size());
      } else {
        pieces.push_back(stored);
      }
      bytes += locs[end].phys_length;
      ++end;
    }
    LOADERX_RETURN_IF_ERROR(chunk->WriteVectorAt(locs[begin].offset, pieces));
    files_->MarkChunkWritten(chunk_id);
    begin = end;
  }
  return absl::OkStatus();
}

absl::Status RecordEngine::WriteLocs(uint64_t first,
                                     absl::Span<const RecordLoc> locs) {
  std::string bytes(locs.size() * kRecordLocBytes, '\0');
  for (size_t i = 0; i < locs.size(); ++i) {
    store_format::EncodeRecordLoc(locs[i], &bytes[i * kRecordLocBytes]);
  }
  return WriteLocBytes(first, bytes);
}

absl::Status RecordEngine::WriteLocBytes(uint64_t first,
                                         absl::string_view bytes) {
  // One write per segment the range touches.
  uint64_t index = first;
  while (!bytes.empty()) {
    const uint64_t segment_id = SegmentOf(index);
    const uint64_t room = store_format::kEntriesPerSegment -
                          OffsetInSegment(index) / kRecordLocBytes;
    const uint64_t count =
        std::min<uint64_t>(room, bytes.size() / kRecordLocBytes);
    if (segment_id >= files_->segment_count()) {
      LOADERX_RETURN_IF_ERROR(files_->CreateSegment(segment_id));
    }
    LOADERX_ASSIGN_OR_RETURN(VfsFile * segment, files_->Segment(segment_id));
    LOADERX_RETURN_IF_ERROR(segment->WriteAt(
        OffsetInSegment(index), bytes.substr(0, count * kRecordLocBytes)));
    files_->MarkSegmentWritten(segment_id);
    index += count;
    bytes.remove_prefix(count * kRecordLocBytes);
  }
  return absl::OkStatus();
}

absl::Status RecordEngine::WriteChecksums(
    uint64_t first, absl::Span<const ChecksumEntry> entries) {
  if (integrity_ == nullptr) return absl::OkStatus();
  return integrity_->WriteEntries(first, entries);
}

absl::StatusOr<StoreStats> RecordEngine::Stats() const {
  std::lock_guard lock(writer_mu_);
  StoreStats stats;
  stats.records = header_.length;
  LOADERX_RETURN_IF_ERROR(
      ForEachLoc(stats.records, [&](uint64_t, const RecordLoc& loc) {
        stats.live_bytes += loc.phys_length;
        return absl::OkStatus();
      }));
  stats.chunk_bytes =
      uint64_t{header_.tail_chunk} * kChunkCapacity + header_.tail_offset;
  stats.reclaimable = stats.chunk_bytes > stats.live_bytes
                          ? stats.chunk_bytes - stats.live_bytes
                          : 0;
  return stats;
}

}  // namespace loaderx
