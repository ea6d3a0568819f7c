#include "src/record_engine.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/codec_registry.h"
#include "loaderx/error_code.h"
#include "loaderx/spi/path.h"
#include "loaderx/spi/status_macros.h"
#include "src/index_check.h"

namespace loaderx {
namespace {

using store_format::kChunkCapacity;
using store_format::kHeaderBytes;
using store_format::kMaxRecordBytes;
using store_format::kRecordLocBytes;
using store_format::OffsetInSegment;
using store_format::PhysicalHeader;
using store_format::RecordLoc;
using store_format::SegmentOf;

// Shards for `count` items: enough to use every thread, none too small to
// be worth handing over.
int ShardsFor(uint64_t count, int concurrency, uint64_t min_per_shard) {
  const uint64_t useful = std::max<uint64_t>(1, count / min_per_shard);
  return static_cast<int>(std::min<uint64_t>(useful, concurrency));
}

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

RecordEngine::RecordEngine(std::unique_ptr<StoreFiles> files,
                           std::unique_ptr<Codec> codec,
                           const RecordEngineOptions& options,
                           const PhysicalHeader& header)
    : files_(std::move(files)),
      codec_(std::move(codec)),
      raw_(codec_->stores_verbatim()),
      flush_bytes_(std::max<uint64_t>(options.flush_bytes, 1)),
      chunk_capacity_(
          std::clamp<uint64_t>(options.chunk_capacity, 1, kChunkCapacity - 1)),
      pool_(options.thread_pool != nullptr ? options.thread_pool
                                           : DefaultThreadPool()),
      header_(header),
      length_(header.length) {}

RecordEngine::~RecordEngine() = default;

absl::StatusOr<uint64_t> RecordEngine::AppendFixed(absl::string_view data,
                                                   uint64_t count,
                                                   uint64_t width) {
  if (count == 0) {
    return absl::InvalidArgumentError("append: a batch needs records");
  }
  LOADERX_RETURN_IF_ERROR(CheckRecordSize(width, 0));
  if (data.size() / width != count || data.size() % width != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("append: ", count, " records of ", width, " bytes need ",
                     count * width, " bytes, got ", data.size()));
  }
  std::vector<absl::string_view> records(count);
  for (uint64_t i = 0; i < count; ++i) {
    records[i] = data.substr(i * width, width);
  }
  return AppendVariable(records);
}

absl::StatusOr<uint64_t> RecordEngine::AppendVariable(
    absl::Span<const absl::string_view> records) {
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
  if (raw_) {
    for (size_t i = 0; i < records.size(); ++i) {
      frames[i].borrowed = records[i];
      frames[i].original_size = records[i].size();
    }
    return frames;
  }
  // Each shard compresses a contiguous block with one reused context.
  const int shards = ShardsFor(records.size(), pool_->concurrency(), 4);
  std::vector<absl::Status> results(shards);
  pool_->ParallelFor(shards, [&](int shard) {
    const size_t begin = records.size() * shard / shards;
    const size_t end = records.size() * (shard + 1) / shards;
    absl::StatusOr<std::unique_ptr<CompressionContext>> context =
        codec_->NewCompressionContext();
    if (!context.ok()) {
      results[shard] = context.status();
      return;
    }
    for (size_t i = begin; i < end; ++i) {
      Frame& frame = frames[i];
      frame.owned.resize(codec_->CompressBound(records[i].size()));
      absl::StatusOr<size_t> size =
          (*context)->Compress(records[i], absl::MakeSpan(frame.owned));
      if (!size.ok()) {
        results[shard] = size.status();
        return;
      }
      frame.owned.resize(*size);
      frame.owned.shrink_to_fit();
      frame.original_size = records[i].size();
    }
  });
  for (const absl::Status& result : results) LOADERX_RETURN_IF_ERROR(result);
  return frames;
}

absl::StatusOr<uint64_t> RecordEngine::Commit(
    const std::vector<Frame>& frames) {
  std::lock_guard lock(writer_mu_);
  // Place every frame at the frontier, rolling over to a fresh chunk when
  // one would not fit: a record never straddles chunks.
  PhysicalHeader next = header_;
  std::vector<RecordLoc> locs(frames.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    const uint64_t size = frames[i].stored().size();
    if (next.tail_offset > 0 && next.tail_offset + size > chunk_capacity_) {
      if (next.tail_chunk == std::numeric_limits<uint32_t>::max()) {
        return WithErrorCode(
            absl::ResourceExhaustedError(
                "append: the store has used all 2^32 - 1 chunks"),
            ErrorCode::kStoreFull);
      }
      ++next.tail_chunk;
      next.tail_offset = 0;
    }
    locs[i] = RecordLoc{next.tail_offset, static_cast<uint32_t>(size),
                        static_cast<uint32_t>(frames[i].original_size),
                        next.tail_chunk};
    next.tail_offset += size;
  }
  next.length += frames.size();

  LOADERX_RETURN_IF_ERROR(WritePayloads(frames, locs));
  LOADERX_RETURN_IF_ERROR(WriteLocs(header_.length, locs));
  LOADERX_RETURN_IF_ERROR(WriteHeader(next));
  const uint64_t first = header_.length;
  header_ = next;
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
      pieces.push_back(frames[end].stored());
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
  // One write per segment the range touches.
  uint64_t index = first;
  size_t done = 0;
  while (done < locs.size()) {
    const uint64_t segment_id = SegmentOf(index);
    const uint64_t room = store_format::kEntriesPerSegment -
                          OffsetInSegment(index) / kRecordLocBytes;
    const size_t count = std::min<uint64_t>(room, locs.size() - done);
    std::string bytes(count * kRecordLocBytes, '\0');
    for (size_t i = 0; i < count; ++i) {
      store_format::EncodeRecordLoc(locs[done + i],
                                    &bytes[i * kRecordLocBytes]);
    }
    if (segment_id >= files_->segment_count()) {
      LOADERX_RETURN_IF_ERROR(files_->CreateSegment(segment_id));
    }
    LOADERX_ASSIGN_OR_RETURN(VfsFile * segment, files_->Segment(segment_id));
    LOADERX_RETURN_IF_ERROR(segment->WriteAt(OffsetInSegment(index), bytes));
    files_->MarkSegmentWritten(segment_id);
    index += count;
    done += count;
  }
  return absl::OkStatus();
}

absl::Status RecordEngine::WriteHeader(const PhysicalHeader& header) {
  const auto bytes = store_format::EncodeHeader(header);
  return files_->meta().WriteAt(0,
                                absl::string_view(bytes.data(), bytes.size()));
}

absl::StatusOr<RecordLoc> RecordEngine::ReadLoc(uint64_t index) const {
  LOADERX_ASSIGN_OR_RETURN(VfsFile * segment,
                           files_->Segment(SegmentOf(index)));
  char bytes[kRecordLocBytes];
  LOADERX_RETURN_IF_ERROR(
      segment->ReadAt(OffsetInSegment(index), absl::MakeSpan(bytes)));
  return store_format::DecodeRecordLoc(bytes);
}

absl::Status RecordEngine::GatherFixed(absl::Span<const uint64_t> indices,
                                       uint64_t width,
                                       absl::Span<char> destination) const {
  if (width == 0 || destination.size() / width != indices.size() ||
      destination.size() % width != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("gather: ", indices.size(), " records of ", width,
                     " bytes need ", indices.size() * width,
                     " bytes, the destination has ", destination.size()));
  }
  std::vector<absl::Span<char>> slots(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    slots[i] = destination.subspan(i * width, width);
  }
  return Gather(indices, {}, slots, /*fixed=*/true);
}

