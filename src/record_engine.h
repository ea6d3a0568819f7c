// `RecordEngine` is the physical record store beneath the typed Dense and
// Ragged stores: an unordered collection of N independent byte records,
// addressed by a dense index space 0..N, persisted in the layout of
// `store_format.h` through a `Vfs`. It knows nothing of dtypes or shapes:
// the typed owners describe their records' geometry and call the fixed- or
// variable-width operations.
//
// Lifetime and locking: one engine owns a store at a time through an
// exclusive lock on meta.zr, held from `Create`/`Open` until destruction; a
// second engine, in this process or another, fails with an `IsBusy` status.
//
// Writes: appends are page-cache writes published by rewriting the header's
// length (payload, then record table, then header), so a failed append
// commits nothing. `Sync` makes everything appended so far durable, in the
// same order. Records are immutable once committed.
//
// Thread safety: `Gather*`, `RecordSizes`, `length` and `Stats` may run
// from many threads at once, also while one thread appends. Appends are
// single-writer (serialised internally). `Delete` must not overlap any
// other call: it rewrites table entries a concurrent reader could see
// half-applied.
//
// Errors: InvalidArgument for bad input (empty records, a destination of the
// wrong size; oversized records also carry `ErrorCode::kRecordTooLarge`),
// OutOfRange naming the offending index, DataLoss for a damaged or foreign
// store (`ErrorCode::kCorruptRecord` attached when one record does not
// decode), busy for a store held elsewhere, and the VFS's own errors for I/O
// failures. A call that fails on bad input has changed nothing.

#ifndef LOADERX_SRC_RECORD_ENGINE_H_
#define LOADERX_SRC_RECORD_ENGINE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loaderx/codec.h"
#include "loaderx/store_options.h"
#include "loaderx/thread_pool.h"
#include "loaderx/vfs.h"
#include "src/store_files.h"
#include "src/store_format.h"

namespace loaderx {

struct RecordEngineOptions {
  // The codec's registered name, and its dictionary for "zstd_dict".
  std::string codec = "raw";
  CodecOptions codec_options;
  // Raw appends pack contiguous records into vectored writes of at most
  // this many bytes (`tools/bench/vfs_write_benchmark.cc` measures why).
  uint64_t flush_bytes = 256 << 10;
  // The pool compression and gathers run on; null means the process's
  // `DefaultThreadPool()`.
  std::shared_ptr<ThreadPool> thread_pool;
  // Appends roll over to a new chunk file before one would grow past this
  // (at most 2^32 - 1, the 32-bit offset range). Smaller values only serve
  // tests; a record larger than it gets a chunk of its own.
  uint64_t chunk_capacity = store_format::kChunkCapacity - 1;
};

class RecordEngine {
 public:
  // Creates a store in `directory`, creating it and any missing parents.
  // The directory must be empty, or hold only what a creation that never
  // finished left (meta.zr empty or a header of no records, 0.chunk,
  // dict.zr; no store.zr): that is taken over and done again. Anything
  // else is AlreadyExists; a creation in progress elsewhere is busy.
  // Order, as the reference: meta.zr (exclusive, locked), its header,
  // 0.chunk, dict.zr, sync. The typed layer then writes store.zr.
  static absl::StatusOr<std::unique_ptr<RecordEngine>> Create(
      Vfs& vfs, absl::string_view directory,
      const RecordEngineOptions& options);

  // Opens the store in `directory`, validating its header, dictionary,
  // chunks and every record-table entry (`store_format::CheckRecordLoc`,
  // and each record inside its chunk file). `options.codec` and its
  // dictionary are ignored: the store's own are used (with
  // `options.codec_options.level` for this handle's appends).
  static absl::StatusOr<std::unique_ptr<RecordEngine>> Open(
      Vfs& vfs, absl::string_view directory,
      const RecordEngineOptions& options = {});

  ~RecordEngine();
  RecordEngine(const RecordEngine&) = delete;
  RecordEngine& operator=(const RecordEngine&) = delete;

  // Committed physical records.
  uint64_t length() const { return length_.load(std::memory_order_acquire); }

  const Codec& codec() const { return *codec_; }

  // The pool this engine's calls shard their work across, for callers that
  // split a batch of their own (a typed layout's reads).
  ThreadPool& thread_pool() const { return *pool_; }

  // Appends `count` records of `width` bytes each, stored back to back in
  // `data` (`count * width` bytes). Returns the index of the first.
  absl::StatusOr<uint64_t> AppendFixed(absl::string_view data, uint64_t count,
                                       uint64_t width);

  // Appends one record per element of `records`. Returns the first index.
  absl::StatusOr<uint64_t> AppendVariable(
      absl::Span<const absl::string_view> records);

  // Decodes the records at `indices` into `destination`, record i at
  // `i * width`; every record must be exactly `width` bytes (DataLoss
  // otherwise) and `destination` exactly `indices.size() * width` bytes.
  absl::Status GatherFixed(absl::Span<const uint64_t> indices, uint64_t width,
                           absl::Span<char> destination) const;

