// `RecordEngine`'s gathers: a batch's records decoded into their
// destinations, through the store's mappings where the VFS maps (one pass
// over the batch: table entry, checksum entry and stored bytes read from
// the mapped files, the bytes copied or decoded straight into the
// destination) and through positional reads where it does not. Both paths
// make the same checks and report the same errors: a location outside its
// file is DataLoss, a checksum mismatch a corrupt record.

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/base/optimization.h"
#include "absl/strings/str_cat.h"
#include "loaderx/error_code.h"
#include "loaderx/spi/status_macros.h"
#include "src/checksum.h"
#include "src/checksum_kernels.h"
#include "src/decompression_context_pool.h"
#include "src/engine_sharding.h"
#include "src/flat_view.h"
#include "src/index_check.h"
#include "src/record_engine.h"
#include "src/resident_index.h"
#include "src/shard_ranges.h"

namespace loaderx {
namespace {

using integrity_format::ChecksumEntry;
using integrity_format::kEntryBytes;
using store_format::kRecordLocBytes;
using store_format::OffsetInSegment;
using store_format::RecordLoc;
using store_format::SegmentOf;

absl::Status PastChunkEndError(absl::string_view path, uint64_t index) {
  return absl::DataLossError(absl::StrCat(
      "record ", index, " lies past the end of ", path, " (damaged store)"));
}

// How far ahead `GatherMappedRun` prefetches, and how much of a record:
// the first `kPrefetchedRawBytes` of a raw one (the hardware's own
// prefetcher follows a longer copy, but starts afresh at every 4 KiB page,
// so a random 4 KiB record would begin with its misses one after another),
// and a compressed frame only when it is at most `kPrefetchedFrameBytes`.
// The decoder of a longer frame hides the frame's first misses behind its
// work, while a prefetch waits at retirement for its address's page walk:
// prefetching 4 KiB zstd frames cost 2-3 % of the gather, and 64 B ones
// gain from it. Raw records prefetched whole up to 4 KiB, not their first
// 256 B: verified 4 KiB gathers 18.5-20.7 -> 19.1-23.5 GB/s, three
// alternated runs of gather_benchmark (noisy; a single-thread bare loop
// gained 7-10 %).
constexpr size_t kEntriesAhead = 8;
constexpr size_t kBytesAhead = 4;
constexpr uint64_t kPrefetchedRawBytes = 4096;
constexpr uint64_t kPrefetchedFrameBytes = 256;

// A batch this large is stored around the cache (`ChecksumAndCopy`'s
// `bypass_cache`): it is larger than both cores' L2 and a good part of
// what a VM's share of L3 holds, so its lines would be evicted before the
// caller reads them, and reading each line before writing it (what a plain
// store does) costs a third of the copy's memory traffic.
constexpr uint64_t kBypassCacheBatchBytes = 16 << 20;

}  // namespace

absl::Span<char> RecordEngine::Destinations::at(size_t i) const {
  return spans.empty() ? absl::Span<char>(base + i * width, width) : spans[i];
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
  Destinations destinations;
  destinations.base = destination.data();
  destinations.width = width;
  destinations.bytes = destination.size();
  return Gather(indices, destinations, /*fixed=*/true);
}

absl::Status RecordEngine::GatherVariable(
    absl::Span<const uint64_t> indices,
    absl::Span<const absl::Span<char>> destinations) const {
  if (destinations.size() != indices.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("gather: ", indices.size(), " indices but ",
                     destinations.size(), " destinations"));
  }
  return Gather(indices, SpansOf(destinations), /*fixed=*/false);
}

RecordEngine::Destinations RecordEngine::SpansOf(
    absl::Span<const absl::Span<char>> spans) {
  Destinations destinations;
  destinations.spans = spans;
  for (const absl::Span<char>& span : spans) destinations.bytes += span.size();
  return destinations;
}