absl::Status RecordEngine::GatherVariable(
    absl::Span<const uint64_t> indices,
    absl::Span<const absl::Span<char>> destinations) const {
  if (destinations.size() != indices.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("gather: ", indices.size(), " indices but ",
                     destinations.size(), " destinations"));
  }
  return Gather(indices, {}, destinations, /*fixed=*/false);
}

absl::StatusOr<std::vector<uint64_t>> RecordEngine::RecordSizes(
    absl::Span<const uint64_t> indices) const {
  LOADERX_ASSIGN_OR_RETURN(std::vector<RecordLoc> locs, Locate(indices));
  std::vector<uint64_t> sizes(locs.size());
  for (size_t i = 0; i < locs.size(); ++i) sizes[i] = locs[i].logic_length;
  return sizes;
}

absl::StatusOr<std::vector<RecordLoc>> RecordEngine::Locate(
    absl::Span<const uint64_t> indices) const {
  LOADERX_RETURN_IF_ERROR(CheckIndices(indices, length()));
  std::vector<RecordLoc> locs(indices.size());
  const int shards = ShardsFor(indices.size(), pool_->concurrency(), 64);
  std::vector<absl::Status> results(shards);
  pool_->ParallelFor(shards, [&](int shard) {
    const size_t begin = indices.size() * shard / shards;
    const size_t end = indices.size() * (shard + 1) / shards;
    results[shard] = ReadLocRuns(indices.subspan(begin, end - begin),
                                 absl::MakeSpan(locs).subspan(begin));
  });
  for (const absl::Status& result : results) LOADERX_RETURN_IF_ERROR(result);
  return locs;
}

