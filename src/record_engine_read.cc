// `RecordEngine`'s readers: table lookups, gathers with checksum
// verification, and `Verify`.

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/optimization.h"
#include "absl/strings/str_cat.h"
#include "loaderx/error_code.h"
#include "loaderx/spi/status_macros.h"
#include "src/checksum.h"
#include "src/engine_sharding.h"
#include "src/flat_view.h"
#include "src/index_check.h"
#include "src/record_engine.h"
#include "src/record_table.h"

namespace loaderx {
namespace {

using integrity_format::ChecksumEntry;
using store_format::kRecordLocBytes;
using store_format::OffsetInSegment;
using store_format::RecordLoc;
using store_format::SegmentOf;

// The damage lines a verify report keeps.
constexpr size_t kMaxProblems = 16;

// How far ahead `ReadLocRuns` prefetches mapped table entries.
constexpr size_t kEntriesAhead = 8;

}  // namespace

absl::StatusOr<RecordLoc> RecordEngine::ReadLoc(uint64_t index) const {
  if (!overlay_.empty()) {
    if (auto it = overlay_.find(index); it != overlay_.end()) {
      return it->second.loc;
    }
  }
  LOADERX_ASSIGN_OR_RETURN(VfsFile * segment,
                           files_->Segment(SegmentOf(index)));
  char bytes[kRecordLocBytes];
  absl::Status read =
      segment->ReadAt(OffsetInSegment(index), absl::MakeSpan(bytes));
  if (absl::IsOutOfRange(read)) {
    return store_format::MissingEntryError(segment->path(), index);
  }
  LOADERX_RETURN_IF_ERROR(read);
  return store_format::DecodeRecordLoc(bytes);
}

absl::StatusOr<ChecksumEntry> RecordEngine::ReadChecksum(uint64_t index) const {
  if (!overlay_.empty()) {
    if (auto it = overlay_.find(index); it != overlay_.end()) {
      return it->second.checksum;
    }
  }
  const IntegrityFile* integrity = Integrity();
  if (integrity == nullptr) return ChecksumEntry{};
  return integrity->ReadEntry(index);
}

RecordEngine::Check RecordEngine::Classify(const ChecksumEntry& entry,
                                           const RecordLoc& loc,
                                           absl::string_view stored) const {
  if (entry.empty()) return Check::kUnverified;
  // A mismatch, of the entry's binding or of the bytes, is damage only if
  // no other program wrote the store since the checksum was made; otherwise
  // that program's move or rewrite explains it. (Every move this library
  // makes rebinds the checksum, and another program's rewrites meta.zr.)
  const bool authoritative = trusted_ && entry.epoch == epoch_;
  if (entry.binding != integrity_format::BindingOf(loc)) {
    return authoritative ? Check::kDamaged : Check::kUnverified;
  }
  if (Checksum(stored) == entry.checksum) return Check::kVerified;
  return authoritative ? Check::kDamaged : Check::kUnverified;
}

absl::Status RecordEngine::ForEachLoc(
    uint64_t count,
    const std::function<absl::Status(uint64_t, const RecordLoc&)>& visit)
    const {
  for (uint64_t index = 0; index < count;) {
    const uint64_t in_segment = OffsetInSegment(index) / kRecordLocBytes;
    const uint64_t n =
        std::min(count - index, store_format::kEntriesPerSegment - in_segment);
    LOADERX_ASSIGN_OR_RETURN(VfsFile * segment,
                             files_->Segment(SegmentOf(index)));
    const uint64_t base = index - in_segment;
    LOADERX_RETURN_IF_ERROR(ScanSegment(
        *segment, in_segment, n, [&](uint64_t position, const RecordLoc& loc) {
          const uint64_t i = base + position;
          if (!overlay_.empty()) {
            if (auto it = overlay_.find(i); it != overlay_.end()) {
              return visit(i, it->second.loc);
            }
          }
          return visit(i, loc);
        }));
    index += n;
  }
  return absl::OkStatus();
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
  // Through mappings an entry is a load: only huge batches are worth
  // handing to other threads.
  const int shards =
      ShardsFor(indices.size(), pool_->concurrency(),
                files_->mappings().enabled() ? uint64_t{1} << 16 : 64);
  LOADERX_RETURN_IF_ERROR(
      pool_->TryParallelFor(shards, [&](int shard) -> absl::Status {
        const size_t begin = indices.size() * shard / shards;
        const size_t end = indices.size() * (shard + 1) / shards;
        return ReadLocRuns(indices.subspan(begin, end - begin),
                           absl::MakeSpan(locs).subspan(begin));
      }));
  return locs;
}

absl::Status RecordEngine::ReadLocRuns(absl::Span<const uint64_t> indices,
                                       absl::Span<RecordLoc> locs) const {
  StoreMappings& mappings = files_->mappings();
  if (mappings.enabled()) {
    std::shared_ptr<const MappedView> view = mappings.Current();
    const uint64_t count = length();
    size_t i = 0;
    while (i < indices.size()) {
      if (ABSL_PREDICT_TRUE(overlay_.empty())) {
        // The inline loop, while entries lie in the mapped prefix (made
        // again after each general step: that may replace `view`).
        const FlatView flat(*view);
        for (; i < indices.size(); ++i) {
          if (ABSL_PREDICT_TRUE(i + kEntriesAhead < indices.size())) {
            if (const char* ahead = flat.Entry(indices[i + kEntriesAhead])) {
              __builtin_prefetch(ahead);
            }
          }
          const char* const entry = flat.Entry(indices[i]);
          if (ABSL_PREDICT_FALSE(entry == nullptr)) break;
          locs[i] = store_format::DecodeRecordLoc(entry);
        }
        if (i == indices.size()) break;
      }
      // The general step: the overlay, or an entry past the mapped prefix.
      absl::StatusOr<RecordLoc> loc = MappedLoc(view, count, indices[i]);
      if (absl::IsUnimplemented(loc.status())) break;  // Declined to map.
      LOADERX_RETURN_IF_ERROR(loc.status());
      locs[i] = *loc;
      ++i;
    }
    if (i == indices.size()) return absl::OkStatus();
    indices.remove_prefix(i);
    locs.remove_prefix(i);
  }
  if (!overlay_.empty()) {
    for (size_t i = 0; i < indices.size(); ++i) {
      LOADERX_ASSIGN_OR_RETURN(locs[i], ReadLoc(indices[i]));
    }
    return absl::OkStatus();
  }
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
    absl::Status read =
        segment->ReadAt(OffsetInSegment(indices[i]),
                        absl::MakeSpan(bytes, run * kRecordLocBytes));
    if (absl::IsOutOfRange(read)) {
      return store_format::MissingEntryError(segment->path(), indices[i]);
    }
    LOADERX_RETURN_IF_ERROR(read);
    for (size_t k = 0; k < run; ++k) {
      locs[i + k] = store_format::DecodeRecordLoc(&bytes[k * kRecordLocBytes]);
    }
    i += run;
  }
  return absl::OkStatus();
}