absl::Status RecordEngine::Gather(absl::Span<const uint64_t> indices,
                                  const Destinations& destinations,
                                  bool fixed) const {
  const uint64_t length = this->length();
  LOADERX_RETURN_IF_ERROR(CheckIndices(indices, length));
  StoreMappings& mappings = files_->mappings();
  std::shared_ptr<const MappedView> batch_view;
  if (mappings.enabled()) batch_view = mappings.Current();
  // The inline fast path needs nothing overlaid (a read-only open of a
  // store whose last maintenance step did not finish).
  const bool fast = overlay_.empty();
  if (batch_view != nullptr && fast && raw_ && verify_ &&
      integrity_ != nullptr && destinations.spans.empty() &&
      destinations.width <= kResidentMaxWidth) {
    batch_view = Reside(std::move(batch_view), length, destinations.width);
  }
  // Records [begin, end) of the batch, through `view` (extended when a
  // record lies past it) while it is set; the fast path prefetches ahead up
  // to `lookahead_end`. On failure, `*failed_at` is the failing record's
  // position.
  const auto gather_piece =
      [&](std::shared_ptr<const MappedView>& view, size_t begin, size_t end,
          size_t lookahead_end, DecompressionContext* context,
          std::string& staging, size_t* failed_at) -> absl::Status {
    size_t i = begin;
    while (view != nullptr && i < end) {
      if (ABSL_PREDICT_TRUE(fast)) {
        i = GatherMappedRun(*view, indices, destinations, i, end, lookahead_end,
                            context);
        if (i == end) break;
      }
      // Record i needs the general path (which reports what is wrong).
      absl::Status gathered = GatherMapped(view, length, indices[i],
                                           destinations.at(i), fixed, context);
      if (ABSL_PREDICT_FALSE(!gathered.ok())) {
        // The VFS declined to map: the rest goes through `ReadAt`.
        if (absl::IsUnimplemented(gathered)) {
          view = nullptr;
          break;
        }
        *failed_at = i;
        return gathered;
      }
      ++i;
    }
    for (; i < end; ++i) {
      absl::Status gathered = [&]() -> absl::Status {
        LOADERX_ASSIGN_OR_RETURN(const RecordLoc loc, ReadLoc(indices[i]));
        return GatherOne(indices[i], loc, destinations.at(i), fixed, context,
                         staging);
      }();
      if (ABSL_PREDICT_FALSE(!gathered.ok())) {
        *failed_at = i;
        return gathered;
      }
    }
    return absl::OkStatus();
  };
  // What one thread needs for its pieces: a decompression context, a
  // staging buffer and its own reference to the view. Its streamed copies
  // (`GatherMappedRun` with `bypass_cache`) are fenced once, when the
  // thread is done, before the pool tells the caller.
  struct ThreadState {
    DecompressionContextPool::Lease context;
    std::string staging;
    std::shared_ptr<const MappedView> view;
    bool streamed;
    ~ThreadState() {
      if (streamed) FenceStreamedCopies();
    }
  };
  const bool streamed = raw_ && destinations.bytes >= kBypassCacheBatchBytes;
  const int shards = GatherShards(indices.size(), destinations.bytes, !raw_,
                                  pool_->concurrency());
  if (shards <= 1) {  // Inline on the caller: no hand-off, no claims.
    return pool_->TryParallelFor(1, [&](int) -> absl::Status {
      ThreadState state{{}, {}, batch_view, streamed};
      if (!raw_) {
        LOADERX_ASSIGN_OR_RETURN(state.context,
                                 decompression_contexts_.Acquire());
      }
      size_t failed_at = 0;
      return gather_piece(state.view, 0, indices.size(), indices.size(),
                          state.context.get(), state.staging, &failed_at);
    });
  }
  // Each shard's records are claimed in pieces by the thread running it,
  // and a thread out of work steals from the others (`ShardRanges`): on
  // these VMs one core often runs at half the other's speed for a while,
  // and equal halves would wait for the slow one. The error reported is
  // the one at the batch's first failing record, whichever thread met it:
  // every record before it was gathered (a thread stops only at a failure,
  // and what it leaves lies after that failure).
  ShardRanges ranges(
      indices.size(), shards,
      GatherPieceRecords(indices.size(), destinations.bytes, !raw_));
  std::mutex failure_mu;
  size_t first_failed_at = indices.size();
  absl::Status first_failure;
  LOADERX_RETURN_IF_ERROR(
      pool_->TryParallelFor(shards, [&](int shard) -> absl::Status {
        ThreadState state{{}, {}, batch_view, streamed};
        if (!raw_) {
          LOADERX_ASSIGN_OR_RETURN(state.context,
                                   decompression_contexts_.Acquire());
        }
        do {
          for (ShardRanges::Piece piece = ranges.Claim(shard); !piece.empty();
               piece = ranges.Claim(shard)) {
            size_t failed_at = 0;
            absl::Status gathered = gather_piece(
                state.view, piece.begin, piece.end, piece.range_end,
                state.context.get(), state.staging, &failed_at);
            if (ABSL_PREDICT_FALSE(!gathered.ok())) {
              std::lock_guard lock(failure_mu);
              if (failed_at < first_failed_at) {
                first_failed_at = failed_at;
                first_failure = std::move(gathered);
              }
              return absl::OkStatus();
            }
          }
        } while (ranges.Steal(shard));
        return absl::OkStatus();
      }));
  std::lock_guard lock(failure_mu);
  return first_failure;
}

