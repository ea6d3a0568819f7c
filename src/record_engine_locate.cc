// `RecordEngine::LocatePairs`: the first pass of a read of records stored
// in pairs (a shaped record's payload and its shape record). Through the
// mappings it reads both table entries, the companion's checksum entry and
// its stored bytes straight from the mapped files, in one pass over the
// batch with no lock or allocation per record (an inline loop over a
// `FlatView`, a raw companion visited where it lies, and anything unusual
// handed to the general per-record step); where the VFS does not map,
// it reads the entries in runs and each companion through `ReadAt`. Either
// way the companion goes through the gather's own per-record step
// (`GatherMapped` or `GatherOne`), so it is checked, and its errors are
// worded, exactly as a gather's.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/optimization.h"
#include "absl/strings/str_cat.h"
#include "loaderx/spi/status_macros.h"
#include "src/flat_view.h"
#include "src/record_engine.h"

namespace loaderx {
namespace {

using store_format::kRecordLocBytes;
using store_format::OffsetInSegment;
using store_format::RecordLoc;
using store_format::SegmentOf;

// How far ahead the inline path of `LocatePairs` prefetches.
constexpr size_t kPairsAhead = 8;
constexpr size_t kBytesAhead = 4;

// OutOfRange unless both records of every pair exist (as `CheckIndices`,
// naming the first missing record and its pair's position).
absl::Status CheckPairs(absl::Span<const uint64_t> firsts, uint64_t length) {
  for (size_t i = 0; i < firsts.size(); ++i) {
    if (ABSL_PREDICT_FALSE(firsts[i] >= length || length - firsts[i] < 2)) {
      const uint64_t missing = firsts[i] >= length ? firsts[i] : firsts[i] + 1;
      return absl::OutOfRangeError(absl::StrCat("index ", missing, " (pair ", i,
                                                ") is out of range for ",
                                                length, " records"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RecordEngine::LocatePairs(
    absl::Span<const uint64_t> firsts, uint64_t max_companion_bytes,
    absl::Span<RecordLoc> payload_locs,
    absl::FunctionRef<absl::Status(size_t, uint64_t)> oversized,
    absl::FunctionRef<absl::Status(size_t, absl::string_view)> visit) const {
  if (payload_locs.size() != firsts.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("locate: ", firsts.size(), " pairs but ",
                     payload_locs.size(), " table entries"));
  }
  const uint64_t length = this->length();
  LOADERX_RETURN_IF_ERROR(CheckPairs(firsts, length));
  DecompressionContextPool::Lease context;
  if (!raw_) {
    LOADERX_ASSIGN_OR_RETURN(context, decompression_contexts_.Acquire());
  }
  // One buffer for every companion: each is checked and visited before
  // the next is read.
  ScratchBuffer scratch;
  const absl::Span<char> buffer = scratch.Get(max_companion_bytes);
  size_t i = 0;
  StoreMappings& mappings = files_->mappings();
  if (mappings.enabled()) {
    std::shared_ptr<const MappedView> view = mappings.Current();
    const bool overlaid = !overlay_.empty();
    // Made again whenever the general path below replaces `view`
    // (extended to a record past the mapped prefix); `flat_of` keeps the
    // view `flat` points into alive until then (a pointer compared with a
    // freed view's could match the next one's).
    FlatView flat(*view);
    std::shared_ptr<const MappedView> flat_of = view;
    const bool check = verify_ && integrity_ != nullptr;
    // The inline path for pair `k` (nothing overlaid; both entries, the
    // companion's bytes and its checksum entry mapped; the bytes match):
    // the companion visited where it lies (raw) or decoded into `buffer`.
    // False hands the pair to the general path below, which reports.
    const auto visit_inline = [&](size_t k, absl::Status& visited) {
      const char* const entry = flat.Entry(firsts[k]);
      const char* const companion_entry = flat.Entry(firsts[k] + 1);
      if (ABSL_PREDICT_FALSE(entry == nullptr || companion_entry == nullptr)) {
        return false;
      }
      const RecordLoc companion =
          store_format::DecodeRecordLoc(companion_entry);
      const char* const stored = flat.Stored(companion);
      if (ABSL_PREDICT_FALSE(
              stored == nullptr ||
              companion.logic_length > max_companion_bytes ||
              (raw_ && companion.phys_length != companion.logic_length) ||
              (check && !flat.MatchesChecksum(firsts[k] + 1, companion,
                                              companion_entry, stored)))) {
        return false;
      }
      absl::string_view bytes(stored, companion.phys_length);
      if (!raw_) {
        const absl::Span<char> decoded =
            buffer.subspan(0, companion.logic_length);
        if (ABSL_PREDICT_FALSE(
                !context.get()->Decompress(bytes, decoded).ok())) {
          return false;
        }
        bytes = absl::string_view(decoded.data(), decoded.size());
      }
      payload_locs[k] = store_format::DecodeRecordLoc(entry);
      visited = visit(k, bytes);
      return true;
    };
    for (; i < firsts.size(); ++i) {
      const uint64_t index = firsts[i];
      if (ABSL_PREDICT_FALSE(view != flat_of)) {
        flat = FlatView(*view);
        flat_of = view;
      }
      if (ABSL_PREDICT_TRUE(!overlaid)) {
        // A pair costs fewer instructions than the processor looks ahead:
        // fetch entries `kPairsAhead` pairs ahead, the companion's checksum
        // entry and bytes (their entries in cache by then) `kBytesAhead`.
        if (ABSL_PREDICT_TRUE(i + kPairsAhead < firsts.size())) {
          if (const char* ahead = flat.Entry(firsts[i + kPairsAhead])) {
            __builtin_prefetch(ahead);
            __builtin_prefetch(ahead + 2 * kRecordLocBytes - 1);
          }
        }
        if (ABSL_PREDICT_TRUE(i + kBytesAhead < firsts.size())) {
          const uint64_t ahead = firsts[i + kBytesAhead] + 1;
          if (const char* entry = flat.Entry(ahead)) {
            if (const char* stored =
                    flat.Stored(store_format::DecodeRecordLoc(entry))) {
              __builtin_prefetch(stored);
            }
          }
          flat.PrefetchChecksumEntry(ahead);
        }
        absl::Status visited;
        if (ABSL_PREDICT_TRUE(visit_inline(i, visited))) {
          LOADERX_RETURN_IF_ERROR(visited);
          continue;
        }
      }
      RecordLoc companion;
      // The fast path: both entries in the mapped prefix of one segment.
      const absl::string_view segment = view->segment(SegmentOf(index));
      const uint64_t at = OffsetInSegment(index);
      if (ABSL_PREDICT_TRUE(!overlaid &&
                            SegmentOf(index + 1) == SegmentOf(index) &&
                            at + 2 * kRecordLocBytes <= segment.size())) {
        payload_locs[i] = store_format::DecodeRecordLoc(segment.data() + at);
        companion = store_format::DecodeRecordLoc(segment.data() + at +
                                                  kRecordLocBytes);
      } else {
        absl::StatusOr<RecordLoc> payload = MappedLoc(view, length, index);
        if (absl::IsUnimplemented(payload.status())) break;
        LOADERX_RETURN_IF_ERROR(payload.status());
        payload_locs[i] = *payload;
        absl::StatusOr<RecordLoc> second = MappedLoc(view, length, index + 1);
        if (absl::IsUnimplemented(second.status())) break;
        LOADERX_RETURN_IF_ERROR(second.status());
        companion = *second;
      }
      if (ABSL_PREDICT_FALSE(companion.logic_length > max_companion_bytes)) {
        return oversized(i, companion.logic_length);
      }
      const absl::Span<char> bytes = buffer.subspan(0, companion.logic_length);
      absl::Status read = GatherMapped(view, length, index + 1, &companion,
                                       bytes, /*fixed=*/false, context.get());
      if (ABSL_PREDICT_FALSE(!read.ok())) {
        if (absl::IsUnimplemented(read)) break;  // Declined to map.
        return read;
      }
      LOADERX_RETURN_IF_ERROR(
          visit(i, absl::string_view(bytes.data(), bytes.size())));
    }
    if (i == firsts.size()) return absl::OkStatus();
  }
  // Positional reads: the rest's entries in runs (each pair is one), then
  // each companion.
  std::vector<uint64_t> physical(2 * (firsts.size() - i));
  std::vector<RecordLoc> locs(physical.size());
  for (size_t k = 0; k < firsts.size() - i; ++k) {
    physical[2 * k] = firsts[i + k];
    physical[2 * k + 1] = firsts[i + k] + 1;
  }
  LOADERX_RETURN_IF_ERROR(ReadLocRuns(physical, absl::MakeSpan(locs)));
  std::string staging;
  for (size_t k = 0; i < firsts.size(); ++i, ++k) {
    payload_locs[i] = locs[2 * k];
    const RecordLoc& companion = locs[2 * k + 1];
    if (companion.logic_length > max_companion_bytes) {
      return oversized(i, companion.logic_length);
    }
    const absl::Span<char> bytes = buffer.subspan(0, companion.logic_length);
    LOADERX_RETURN_IF_ERROR(GatherOne(firsts[i] + 1, companion, bytes,
                                      /*fixed=*/false, context.get(), staging));
    LOADERX_RETURN_IF_ERROR(
        visit(i, absl::string_view(bytes.data(), bytes.size())));
  }
  return absl::OkStatus();
}

}  // namespace loaderx