absl::Status RecordEngine::ReadLocRuns(absl::Span<const uint64_t> indices,
                                       absl::Span<RecordLoc> locs) const {
  // Consecutive indices in one segment (a ragged record's payload and
  // shape, a slice) are read together, up to 64 entries at a time.
  constexpr size_t kMaxRun = 64;
  char bytes[kMaxRun * kRecordLocBytes];
  for (size_t i = 0; i < indices.size();) {
    size_t run = 1;
    while (i + run < indices.size() && run < kMaxRun &&
           indices[i + run] == indices[i] + run &&
           SegmentOf(indices[i + run]) == SegmentOf(indices[i])) {
      ++run;
    }
    LOADERX_ASSIGN_OR_RETURN(VfsFile * segment,
                             files_->Segment(SegmentOf(indices[i])));
    LOADERX_RETURN_IF_ERROR(
        segment->ReadAt(OffsetInSegment(indices[i]),
                        absl::MakeSpan(bytes, run * kRecordLocBytes)));
    for (size_t k = 0; k < run; ++k) {
      locs[i + k] = store_format::DecodeRecordLoc(&bytes[k * kRecordLocBytes]);
    }
    i += run;
  }
  return absl::OkStatus();
}

absl::Status RecordEngine::GatherLocated(
    absl::Span<const uint64_t> indices, absl::Span<const RecordLoc> locs,
    absl::Span<const absl::Span<char>> destinations) const {
  if (locs.size() != indices.size() || destinations.size() != indices.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gather: ", indices.size(), " indices, ", locs.size(),
        " table entries and ", destinations.size(), " destinations"));
  }
  return Gather(indices, locs, destinations, /*fixed=*/false);
}

absl::Status RecordEngine::Gather(
    absl::Span<const uint64_t> indices, absl::Span<const RecordLoc> locs,
    absl::Span<const absl::Span<char>> destinations, bool fixed) const {
  LOADERX_RETURN_IF_ERROR(CheckIndices(indices, length()));
  // Contiguous blocks per shard keep each worker's reads sequential in the
  // batch; each shard reuses one decompression context and staging buffer.
  const int shards = ShardsFor(indices.size(), pool_->concurrency(), 8);
  std::vector<absl::Status> results(shards);
  pool_->ParallelFor(shards, [&](int shard) {
    const size_t begin = indices.size() * shard / shards;
    const size_t end = indices.size() * (shard + 1) / shards;
    std::unique_ptr<DecompressionContext> context;
    if (!raw_) {
      absl::StatusOr<std::unique_ptr<DecompressionContext>> created =
          codec_->NewDecompressionContext();
      if (!created.ok()) {
        results[shard] = created.status();
        return;
      }
      context = *std::move(created);
    }
    std::string staging;
    for (size_t i = begin; i < end; ++i) {
      absl::Status status;
      if (locs.empty()) {
        absl::StatusOr<RecordLoc> loc = ReadLoc(indices[i]);
        status = loc.ok() ? GatherOne(indices[i], *loc, destinations[i], fixed,
                                      context.get(), staging)
                          : loc.status();
      } else {
        status = GatherOne(indices[i], locs[i], destinations[i], fixed,
                           context.get(), staging);
      }
      if (!status.ok()) {
        results[shard] = status;
        return;
      }
    }
  });
  for (const absl::Status& result : results) LOADERX_RETURN_IF_ERROR(result);
  return absl::OkStatus();
}