std::shared_ptr<const MappedView> RecordEngine::Reside(
    std::shared_ptr<const MappedView> view, uint64_t length,
    uint64_t width) const {
  const uint64_t end =
      std::min({length, view->resident_count() + kResidentRecordsPerGather,
                kResidentMaxRecords});
  if (view->resident_count() >= end) return view;
  StoreMappings& mappings = files_->mappings();
  // Map what the index is made from, as `MappedLoc` and `MappedChecksum`
  // would: every entry committed in segment 0, the checksum entries of
  // every record.
  if (view->segment(0).size() < end * kRecordLocBytes) {
    absl::StatusOr<VfsFile*> segment = files_->Segment(0);
    if (!segment.ok()) return view;
    absl::StatusOr<std::shared_ptr<const MappedView>> extended =
        mappings.Extend(MappedFileKind::kSegment, 0, **segment,
                        std::min(length, store_format::kEntriesPerSegment) *
                            kRecordLocBytes);
    if (!extended.ok()) return view;
    view = *std::move(extended);
  }
  const uint64_t checksums_end = integrity_format::EntryOffset(end);
  if (view->checksums().size() < checksums_end &&
      view->checksums_sought() < checksums_end) {
    absl::StatusOr<std::shared_ptr<const MappedView>> extended =
        mappings.Extend(MappedFileKind::kChecksums, 0, integrity_->file(),
                        integrity_format::EntryOffset(length));
    if (!extended.ok()) return view;
    view = *std::move(extended);
  }
  return mappings.Reside(width, end);
}

absl::Status RecordEngine::CheckGatheredSize(uint64_t index,
                                             const RecordLoc& loc,
                                             uint64_t destination_size,
                                             bool fixed) const {
  if (loc.logic_length != destination_size) {
    if (fixed) {
      return CorruptRecordError(absl::StrCat(
          "record ", index, " has ", loc.logic_length,
          " bytes, not the store's record width ", destination_size));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("gather: record ", index, " has ", loc.logic_length,
                     " bytes, its destination ", destination_size));
  }
  if (raw_ && loc.phys_length != loc.logic_length) {
    return CorruptRecordError(
        absl::StrCat("record ", index, " stores ", loc.phys_length,
                     " bytes for a raw record of ", loc.logic_length));
  }
  return absl::OkStatus();
}

absl::Status RecordEngine::CheckStored(uint64_t index, const RecordLoc& loc,
                                       const ChecksumEntry& entry,
                                       absl::string_view stored) const {
  if (Classify(entry, loc, stored) == Check::kDamaged) {
    return CorruptRecordError(absl::StrCat(
        files_->directory(), ": record ", index,
        " does not match the checksum written with it (damaged store)"));
  }
  return absl::OkStatus();
}

absl::Status RecordEngine::Decode(uint64_t index, absl::string_view stored,
                                  absl::Span<char> destination,
                                  DecompressionContext* context) const {
  if (raw_) {
    std::memcpy(destination.data(), stored.data(), stored.size());
    return absl::OkStatus();
  }
  absl::Status decoded = context->Decompress(stored, destination);
  if (!decoded.ok()) {
    return CorruptRecordError(
        absl::StrCat("record ", index, ": ", decoded.message()));
  }
  return absl::OkStatus();
}