absl::Span<char> RecordEngine::ScratchBuffer::Get(uint64_t size) {
  if (size > capacity) {
    bytes.reset(new char[size]);
    capacity = size;
  }
  return absl::Span<char>(bytes.get(), size);
}

absl::StatusOr<std::string> RecordEngine::VerifyOne(
    uint64_t index, DecompressionContext* context, std::string& stored,
    ScratchBuffer& decoded, bool& verified) const {
  verified = false;
  LOADERX_ASSIGN_OR_RETURN(const RecordLoc loc, ReadLoc(index));
  absl::StatusOr<VfsFile*> chunk = files_->Chunk(loc.chunk_id);
  if (!chunk.ok()) return std::string(chunk.status().message());
  stored.resize(loc.phys_length);
  absl::Status read = (*chunk)->ReadAt(loc.offset, absl::MakeSpan(stored));
  if (absl::IsOutOfRange(read)) {
    return absl::StrCat("record ", index, " lies past the end of ",
                        (*chunk)->path());
  }
  LOADERX_RETURN_IF_ERROR(read);
  LOADERX_ASSIGN_OR_RETURN(const ChecksumEntry entry, ReadChecksum(index));
  switch (Classify(entry, loc, stored)) {
    case Check::kVerified:
      verified = true;
      return std::string();
    case Check::kDamaged:
      return absl::StrCat("record ", index,
                          " does not match the checksum written with it");
    case Check::kUnverified:
      break;
  }
  // Nothing to compare with: what can still be checked is that it decodes.
  if (raw_) return std::string();
  absl::Status decompressed =
      context->Decompress(stored, decoded.Get(loc.logic_length));
  if (!decompressed.ok()) {
    return absl::StrCat("record ", index, ": ", decompressed.message());
  }
  return std::string();
}

