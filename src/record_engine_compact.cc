// `RecordEngine::Compact`: reclaiming the space deleted records left, by the
// plan of `compaction_plan.h`, one journaled batch at a time.

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/spi/status_macros.h"
#include "src/checksum.h"
#include "src/compaction_plan.h"
#include "src/record_engine.h"
#include "src/record_table.h"

namespace loaderx {
namespace {

using integrity_format::BindingOf;
using integrity_format::ChecksumEntry;
using store_format::PhysicalHeader;
using store_format::RecordLoc;

// Records are copied through a buffer of at most this size.
constexpr uint64_t kCopyBufferBytes = 1 << 20;

}  // namespace

absl::StatusOr<uint64_t> RecordEngine::CopyRecord(const RecordLoc& from,
                                                  const RecordLoc& to,
                                                  std::string& buffer) {
  LOADERX_ASSIGN_OR_RETURN(VfsFile * source, files_->Chunk(from.chunk_id));
  LOADERX_ASSIGN_OR_RETURN(VfsFile * target, files_->Chunk(to.chunk_id));
  ChecksumStream checksum;
  for (uint64_t done = 0; done < from.phys_length;) {
    const uint64_t n =
        std::min<uint64_t>(kCopyBufferBytes, from.phys_length - done);
    buffer.resize(n);
    absl::Status read =
        source->ReadAt(from.offset + done, absl::MakeSpan(buffer));
    if (absl::IsOutOfRange(read)) {
      return absl::DataLossError(absl::StrCat(
          source->path(),
          " ends inside a record (damaged store): ", read.message()));
    }
    LOADERX_RETURN_IF_ERROR(read);
    checksum.Update(buffer);
    LOADERX_RETURN_IF_ERROR(target->WriteAt(to.offset + done, buffer));
    done += n;
  }
  files_->MarkChunkWritten(to.chunk_id);
  return checksum.Digest();
}

absl::Status RecordEngine::Compact() {
  std::lock_guard lock(writer_mu_);
  LOADERX_RETURN_IF_ERROR(RequireWritable("compact"));
  LOADERX_RETURN_IF_ERROR(AdoptLocked());
  const absl::Status compacted = CompactLocked();
  if (!compacted.ok()) (void)GiveBackStaged();
  return compacted;
}

absl::Status RecordEngine::GiveBackStaged() {
  // A step whose record is durable is the next open's to finish, with the
  // staged bytes its entries point at.
  LOADERX_ASSIGN_OR_RETURN(const std::optional<JournalRecord> pending,
                           Journal::Read(files_->vfs(), files_->directory()));
  if (pending.has_value()) return absl::OkStatus();
  // Nothing committed lies past the frontier: copies made for a step that
  // never started, in the tail chunk or in chunks after it.
  files_->mappings().Invalidate();
  const uint64_t tail = header_.tail_chunk;
  LOADERX_RETURN_IF_ERROR(files_->RemoveChunksFrom(tail + 1));
  LOADERX_RETURN_IF_ERROR(files_->RemoveStrayChunksFrom(tail + 1));
  LOADERX_ASSIGN_OR_RETURN(VfsFile * chunk, files_->Chunk(tail));
  LOADERX_ASSIGN_OR_RETURN(const uint64_t size, chunk->Size());
  if (size > header_.tail_offset) {
    LOADERX_RETURN_IF_ERROR(chunk->Truncate(header_.tail_offset));
    files_->MarkChunkWritten(tail);
  }
  return absl::OkStatus();
}

absl::StatusOr<RecordEngine::PlannedCompaction> RecordEngine::PlanLocked()
    const {
  // Everything the plan relies on is checked first: each entry against the
  // files and the frontier, then no two entries sharing a byte.
  LOADERX_ASSIGN_OR_RETURN(
      const TableBounds bounds,
      MeasureChunks(
          files_->directory(), header_,
          [&](uint64_t id) -> absl::StatusOr<const VfsFile*> {
            return files_->Chunk(id);
          },
          *codec_));
  std::vector<PlacedRecord> records;
  records.reserve(header_.length);  // Bounded: `Open` checked the table size.
  LOADERX_RETURN_IF_ERROR(
      ForEachLoc(header_.length, [&](uint64_t index, const RecordLoc& loc) {
        LOADERX_RETURN_IF_ERROR(CheckRecordLoc(index, loc, bounds));
        records.push_back({index, loc});
        return absl::OkStatus();
      }));
  std::sort(records.begin(), records.end(),
            [](const PlacedRecord& a, const PlacedRecord& b) {
              return StartOf(a.loc) < StartOf(b.loc);
            });
  for (size_t i = 1; i < records.size(); ++i) {
    const PlacedRecord& a = records[i - 1];
    const PlacedRecord& b = records[i];
    if (EndOf(a.loc) > StartOf(b.loc)) {
      return absl::DataLossError(absl::StrCat(
          files_->directory(), ": records ", a.index, " and ", b.index,
          " share bytes of chunk ", b.loc.chunk_id, " at offset ", b.loc.offset,
          " (damaged record table); compaction would destroy one of them"));
    }
  }

  // An authoritative checksum bound to another entry means the entry was
  // damaged: moving the bytes it points at, and rebinding, would pass
  // another record's (or no record's) bytes off as this one.
  for (const PlacedRecord& record : records) {
    LOADERX_ASSIGN_OR_RETURN(const ChecksumEntry checksum,
                             ReadChecksum(record.index));
    if (trusted_ && !checksum.empty() && checksum.epoch == epoch_ &&
        checksum.binding != BindingOf(record.loc)) {
      return absl::DataLossError(absl::StrCat(
          files_->directory(), ": record-table entry ", record.index,
          " is not the one its checksum was written for (damaged record "
          "table); compaction would make it look valid"));
    }
  }

  CompactionLimits limits;
  limits.chunk_capacity = chunk_capacity_;
  limits.max_batch_bytes = batch_bytes_;
  limits.max_batch_records = batch_records_;
  PlannedCompaction planned;
  for (const PlacedRecord& record : records) {
    planned.live_bytes += record.loc.phys_length;
  }
  planned.plan = PlanCompaction(
      records, {header_.tail_chunk, header_.tail_offset}, limits);
  return planned;
}

absl::Status RecordEngine::CompactLocked() {
  LOADERX_RETURN_IF_ERROR(SyncLocked());
  LOADERX_ASSIGN_OR_RETURN(PlannedCompaction planned, PlanLocked());
  LOADERX_ASSIGN_OR_RETURN(const CompactionEstimate estimate,
                           EstimateOf(planned));
  if (estimate.available_bytes.has_value() &&
      *estimate.available_bytes < estimate.needed_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "compact ", files_->directory(), ": compaction needs ",
        estimate.needed_bytes, " bytes, ", *estimate.available_bytes,
        " available (it would give back ", estimate.reclaimed_bytes,
        "); nothing was changed"));
  }
  const CompactionPlan plan = std::move(planned.plan);

  std::string buffer;
  for (const CompactionBatch& batch : plan.batches) {
    JournalRecord record;
    record.op = JournalOp::kCompactionStep;
    record.header = header_;
    record.header.tail_chunk = batch.frontier.chunk;
    record.header.tail_offset = static_cast<uint32_t>(batch.frontier.offset);
    for (const CompactionMove& move : batch.moves) {
      while (move.to.chunk_id >= files_->chunk_count()) {
        LOADERX_RETURN_IF_ERROR(files_->CreateChunk(files_->chunk_count()));
      }
      LOADERX_ASSIGN_OR_RETURN(const uint64_t copied,
                               CopyRecord(move.from, move.to, buffer));
      // The checksum entry moves with its record. One that matched the
      // bytes just copied is authoritative from now on.
      LOADERX_ASSIGN_OR_RETURN(ChecksumEntry checksum,
                               ReadChecksum(move.index));
      if (checksum.empty() || checksum.binding != BindingOf(move.from)) {
        checksum = ChecksumEntry{};
      } else {
        checksum.binding = BindingOf(move.to);
        if (copied == checksum.checksum) checksum.epoch = epoch_;
      }
      record.entries.push_back({move.index, move.to, checksum});
    }
    std::sort(record.entries.begin(), record.entries.end(),
              [](const JournalEntry& a, const JournalEntry& b) {
                return a.index < b.index;
              });
    // The copies are durable before any entry points at them.
    LOADERX_RETURN_IF_ERROR(files_->SyncChunks());
    LOADERX_RETURN_IF_ERROR(Journaled(record));
  }

  JournalRecord end;
  end.op = JournalOp::kCompactionEnd;
  end.header = header_;
  end.header.tail_chunk = plan.frontier.chunk;
  end.header.tail_offset = static_cast<uint32_t>(plan.frontier.offset);
  return Journaled(end);
}