size_t RecordEngine::GatherMappedRun(const MappedView& view,
                                     absl::Span<const uint64_t> indices,
                                     const Destinations& destinations, size_t i,
                                     size_t end, size_t lookahead_end,
                                     DecompressionContext* context) const {
  const FlatView flat(view);
  // Raw records of a large batch are stored around the cache, medium ones
  // without a fence each (`ChecksumAndCopy`, `CopyBytes`): `Gather` fences
  // once for each thread's runs, before the pool tells the caller.
  const bool bypass_cache = destinations.bytes >= kBypassCacheBatchBytes;
  const uint64_t* const index_at = indices.data();
  // A record costs fewer instructions than the processor looks ahead, so
  // without prefetches each record's entries and bytes are cache misses
  // paid one after another: entries are fetched `kEntriesAhead` records
  // ahead, the bytes `kBytesAhead` ahead (their entry is in cache by
  // then). Prefetches never fault: the bytes' address is checked only
  // for its chunk's number (`FlatView::StoredToPrefetch`), the copy
  // checks their bounds.
  //
  // Always inline: a function that only prefetches would be deemed
  // without effect, and its calls deleted (`FlatView::PrefetchChecksumEntry`).
  const auto prefetch_ahead = [&](size_t i, auto raw,
                                  auto verified) ABSL_ATTRIBUTE_ALWAYS_INLINE {
    constexpr bool kRaw = decltype(raw)::value;
    constexpr bool kCheck = decltype(verified)::value;
    if (ABSL_PREDICT_TRUE(i + kEntriesAhead < lookahead_end)) {
      const uint64_t ahead = index_at[i + kEntriesAhead];
      if (const char* entry = flat.Entry(ahead)) __builtin_prefetch(entry);
      if (kCheck) flat.PrefetchChecksumEntry(ahead);
    }
    if (ABSL_PREDICT_TRUE(i + kBytesAhead < lookahead_end)) {
      if (const char* entry = flat.Entry(index_at[i + kBytesAhead])) {
        const RecordLoc ahead = store_format::DecodeRecordLoc(entry);
        if (const char* stored = flat.StoredToPrefetch(ahead)) {
          const uint64_t bytes =
              kRaw ? std::min<uint64_t>(ahead.phys_length, kPrefetchedRawBytes)
              : ahead.phys_length <= kPrefetchedFrameBytes ? ahead.phys_length
                                                           : 0;
          for (uint64_t line = 0; line < bytes; line += ABSL_CACHELINE_SIZE) {
            __builtin_prefetch(stored + line);
          }
        }
      }
    }
  };
  // The loop is compiled once for each (raw, verified) pair, so each copy
  // holds only its own steps: a small record costs few enough instructions
  // that the tests and spills of the others showed (callgrind, 64 B raw).
  const auto run = [&](auto raw, auto verified) -> size_t {
    constexpr bool kRaw = decltype(raw)::value;
    constexpr bool kCheck = decltype(verified)::value;
    for (; i < end; ++i) {
      prefetch_ahead(i, raw, verified);

      const uint64_t index = index_at[i];
      const char* const entry = flat.Entry(index);
      if (ABSL_PREDICT_FALSE(entry == nullptr)) return i;
      const RecordLoc loc = store_format::DecodeRecordLoc(entry);
      const absl::Span<char> destination = destinations.at(i);
      if (ABSL_PREDICT_FALSE(loc.logic_length != destination.size() ||
                             (kRaw && loc.phys_length != loc.logic_length))) {
        return i;
      }
      const char* const stored = flat.Stored(loc);
      if (ABSL_PREDICT_FALSE(stored == nullptr)) return i;
      const absl::string_view bytes(stored, loc.phys_length);
      if constexpr (kRaw && kCheck) {
        // Hashed while copied: the stored bytes are read from memory once.
        std::optional<uint64_t> expected;
        if (ABSL_PREDICT_FALSE(!flat.BoundChecksum(index, entry, &expected))) {
          return i;
        }
        if (!expected.has_value()) {
          CopyBytes(destination.data(), bytes, bypass_cache);
        } else if (ABSL_PREDICT_FALSE(ChecksumAndCopy(bytes, destination.data(),
                                                      bypass_cache) !=
                                      *expected)) {
          return i;
        }
      } else if constexpr (kRaw) {  // Unverified.
        CopyBytes(destination.data(), bytes, bypass_cache);
      } else {
        // Decoded before it is hashed when the codec is safe on damaged
        // frames (the frame's misses are then hidden behind decoding it, and
        // the hash reads it from cache); checked first otherwise. A record
        // that fails either goes to `GatherMapped`, which checks before it
        // decodes and words the error.
        const bool check_first = kCheck && !decode_before_check_;
        if (check_first &&
            ABSL_PREDICT_FALSE(!flat.MatchesChecksum(index, entry, bytes))) {
          return i;
        }
        if (ABSL_PREDICT_FALSE(!context->Decompress(bytes, destination).ok())) {
          return i;
        }
        if (kCheck && !check_first &&
            ABSL_PREDICT_FALSE(!flat.MatchesChecksum(index, entry, bytes))) {
          return i;
        }
      }
    }
    return end;
  };
  // Verified raw records of a width the CPU hashes in vectors, copied into
  // one flat destination: located, copied and their entries gathered one
  // by one as above, then hashed and checked `kBlockRecords` at a time
  // (`checksum_internal::BlockCheck`, from the stored bytes the copies
  // have just brought into L1). A record that fails a check, or needs the
  // general path, ends the run where it is, once the records copied before it
  // are checked.
  const auto run_blocks = [&](checksum_internal::BlockCheck block_check,
                              auto fixed_width) {
    constexpr size_t kBlock = checksum_internal::kBlockRecords;
    constexpr size_t width = decltype(fixed_width)::value;
    char* const base = destinations.base;
    const char* records[kBlock];
    const char* entries[kBlock];
    const char* checksum_entries[kBlock];
    while (i < end) {
      const size_t block = i;
      const size_t block_end = std::min(end, block + kBlock);
      uint32_t unchecked = 0;  // Records whose checksum entry is empty.
      for (; i < block_end; ++i) {
        prefetch_ahead(i, std::true_type(), std::true_type());
        const uint64_t index = index_at[i];
        const char* const entry = flat.Entry(index);
        if (ABSL_PREDICT_FALSE(entry == nullptr)) break;
        const RecordLoc loc = store_format::DecodeRecordLoc(entry);
        if (ABSL_PREDICT_FALSE(loc.logic_length != width ||
                               loc.phys_length != width)) {
          break;
        }
        const char* const stored = flat.Stored(loc);
        const char* const checksum_entry = flat.ChecksumEntry(index);
        if (ABSL_PREDICT_FALSE(stored == nullptr ||
                               checksum_entry == nullptr)) {
          break;
        }
        const size_t k = i - block;
        if (integrity_format::DecodeEntry(checksum_entry).empty()) {
          unchecked |= 1u << k;
        }
        records[k] = stored;
        entries[k] = entry;
        checksum_entries[k] = checksum_entry;
        std::memcpy(base + i * width, stored, width);
      }
      if (i > block) {
        const uint32_t failed =
            block_check(records, width, entries, checksum_entries, i - block) &
            ~unchecked;
        if (ABSL_PREDICT_FALSE(failed != 0)) {
          return block + static_cast<size_t>(std::countr_zero(failed));
        }
      }
      if (ABSL_PREDICT_FALSE(i < block_end)) return i;
    }
    return end;
  };
  // Verified raw records covered by the resident index (made for their
  // width): each record's resident entry gives its location and checksum,
  // whose binding to the table entry was checked when the entry was made.
  // Records of 64 and 128 bytes are checked `kBlockRecords` at a time by
  // `block_check` where the CPU has one; others, and on other CPUs, each
  // is hashed as it is copied. A record the index does not cover, whose
  // entry is `kNotResident` or whose bytes lie past the view's chunk, or
  // that fails its check ends the run there, once the records copied
  // before it are checked.
  const auto run_resident = [&](checksum_internal::BlockCheck block_check,
                                auto fixed_width) {
    constexpr size_t kBlock = checksum_internal::kBlockRecords;
    // A constant for the widths compiled apart, so their copies are inline.
    const size_t width = fixed_width;
    const ResidentEntry* const resident = view.resident();
    const uint64_t covered = view.resident_count();
    const absl::Span<const absl::string_view> chunks = view.chunks();
    const uint32_t chunk_count =
        static_cast<uint32_t>(std::min<size_t>(chunks.size(), kNotResident));
    char* const base = destinations.base;
    const auto prefetch = [&](size_t i) ABSL_ATTRIBUTE_ALWAYS_INLINE {
      if (ABSL_PREDICT_TRUE(i + kEntriesAhead < lookahead_end)) {
        const uint64_t ahead = index_at[i + kEntriesAhead];
        if (ahead < covered) __builtin_prefetch(resident + ahead);
      }
      if (ABSL_PREDICT_TRUE(i + kBytesAhead < lookahead_end)) {
        const uint64_t ahead = index_at[i + kBytesAhead];
        if (ahead < covered && resident[ahead].chunk_id < chunk_count) {
          // Never faults, even past the chunk's end.
          const char* const stored =
              chunks[resident[ahead].chunk_id].data() + resident[ahead].offset;
          for (size_t line = 0; line < width; line += ABSL_CACHELINE_SIZE) {
            __builtin_prefetch(stored + line);
          }
        }
      }
    };
    // Where record `i` lies, or null if it needs the general path.
    const auto locate = [&](size_t i,
                            const ResidentEntry** entry) -> const char* {
      const uint64_t index = index_at[i];
      if (ABSL_PREDICT_FALSE(index >= covered)) return nullptr;
      *entry = resident + index;
      const uint32_t chunk_id = (*entry)->chunk_id;
      if (ABSL_PREDICT_FALSE(chunk_id >= chunk_count ||
                             uint64_t{(*entry)->offset} + width >
                                 chunks[chunk_id].size())) {
        return nullptr;
      }
      return chunks[chunk_id].data() + (*entry)->offset;
    };
    // A local position: `i` is a reference the compiler would store to
    // memory at every record (the copies might alias it).
    size_t at = i;
    if (block_check == nullptr) {
      for (; at < end; ++at) {
        prefetch(at);
        const ResidentEntry* entry;
        const char* const stored = locate(at, &entry);
        if (ABSL_PREDICT_FALSE(stored == nullptr)) return at;
        if (ABSL_PREDICT_FALSE(ChecksumAndCopy(absl::string_view(stored, width),
                                               base + at * width,
                                               bypass_cache) !=
                               entry->checksum)) {
          return at;
        }
      }
      return end;
    }
    const char* records[kBlock];
    const char* entries[kBlock];
    while (at < end) {
      const size_t block = at;
      const size_t block_end = std::min(end, block + kBlock);
      for (; at < block_end; ++at) {
        prefetch(at);
        const ResidentEntry* entry;
        const char* const stored = locate(at, &entry);
        if (ABSL_PREDICT_FALSE(stored == nullptr)) break;
        records[at - block] = stored;
        entries[at - block] = reinterpret_cast<const char*>(entry);
        std::memcpy(base + at * width, stored, width);
      }
      if (at > block) {
        const uint32_t failed =
            block_check(records, width, nullptr, entries, at - block);
        if (ABSL_PREDICT_FALSE(failed != 0)) {
          return block + static_cast<size_t>(std::countr_zero(failed));
        }
      }
      if (ABSL_PREDICT_FALSE(at < block_end)) return at;
    }
    return end;
  };
  const bool check = verify_ && integrity_ != nullptr;
  if (raw_ && check && destinations.spans.empty() &&
      view.resident_width() == destinations.width && i < end &&
      index_at[i] < view.resident_count()) {
    const checksum_internal::BlockCheck block_check =
        checksum_internal::BestBlockCheck();
    switch (destinations.width) {
      case 64:
        return run_resident(block_check, std::integral_constant<size_t, 64>());
      case 128:
        return run_resident(block_check, std::integral_constant<size_t, 128>());
      default:  // Hashed as they are copied.
        return run_resident(nullptr, size_t{destinations.width});
    }
  }
  if (raw_) {
    // Only flat destinations (`spans` empty: `base` and `width` are set),
    // and only the widths the block check hashes in vectors.
    const checksum_internal::BlockCheck block_check =
        check && destinations.spans.empty()
            ? checksum_internal::BestBlockCheck()
            : nullptr;
    if (block_check != nullptr) {
      switch (destinations.width) {
        case 64:
          return run_blocks(block_check, std::integral_constant<size_t, 64>());
        case 128:
          return run_blocks(block_check, std::integral_constant<size_t, 128>());
      }
    }
    return check ? run(std::true_type(), std::true_type())
                 : run(std::true_type(), std::false_type());
  }
  return check ? run(std::false_type(), std::true_type())
               : run(std::false_type(), std::false_type());
}