absl::StatusOr<VerifyReport> RecordEngine::Verify(
    uint64_t group, const std::function<absl::Status(uint64_t)>& check_group,
    const VerifyProgress& progress) const {
  group = std::max<uint64_t>(group, 1);
  const uint64_t groups = length() / group;
  const int shards = ShardsFor(groups, pool_->concurrency(), 64);
  std::vector<VerifyReport> parts(shards);
  // Every shard adds what it examined to `done` every `kProgressGroups`
  // groups (and at its end) and reports the sum under `progress_mutex`, so
  // the callback never runs twice at once and `done` reaches `groups` in
  // the last call.
  constexpr uint64_t kProgressGroups = 4096;
  std::mutex progress_mutex;
  uint64_t done = 0;
  const auto report_progress = [&](uint64_t examined) {
    if (!progress || examined == 0) return;
    std::lock_guard<std::mutex> lock(progress_mutex);
    done += examined;
    progress(done, groups);
  };
  if (groups == 0 && progress) progress(0, 0);
  LOADERX_RETURN_IF_ERROR(
      pool_->TryParallelFor(shards, [&](int shard) -> absl::Status {
        VerifyReport& part = parts[shard];
        DecompressionContextPool::Lease context;
        if (!raw_) {
          LOADERX_ASSIGN_OR_RETURN(context, decompression_contexts_.Acquire());
        }
        std::string stored;
        ScratchBuffer decoded;
        const uint64_t begin = groups * shard / shards;
        const uint64_t end = groups * (shard + 1) / shards;
        uint64_t unreported = 0;
        for (uint64_t g = begin; g < end; ++g) {
          if (unreported == kProgressGroups) {
            report_progress(unreported);
            unreported = 0;
          }
          ++unreported;
          std::string problem;
          bool all_verified = true;
          for (uint64_t i = g * group; i < (g + 1) * group && problem.empty();
               ++i) {
            bool verified = false;
            LOADERX_ASSIGN_OR_RETURN(
                problem,
                VerifyOne(i, context.get(), stored, decoded, verified));
            all_verified = all_verified && verified;
          }
          if (problem.empty() && check_group) {
            absl::Status checked = check_group(g);
            if (!checked.ok() && !absl::IsDataLoss(checked)) return checked;
            problem = std::string(checked.message());
          }
          ++part.records;
          if (!problem.empty()) {
            part.damaged.push_back(g);
            if (part.problems.size() < kMaxProblems) {
              part.problems.push_back(std::move(problem));
            }
          } else if (all_verified) {
            ++part.verified;
          } else {
            ++part.unverified;
          }
        }
        report_progress(unreported);
        return absl::OkStatus();
      }));
  VerifyReport report;
  for (VerifyReport& part : parts) {
    report.records += part.records;
    report.verified += part.verified;
    report.unverified += part.unverified;
    report.damaged.insert(report.damaged.end(), part.damaged.begin(),
                          part.damaged.end());
    for (std::string& problem : part.problems) {
      if (report.problems.size() < kMaxProblems) {
        report.problems.push_back(std::move(problem));
      }
    }
  }
  const IntegrityFile* integrity = Integrity();
  report.metadata_verified =
      integrity != nullptr && integrity->state().has_value() &&
      (integrity->state()->dictionary_checksum.has_value() ||
       !codec_->uses_dictionary());
  FindMetadataProblems(report, group);
  return report;
}

}  // namespace loaderx
