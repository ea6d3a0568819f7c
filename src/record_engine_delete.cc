// `RecordEngine::Delete` and the journaled installation of a maintenance
// step that both it and compaction use.

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/spi/status_macros.h"
#include "src/compaction_plan.h"
#include "src/index_check.h"
#include "src/record_engine.h"

namespace loaderx {
namespace {

using integrity_format::ChecksumEntry;
using store_format::OffsetInSegment;
using store_format::PhysicalHeader;
using store_format::RecordLoc;
using store_format::SegmentOf;

StorePosition Frontier(const PhysicalHeader& header) {
  return {header.tail_chunk, header.tail_offset};
}

}  // namespace

absl::Status RecordEngine::Delete(absl::Span<const uint64_t> indices) {
  std::lock_guard lock(writer_mu_);
  LOADERX_RETURN_IF_ERROR(RequireWritable("delete"));
  LOADERX_RETURN_IF_ERROR(CheckIndices(indices, length()));
  std::vector<uint64_t> doomed(indices.begin(), indices.end());
  std::sort(doomed.begin(), doomed.end(), std::greater<>());
  doomed.erase(std::unique(doomed.begin(), doomed.end()), doomed.end());
  if (doomed.empty()) return absl::OkStatus();
  LOADERX_RETURN_IF_ERROR(AdoptLocked());
  // What the step builds on must be durable before it starts.
  LOADERX_RETURN_IF_ERROR(SyncLocked());

  // Swap-last in descending order: each move pulls from a slot no later
  // target refers to. `moved` holds the entries rewritten so far; a moved
  // record takes its checksum entry along (bound to the same table entry).
  std::map<uint64_t, JournalEntry> moved;
  uint64_t length = header_.length;
  for (uint64_t target : doomed) {
    const uint64_t last = --length;
    if (target == last) {
      moved.erase(last);
      continue;
    }
    JournalEntry entry;
    if (auto it = moved.find(last); it != moved.end()) {
      entry = it->second;
      moved.erase(it);
    } else {
      LOADERX_ASSIGN_OR_RETURN(entry.loc, ReadLoc(last));
      LOADERX_ASSIGN_OR_RETURN(entry.checksum, ReadChecksum(last));
    }
    entry.index = target;
    moved[target] = entry;
  }
  JournalRecord record;
  record.op = JournalOp::kDelete;
  record.header = header_;
  record.header.length = length;
  for (auto& [index, entry] : moved) record.entries.push_back(entry);
  return Journaled(record);
}

absl::Status RecordEngine::Journaled(const JournalRecord& record) {
  if (journal_ == nullptr) {
    journal_ = std::make_unique<Journal>(files_->vfs(), files_->directory());
  }
  LOADERX_RETURN_IF_ERROR(journal_->Write(record));
  LOADERX_RETURN_IF_ERROR(Install(record));
  return journal_->Clear();
}

absl::Status RecordEngine::Install(const JournalRecord& record, bool replay) {
  // Committed entries and bytes are about to be rewritten: no mapping made
  // before may serve a read after (none overlaps this call).
  files_->mappings().Invalidate();
  // A frontier that grows (compaction staging past it) is written first, so
  // no entry ever points past the header's frontier, not even for a reader
  // that sees the rewrite half done (loaderx 1.7.7 checks it at open).
  const bool grows = Frontier(record.header) > Frontier(header_);
  if (grows) LOADERX_RETURN_IF_ERROR(WriteHeader(record.header));
  // Entries in runs of consecutive indices: one write per run and file.
  const std::vector<JournalEntry>& entries = record.entries;
  for (size_t begin = 0; begin < entries.size();) {
    size_t end = begin + 1;
    while (end < entries.size() &&
           entries[end].index == entries[end - 1].index + 1 &&
           SegmentOf(entries[end].index) == SegmentOf(entries[begin].index)) {
      ++end;
    }
    std::vector<RecordLoc> locs;
    std::vector<ChecksumEntry> checksums;
    for (size_t i = begin; i < end; ++i) {
      locs.push_back(entries[i].loc);
      checksums.push_back(entries[i].checksum);
    }
    LOADERX_RETURN_IF_ERROR(WriteChecksums(entries[begin].index, checksums));
    LOADERX_RETURN_IF_ERROR(WriteLocs(entries[begin].index, locs));
    begin = end;
  }
  if (replay || (!grows && !(record.header == header_))) {
    LOADERX_RETURN_IF_ERROR(WriteHeader(record.header));
  }
  header_ = record.header;
  if (record.op == JournalOp::kCompactionEnd) {
    // Drop what lies past the new frontier and the live entries.
    LOADERX_RETURN_IF_ERROR(
        files_->RemoveChunksFrom(uint64_t{header_.tail_chunk} + 1));
    LOADERX_RETURN_IF_ERROR(
        files_->RemoveStrayChunksFrom(uint64_t{header_.tail_chunk} + 1));
    LOADERX_ASSIGN_OR_RETURN(VfsFile * tail, files_->Chunk(header_.tail_chunk));
    LOADERX_RETURN_IF_ERROR(tail->Truncate(header_.tail_offset));
    files_->MarkChunkWritten(header_.tail_chunk);
    const uint64_t length = header_.length;
    const uint64_t segments = length == 0 ? 0 : SegmentOf(length - 1) + 1;
    LOADERX_RETURN_IF_ERROR(files_->RemoveSegmentsFrom(segments));
    if (segments > 0) {
      LOADERX_ASSIGN_OR_RETURN(VfsFile * last, files_->Segment(segments - 1));
      LOADERX_RETURN_IF_ERROR(last->Truncate(OffsetInSegment(length - 1) +
                                             store_format::kRecordLocBytes));
      files_->MarkSegmentWritten(segments - 1);
    }
    if (integrity_ != nullptr) {
      LOADERX_RETURN_IF_ERROR(integrity_->TruncateEntries(length));
    }
  }
  LOADERX_RETURN_IF_ERROR(SyncLocked());
  files_->mappings().Invalidate();
  frontier_.store(FrontierOf(header_), std::memory_order_release);
  length_.store(header_.length, std::memory_order_release);
  return absl::OkStatus();
}

}  // namespace loaderx