absl::Status RecordEngine::GatherMapped(std::shared_ptr<const MappedView>& view,
                                        uint64_t length, uint64_t index,
                                        absl::Span<char> destination,
                                        bool fixed,
                                        DecompressionContext* context) const {
  // Fast paths inline: the view covers the entry, the bytes and the
  // checksum, and nothing is overlaid. The out-of-line calls extend the
  // view or read the overlay.
  const bool overlaid = !overlay_.empty();
  RecordLoc loc;
  // The entry's own bytes, when it came from the mapped table: its
  // checksum binding is their hash.
  const char* entry_bytes = nullptr;
  const absl::string_view segment = view->segment(SegmentOf(index));
  const uint64_t at = OffsetInSegment(index);
  if (ABSL_PREDICT_TRUE(!overlaid && at + kRecordLocBytes <= segment.size())) {
    entry_bytes = segment.data() + at;
    loc = store_format::DecodeRecordLoc(entry_bytes);
  } else {
    LOADERX_ASSIGN_OR_RETURN(loc, MappedLoc(view, length, index));
  }
  if (ABSL_PREDICT_FALSE(loc.logic_length != destination.size() ||
                         (raw_ && loc.phys_length != loc.logic_length))) {
    return CheckGatheredSize(index, loc, destination.size(), fixed);
  }
  // The stored bytes, bounded by the chunk's mapped (so existing) bytes.
  const uint64_t stored_end = uint64_t{loc.offset} + loc.phys_length;
  if (ABSL_PREDICT_FALSE(view->chunk(loc.chunk_id).size() < stored_end)) {
    LOADERX_ASSIGN_OR_RETURN(VfsFile * chunk, files_->Chunk(loc.chunk_id));
    LOADERX_ASSIGN_OR_RETURN(
        view, files_->mappings().Extend(MappedFileKind::kChunk, loc.chunk_id,
                                        *chunk, CommittedChunkBytes(loc)));
    if (view->chunk(loc.chunk_id).size() < stored_end) {
      return PastChunkEndError(chunk->path(), index);
    }
  }
  const absl::string_view stored(view->chunk(loc.chunk_id).data() + loc.offset,
                                 loc.phys_length);
  // `stored` lies in this view's regions: keep them while `view` may be
  // replaced below (extended to the record's checksum entry).
  const std::shared_ptr<const MappedView> stored_view = view;
  if (verify_ && (integrity_ != nullptr || overlaid)) {
    ChecksumEntry entry;
    const uint64_t entry_end =
        integrity_format::EntryOffset(index) + kEntryBytes;
    if (ABSL_PREDICT_TRUE(!overlaid && entry_end <= view->checksums().size())) {
      entry = integrity_format::DecodeEntry(view->checksums().data() +
                                            entry_end - kEntryBytes);
    } else {
      LOADERX_ASSIGN_OR_RETURN(entry, MappedChecksum(view, length, index));
    }
    if (!entry.empty() && entry_bytes != nullptr) {
      // The binding is the hash of the encoded entry: hash the mapped one.
      if (ABSL_PREDICT_FALSE(Checksum16(entry_bytes) != entry.binding ||
                             Checksum(stored) != entry.checksum)) {
        LOADERX_RETURN_IF_ERROR(CheckStored(index, loc, entry, stored));
      }
    } else if (ABSL_PREDICT_FALSE(Classify(entry, loc, stored) ==
                                  Check::kDamaged)) {
      return CheckStored(index, loc, entry, stored);
    }
  }
  if (raw_) {
    std::memcpy(destination.data(), stored.data(), stored.size());
    return absl::OkStatus();
  }
  return Decode(index, stored, destination, context);
}