absl::StatusOr<CompactionEstimate> RecordEngine::EstimateCompaction() const {
  std::lock_guard lock(writer_mu_);
  LOADERX_ASSIGN_OR_RETURN(const PlannedCompaction planned, PlanLocked());
  return EstimateOf(planned);
}

absl::StatusOr<CompactionEstimate> RecordEngine::EstimateOf(
    const PlannedCompaction& planned) const {
  CompactionEstimate estimate;
  estimate.batches = planned.plan.batches.size() + 1;  // And the end step.
  const StorePosition frontier{header_.tail_chunk, header_.tail_offset};
  uint64_t largest_batch = 0;
  for (const CompactionBatch& batch : planned.plan.batches) {
    estimate.moves += batch.moves.size();
    largest_batch = std::max<uint64_t>(largest_batch, batch.moves.size());
    // Copies past the frontier are new blocks; copies into the holes
    // before it reuse blocks the store already has.
    for (const CompactionMove& move : batch.moves) {
      if (StartOf(move.to) >= frontier) {
        estimate.needed_bytes += move.to.phys_length;
      }
    }
  }
  const uint64_t journal_bytes = JournalRecordBytes(largest_batch);
  if (journal_bytes > kJournalReserveBytes) {
    estimate.needed_bytes += journal_bytes - kJournalReserveBytes;
  }
  // The committed chunk bytes: every chunk before the tail whole (as far
  // as it reaches), the tail to the frontier.
  uint64_t committed = header_.tail_offset;
  for (uint64_t chunk = 0; chunk < header_.tail_chunk; ++chunk) {
    LOADERX_ASSIGN_OR_RETURN(VfsFile * file, files_->Chunk(chunk));
    LOADERX_ASSIGN_OR_RETURN(const uint64_t size, file->Size());
    committed += size;
  }
  estimate.reclaimed_bytes =
      committed > planned.live_bytes ? committed - planned.live_bytes : 0;
  absl::StatusOr<uint64_t> available =
      files_->vfs().AvailableBytes(files_->directory());
  if (available.ok()) {
    estimate.available_bytes = *available;
  } else if (!absl::IsUnimplemented(available.status())) {
    return available.status();
  }
  return estimate;
}

}  // namespace loaderx