  // The original sizes of the records at `indices`.
  absl::StatusOr<std::vector<uint64_t>> RecordSizes(
      absl::Span<const uint64_t> indices) const;

  // The record-table entries of the records at `indices`, read once, for a
  // caller that needs the sizes of records before it gathers them.
  absl::StatusOr<std::vector<store_format::RecordLoc>> Locate(
      absl::Span<const uint64_t> indices) const;

  // `GatherVariable` for records already located: record `indices[i]`,
  // whose entry is `locs[i]`, into `destinations[i]`.
  absl::Status GatherLocated(
      absl::Span<const uint64_t> indices,
      absl::Span<const store_format::RecordLoc> locs,
      absl::Span<const absl::Span<char>> destinations) const;

  // Decodes record `indices[i]` into `destinations[i]`, which must be
  // exactly its size (see `RecordSizes`).
  absl::Status GatherVariable(
      absl::Span<const uint64_t> indices,
      absl::Span<const absl::Span<char>> destinations) const;

  // Deletes the records at `indices` by moving the last records into their
  // places (indices stay dense; the moved records are renumbered). An index
  // listed more than once is deleted once, as in the reference.
  absl::Status Delete(absl::Span<const uint64_t> indices);

  // records = length; live_bytes = the stored bytes of the live records;
  // chunk_bytes = the frontier's address, tail_chunk * 2^32 + tail_offset
  // (the reference's measure); reclaimable = chunk_bytes - live_bytes.
  absl::StatusOr<StoreStats> Stats() const;

  // Reclaims the bytes deleted records left behind, in place: live records
  // are repacked in physical order (so none ever moves to a higher address
  // and no scratch copy is needed), each table entry is rewritten as soon as
  // its record lands, chunk files past the new frontier are removed and the
  // last one and the record table are truncated. An interrupted compaction
  // leaves a consistent store; running it again finishes the job. Offline:
  // no other call may overlap it. Ends with a `Sync`.
  absl::Status Compact();

  // Makes every committed append and delete durable: chunks, then the
  // record table, then the header.
  absl::Status Sync();

 private:
  // One record on its way to disk: the bytes to store (the caller's own
  // for raw stores, else the compressed frame in `owned`) and the size it
  // decodes to.
  struct Frame {
    absl::string_view borrowed;  // Raw stores: the caller's bytes.
    std::string owned;           // Compressed stores: the frame.
    uint64_t original_size = 0;

    absl::string_view stored() const {
      return borrowed.data() != nullptr ? borrowed : absl::string_view(owned);
    }
  };

  RecordEngine(std::unique_ptr<StoreFiles> files, std::unique_ptr<Codec> codec,
               const RecordEngineOptions& options,
               const store_format::PhysicalHeader& header);

  absl::StatusOr<store_format::RecordLoc> ReadLoc(uint64_t index) const;
  // The entries of `indices` into `locs`, runs of consecutive indices read
  // in one call.
  absl::Status ReadLocRuns(absl::Span<const uint64_t> indices,
                           absl::Span<store_format::RecordLoc> locs) const;
  // Checks every table entry, as `Open` promises.
  absl::Status CheckTable() const;
  // Calls `visit(index, loc)` for the first `count` table entries, in order.
  absl::Status ForEachLoc(
      uint64_t count,
      const std::function<void(uint64_t, const store_format::RecordLoc&)>&
          visit) const;
  absl::StatusOr<std::vector<Frame>> Encode(
      absl::Span<const absl::string_view> records);
  absl::StatusOr<uint64_t> Commit(const std::vector<Frame>& frames);
  absl::Status WritePayloads(const std::vector<Frame>& frames,
                             const std::vector<store_format::RecordLoc>& locs);
  absl::Status WriteLocs(uint64_t first,
                         absl::Span<const store_format::RecordLoc> locs);
  absl::Status WriteHeader(const store_format::PhysicalHeader& header);
  // Gathers with `locs[i]` for record i, or with entries read as it goes
  // when `locs` is empty.
  absl::Status Gather(absl::Span<const uint64_t> indices,
                      absl::Span<const store_format::RecordLoc> locs,
                      absl::Span<const absl::Span<char>> destinations,
                      bool fixed) const;
  absl::Status GatherOne(uint64_t index, const store_format::RecordLoc& loc,
                         absl::Span<char> destination, bool fixed,
                         DecompressionContext* context,
                         std::string& staging) const;

  const std::unique_ptr<StoreFiles> files_;
  const std::unique_ptr<Codec> codec_;
  const bool raw_;  // The codec stores records verbatim.
  const uint64_t flush_bytes_;
  const uint64_t chunk_capacity_;
  const std::shared_ptr<ThreadPool> pool_;

  // Serialises appends, deletes and syncs (the single writer); `Stats`
  // takes it for a consistent snapshot.
  mutable std::mutex writer_mu_;
  store_format::PhysicalHeader header_;  // Guarded by `writer_mu_`.
  std::atomic<uint64_t> length_{0};      // Published after each commit.
};

}  // namespace loaderx

#endif  // LOADERX_SRC_RECORD_ENGINE_H_