absl::StatusOr<RecordLoc> RecordEngine::MappedLoc(
    std::shared_ptr<const MappedView>& view, uint64_t length,
    uint64_t index) const {
  if (!overlay_.empty()) {
    if (auto it = overlay_.find(index); it != overlay_.end()) {
      return it->second.loc;
    }
  }
  const uint64_t segment_id = SegmentOf(index);
  const uint64_t entry_end = OffsetInSegment(index) + kRecordLocBytes;
  if (ABSL_PREDICT_FALSE(view->segment(segment_id).size() < entry_end)) {
    // Map every entry committed in this segment so far.
    const uint64_t first = segment_id * store_format::kEntriesPerSegment;
    const uint64_t committed =
        std::min(length - first, store_format::kEntriesPerSegment);
    LOADERX_ASSIGN_OR_RETURN(VfsFile * segment, files_->Segment(segment_id));
    LOADERX_ASSIGN_OR_RETURN(
        view, files_->mappings().Extend(MappedFileKind::kSegment, segment_id,
                                        *segment, committed * kRecordLocBytes));
    if (view->segment(segment_id).size() < entry_end) {
      return store_format::MissingEntryError(segment->path(), index);
    }
  }
  return store_format::DecodeRecordLoc(view->segment(segment_id).data() +
                                       entry_end - kRecordLocBytes);
}

