// `RecordEngine`'s inner gather loops over a mapped view
// (`GatherMappedRun`). Each loop gathers records until one needs the general
// path
// (`GatherMapped`, in record_engine_gather.cc), which extends the view,
// reads an overlay or words the error; the loops themselves never report.

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/types/span.h"
#include "src/checksum.h"
#include "src/checksum_kernels.h"
#include "src/flat_view.h"
#include "src/integrity_format.h"
#include "src/record_engine.h"
#include "src/resident_index.h"
#include "src/store_format.h"
#include "src/store_mappings.h"

namespace loaderx {
namespace {

using store_format::RecordLoc;

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

// The block loop of a verified gather whose records are checked
// `kBlockRecords` at a time, for positions [at, end): `take(at, k)`
// locates the record at position `at` (the k-th of its block), copies it
// and keeps what `check` needs, or returns false if it needs the general
// path; `check(count)` returns the mask of the block's first `count`
// records that fail. Returns the position of the first record that fails
// or needs the general path (the records copied before it are checked
// first), or `end`.
template <typename Take, typename Check>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline size_t GatherInBlocks(size_t at, size_t end,
                                                          const Take& take,
                                                          const Check& check) {
  while (at < end) {
    const size_t block = at;
    const size_t block_end =
        std::min(end, block + checksum_internal::kBlockRecords);
    while (at < block_end && take(at, at - block)) ++at;
    if (at > block) {
      const uint32_t failed = check(at - block);
      if (ABSL_PREDICT_FALSE(failed != 0)) {
        return block + static_cast<size_t>(std::countr_zero(failed));
      }
    }
    if (ABSL_PREDICT_FALSE(at < block_end)) return at;
  }
  return end;
}

}  // namespace

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
    uint32_t unchecked = 0;  // The block's records with an empty entry.
    const auto take = [&](size_t position,
                          size_t k) ABSL_ATTRIBUTE_ALWAYS_INLINE {
      prefetch_ahead(position, std::true_type(), std::true_type());
      const uint64_t index = index_at[position];
      const char* const entry = flat.Entry(index);
      if (ABSL_PREDICT_FALSE(entry == nullptr)) return false;
      const RecordLoc loc = store_format::DecodeRecordLoc(entry);
      if (ABSL_PREDICT_FALSE(loc.logic_length != width ||
                             loc.phys_length != width)) {
        return false;
      }
      const char* const stored = flat.Stored(loc);
      const char* const checksum_entry = flat.ChecksumEntry(index);
      if (ABSL_PREDICT_FALSE(stored == nullptr || checksum_entry == nullptr)) {
        return false;
      }
      if (integrity_format::DecodeEntry(checksum_entry).empty()) {
        unchecked |= 1u << k;
      }
      records[k] = stored;
      entries[k] = entry;
      checksum_entries[k] = checksum_entry;
      std::memcpy(base + position * width, stored, width);
      return true;
    };
    const auto check = [&](size_t count) ABSL_ATTRIBUTE_ALWAYS_INLINE {
      const uint32_t failed =
          block_check(records, width, entries, checksum_entries, count) &
          ~unchecked;
      unchecked = 0;
      return failed;
    };
    return GatherInBlocks(i, end, take, check);
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
    const auto prefetch = [&](size_t position) ABSL_ATTRIBUTE_ALWAYS_INLINE {
      if (ABSL_PREDICT_TRUE(position + kEntriesAhead < lookahead_end)) {
        const uint64_t ahead = index_at[position + kEntriesAhead];
        if (ahead < covered) __builtin_prefetch(resident + ahead);
      }
      if (ABSL_PREDICT_TRUE(position + kBytesAhead < lookahead_end)) {
        const uint64_t ahead = index_at[position + kBytesAhead];
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
    // Where the record at `position` lies, or null if it needs the general
    // path.
    const auto locate = [&](size_t position,
                            const ResidentEntry** entry) -> const char* {
      const uint64_t index = index_at[position];
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
    const auto take = [&](size_t position, size_t k)
                          ABSL_ATTRIBUTE_ALWAYS_INLINE {
                            prefetch(position);
                            const ResidentEntry* entry;
                            const char* const stored = locate(position, &entry);
                            if (ABSL_PREDICT_FALSE(stored == nullptr))
                              return false;
                            records[k] = stored;
                            entries[k] = reinterpret_cast<const char*>(entry);
                            std::memcpy(base + position * width, stored, width);
                            return true;
                          };
    const auto check = [&](size_t count) ABSL_ATTRIBUTE_ALWAYS_INLINE {
      return block_check(records, width, nullptr, entries, count);
    };
    return GatherInBlocks(at, end, take, check);
  };
  const bool check = verify_ && Integrity() != nullptr;
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

}  // namespace loaderx