absl::Status RecordEngine::GatherOne(uint64_t index, const RecordLoc& loc,
                                     absl::Span<char> destination, bool fixed,
                                     DecompressionContext* context,
                                     std::string& staging) const {
  if (loc.logic_length != destination.size()) {
    if (fixed) {
      return CorruptRecordError(absl::StrCat(
          "record ", index, " has ", loc.logic_length,
          " bytes, not the store's record width ", destination.size()));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("gather: record ", index, " has ", loc.logic_length,
                     " bytes, its destination ", destination.size()));
  }
  LOADERX_ASSIGN_OR_RETURN(VfsFile * chunk, files_->Chunk(loc.chunk_id));
  absl::Status read;
  if (raw_) {
    if (loc.phys_length != loc.logic_length) {
      return CorruptRecordError(
          absl::StrCat("record ", index, " stores ", loc.phys_length,
                       " bytes for a raw record of ", loc.logic_length));
    }
    read = chunk->ReadAt(loc.offset, destination);
  } else {
    staging.resize(loc.phys_length);
    read = chunk->ReadAt(loc.offset, absl::MakeSpan(staging));
    if (read.ok()) {
      read = context->Decompress(staging, destination);
      if (!read.ok()) {
        return CorruptRecordError(
            absl::StrCat("record ", index, ": ", read.message()));
      }
    }
  }
  if (absl::IsOutOfRange(read)) {
    return absl::DataLossError(absl::StrCat("record ", index,
                                            " lies past the end of ",
                                            chunk->path(), " (damaged store)"));
  }
  return read;
}

absl::Status RecordEngine::Delete(absl::Span<const uint64_t> indices) {
  std::lock_guard lock(writer_mu_);
  LOADERX_RETURN_IF_ERROR(CheckIndices(indices, length()));
  std::vector<uint64_t> doomed(indices.begin(), indices.end());
  std::sort(doomed.begin(), doomed.end(), std::greater<>());
  doomed.erase(std::unique(doomed.begin(), doomed.end()), doomed.end());
  if (doomed.empty()) return absl::OkStatus();

  // Swap-last in descending order: each move pulls from a slot no later
  // target refers to. `moved` holds the entries rewritten so far.
  std::map<uint64_t, RecordLoc> moved;
  uint64_t length = header_.length;
  for (uint64_t target : doomed) {
    const uint64_t last = --length;
    if (target == last) {
      moved.erase(last);
      continue;
    }
    RecordLoc loc;
    if (auto it = moved.find(last); it != moved.end()) {
      loc = it->second;
      moved.erase(it);
    } else {
      LOADERX_ASSIGN_OR_RETURN(loc, ReadLoc(last));
    }
    moved[target] = loc;
  }
  for (const auto& [index, loc] : moved) {
    LOADERX_RETURN_IF_ERROR(WriteLocs(index, absl::MakeConstSpan(&loc, 1)));
  }
  PhysicalHeader next = header_;
  next.length = length;
  LOADERX_RETURN_IF_ERROR(WriteHeader(next));
  header_ = next;
  length_.store(next.length, std::memory_order_release);
  return absl::OkStatus();
}

absl::Status RecordEngine::ForEachLoc(
    uint64_t count,
    const std::function<void(uint64_t, const RecordLoc&)>& visit) const {
  // Read the record table in blocks, one read per segment a block touches.
  constexpr uint64_t kBlock = 1 << 16;
  std::string bytes;
  for (uint64_t index = 0; index < count;) {
    const uint64_t room = store_format::kEntriesPerSegment -
                          OffsetInSegment(index) / kRecordLocBytes;
    const uint64_t n = std::min({kBlock, count - index, room});
    LOADERX_ASSIGN_OR_RETURN(VfsFile * segment,
                             files_->Segment(SegmentOf(index)));
    bytes.resize(n * kRecordLocBytes);
    LOADERX_RETURN_IF_ERROR(
        segment->ReadAt(OffsetInSegment(index), absl::MakeSpan(bytes)));
    for (uint64_t i = 0; i < n; ++i) {
      visit(index + i,
            store_format::DecodeRecordLoc(&bytes[i * kRecordLocBytes]));
    }
    index += n;
  }
  return absl::OkStatus();
}

absl::StatusOr<StoreStats> RecordEngine::Stats() const {
  std::lock_guard lock(writer_mu_);
  StoreStats stats;
  stats.records = header_.length;
  LOADERX_RETURN_IF_ERROR(
      ForEachLoc(stats.records, [&](uint64_t, const RecordLoc& loc) {
        stats.live_bytes += loc.phys_length;
      }));
  stats.chunk_bytes =
      uint64_t{header_.tail_chunk} * kChunkCapacity + header_.tail_offset;
  stats.reclaimable = stats.chunk_bytes > stats.live_bytes
                          ? stats.chunk_bytes - stats.live_bytes
                          : 0;
  return stats;
}

absl::Status RecordEngine::Sync() {
  std::lock_guard lock(writer_mu_);
  return files_->SyncWritten();
}

}  // namespace loaderx