absl::StatusOr<ChecksumEntry> RecordEngine::MappedChecksum(
    std::shared_ptr<const MappedView>& view, uint64_t length,
    uint64_t index) const {
  if (!overlay_.empty()) {
    if (auto it = overlay_.find(index); it != overlay_.end()) {
      return it->second.checksum;
    }
  }
  if (integrity_ == nullptr) return ChecksumEntry{};
  const uint64_t entry_end = integrity_format::EntryOffset(index) + kEntryBytes;
  if (ABSL_PREDICT_FALSE(view->checksums().size() < entry_end &&
                         view->checksums_sought() < entry_end)) {
    LOADERX_ASSIGN_OR_RETURN(
        view, files_->mappings().Extend(MappedFileKind::kChecksums, 0,
                                        integrity_->file(),
                                        integrity_format::EntryOffset(length)));
  }
  // Records appended by a program that does not keep checksums.lx have no
  // entry.
  if (view->checksums().size() < entry_end) return ChecksumEntry{};
  return integrity_format::DecodeEntry(view->checksums().data() + entry_end -
                                       kEntryBytes);
}

uint64_t RecordEngine::CommittedChunkBytes(const RecordLoc& loc) const {
  const uint64_t frontier = frontier_.load(std::memory_order_acquire);
  const uint64_t tail_chunk = frontier >> 32;
  // A chunk before the tail is never appended to again: all of it.
  if (loc.chunk_id < tail_chunk) return std::numeric_limits<uint64_t>::max();
  if (loc.chunk_id == tail_chunk) return frontier & 0xFFFFFFFFu;
  return 0;  // Past the frontier: a damaged entry.
}

absl::Status RecordEngine::GatherOne(uint64_t index, const RecordLoc& loc,
                                     absl::Span<char> destination, bool fixed,
                                     DecompressionContext* context,
                                     std::string& staging) const {
  LOADERX_RETURN_IF_ERROR(
      CheckGatheredSize(index, loc, destination.size(), fixed));
  LOADERX_ASSIGN_OR_RETURN(VfsFile * chunk, files_->Chunk(loc.chunk_id));
  // Raw records are read straight into their destination. Compressed ones
  // are staged: bounded by the chunk's size, which `Open` checked the
  // entry against.
  absl::Span<char> stored = destination;
  if (!raw_) {
    staging.resize(loc.phys_length);
    stored = absl::MakeSpan(staging);
  }
  absl::Status read = chunk->ReadAt(loc.offset, stored);
  if (absl::IsOutOfRange(read)) return PastChunkEndError(chunk->path(), index);
  LOADERX_RETURN_IF_ERROR(read);
  const absl::string_view bytes(stored.data(), stored.size());
  if (verify_ && (integrity_ != nullptr || !overlay_.empty())) {
    LOADERX_ASSIGN_OR_RETURN(const ChecksumEntry entry, ReadChecksum(index));
    LOADERX_RETURN_IF_ERROR(CheckStored(index, loc, entry, bytes));
  }
  if (raw_) return absl::OkStatus();
  return Decode(index, bytes, destination, context);
}

}  // namespace loaderx
