// `RecordEngine` is the physical record store beneath the typed Dense and
// Ragged stores: an unordered collection of N independent byte records,
// addressed by a dense index space 0..N, persisted in the layout of
// `store_format.h` through a `Vfs`. It knows nothing of dtypes or shapes:
// the typed owners describe their records' geometry and call the fixed- or
// variable-width operations.
//
// Lifetime and locking: a writable engine owns a store through an exclusive
// lock on meta.zr, held from `Create`/`Open` until destruction; a second
// engine, in this process or another, fails with an `IsBusy` status. A
// read-only engine (`RecordEngineOptions::read_only`) opens every file
// read-only and holds a shared lock: read-only engines coexist, a writer
// and readers exclude each other.
//
// Durability (docs/design.md has the protocols): appends are page-cache
// writes published by rewriting the header's length (payload, checksum
// entries, record table, header), so a failed append commits nothing, and
// `Sync` makes them durable in that order. `Delete` and `Compact` are
// durable when they return and atomic under a crash at any instant: each
// step's table rewrite goes through journal.lx, and compaction never writes
// over bytes a durable table entry points at. `Open` finishes an
// interrupted step (a read-only open applies it in memory).
//
// Integrity: every record this library writes gets a checksum in
// checksums.lx, bound to its table entry, and (with `verify_checksums`)
// every read is checked against it. `Open` validates the header and every
// table entry against the files before anything is read.
//
// Thread safety: `Gather*`, `RecordSizes`, `length`, `Stats` and `Verify`
// may run from many threads at once, also while one thread appends. Appends
// are single-writer (serialised internally). `Delete` and `Compact` must
// not overlap any other call: they rewrite table entries a concurrent
// reader could see half-applied.
//
// Errors: InvalidArgument for bad input (empty records, a destination of the
// wrong size; oversized records also carry `ErrorCode::kRecordTooLarge`),
// OutOfRange naming the offending index, DataLoss for a damaged or foreign
// store naming the file and the record (`ErrorCode::kCorruptRecord` attached
// when one record fails its checksum or does not decode), FailedPrecondition
// for a write through a read-only engine, busy for a store held elsewhere,
// ResourceExhausted when memory runs out, and the VFS's own errors for I/O
// failures. A call that fails on bad input has changed nothing.

#ifndef LOADERX_SRC_RECORD_ENGINE_H_
#define LOADERX_SRC_RECORD_ENGINE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loaderx/codec.h"
#include "loaderx/store_options.h"
#include "loaderx/thread_pool.h"
#include "loaderx/vfs.h"
#include "src/compaction_plan.h"
#include "src/decompression_context_pool.h"
#include "src/integrity_file.h"
#include "src/journal.h"
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
  // A batch of equal-width raw records lies contiguous in the caller's
  // memory and is written in pieces of at most this many bytes (whole
  // records, at least one). Large pieces let Linux cache each 2 MiB block
  // a piece covers whole as one huge folio, which a mapped gather then
  // reads through one TLB entry (docs/design.md, "Raw flush path").
  uint64_t contiguous_write_bytes = 64 << 20;
  // The pool compression and gathers run on; null means the process's
  // `DefaultThreadPool()`.
  std::shared_ptr<ThreadPool> thread_pool;
  // Appends roll over to a new chunk file before one would grow past this
  // (at most 2^32 - 1, the 32-bit offset range). Smaller values only serve
  // tests; a record larger than it gets a chunk of its own.
  uint64_t chunk_capacity = store_format::kChunkCapacity - 1;
  // `Open` only: see `StoreOptions::read_only`.
  bool read_only = false;
  // See `StoreOptions::verify_checksums`.
  bool verify_checksums = true;
  // Verified gathers of fixed-width raw records of at most
  // `kResidentMaxWidth` bytes read them through the resident index
  // (`resident_index.h`: 16 bytes of memory a record); false keeps them on
  // the files' entries (the tests use it to reach that path).
  bool resident_index = true;
  // Compaction commits its moves in batches of at most this many bytes and
  // records (a single larger record goes alone).
  uint64_t compaction_batch_bytes = 64 << 20;
  uint64_t compaction_batch_records = 1 << 16;
  // `Create` only: store.zr's bytes, when the typed layer will write it,
  // so that their checksum goes into checksums.lx's first durable state
  // (one sync, instead of a second state written and synced later).
  std::optional<std::string> typed_header;
};

// What `RecordEngine::Open` found between checksums.lx and the files (see
// `RecordEngine::FindMetadataProblems`): the durable state's own findings
// plus how meta.zr's length differs from its record. Written into every
// durable state until accepted.
struct MetadataFindings {
  bool adopted = false;
  bool written_elsewhere = false;  // This open found another writer.
  uint64_t removed_records = 0;
  uint64_t removed_from_length = 0;
  uint64_t reappeared_records = 0;
};

// A header's frontier as one number: tail_chunk << 32 | tail_offset.
uint64_t FrontierOf(const store_format::PhysicalHeader& header);

class RecordEngine {
 public:
  // Creates a store in `directory`, creating it and any missing parents.
  // The directory must be empty, or hold only what a creation that never
  // finished left (meta.zr empty, a header of no records, or garbage with
  // nothing committed beside it, 0.chunk, dict.zr, checksums.lx; no
  // store.zr; `creation_site.h` has the rule): that is taken over and done
  // again. Anything else is AlreadyExists, left as it is; a creation in
  // progress elsewhere is busy. Order, as the reference: meta.zr (exclusive,
  // locked), its header, 0.chunk, dict.zr, then checksums.lx (holding
  // `options.typed_header`'s checksum, if given), sync. The typed layer
  // then writes store.zr.
  static absl::StatusOr<std::unique_ptr<RecordEngine>> Create(
      Vfs& vfs, absl::string_view directory,
      const RecordEngineOptions& options);

  // Opens the store in `directory`: finishes (or, read-only, overlays) an
  // interrupted maintenance step, restores a torn meta.zr from the durable
  // state in checksums.lx, then validates the header, dictionary, chunks
  // and every record-table entry (DataLoss naming the file and record).
  // `options.codec` and its dictionary are ignored: the store's own are used
  // (with `options.codec_options.level` for this handle's appends).
  static absl::StatusOr<std::unique_ptr<RecordEngine>> Open(
      Vfs& vfs, absl::string_view directory,
      const RecordEngineOptions& options = {});

  ~RecordEngine();
  RecordEngine(const RecordEngine&) = delete;
  RecordEngine& operator=(const RecordEngine&) = delete;

  // Committed physical records.
  uint64_t length() const { return length_.load(std::memory_order_acquire); }

  const Codec& codec() const { return *codec_; }
  bool read_only() const { return read_only_; }

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

  // Decodes record `indices[i]` into `destinations[i]`, which must be
  // exactly its size (see `RecordSizes`).
  absl::Status GatherVariable(
      absl::Span<const uint64_t> indices,
      absl::Span<const absl::Span<char>> destinations) const;

  // Deletes the records at `indices` by moving the last records into their
  // places (indices stay dense; the moved records are renumbered). An index
  // listed more than once is deleted once, as in the reference. Durable on
  // return: everything appended before is synced first.
  absl::Status Delete(absl::Span<const uint64_t> indices);

  // records = length; live_bytes = the stored bytes of the live records;
  // chunk_bytes = the frontier's address, tail_chunk * 2^32 + tail_offset
  // (the reference's measure); reclaimable = chunk_bytes - live_bytes.
  absl::StatusOr<StoreStats> Stats() const;
  // One number for the committed state (length, frontier, the last
  // record's table entry and checksum): changes with any append, delete or
  // compaction. O(1). For loader states and store sets, which must notice
  // a store that is not the one they were made from.
  absl::StatusOr<uint64_t> Fingerprint() const;

  // Reclaims the bytes deleted records left behind: first validates every
  // table entry (DataLoss naming the record for one outside its chunk or
  // the frontier, or overlapping another), then repacks the live records in
  // batches (`compaction_plan.h`), then truncates and removes what lies past
  // the new frontier. Durable on return; a crash at any instant leaves every
  // record intact, and the next compaction finishes the job. Offline: no
  // other call may overlap it.
  absl::Status Compact();

  // What `Compact` would do now, and the space it needs and has, after the
  // same checks of the table (DataLoss as `Compact`). Read-only engines
  // may ask. Offline, like `Compact`.
  absl::StatusOr<CompactionEstimate> EstimateCompaction() const;

  // Makes every committed append durable: chunks, checksum entries, the
  // record table, the directory, the header, then the durable state.
  absl::Status Sync();

  // Reads every record once, in groups of `group` consecutive records (the
  // ragged stores' payload/shape pairs are groups of 2), and reports each
  // group as verified (all its records match their checksums), damaged
  // (one fails its checksum, does not decode, or lies outside the store, or
  // `check_group(group index)` returns DataLoss) or unverified. Indices in
  // the report are group indices. `check_group` runs on the pool's threads;
  // `progress` counts groups. Memory: one record buffer per thread.
  absl::StatusOr<VerifyReport> Verify(
      uint64_t group = 1,
      const std::function<absl::Status(uint64_t)>& check_group = nullptr,
      const VerifyProgress& progress = nullptr) const;

  // store.zr's checksum, kept with the durable state: `RecordTypedHeader`
  // stores it (at creation, before store.zr is written); `CheckTypedHeader`
  // compares `bytes` against it: true if they match, false if the store has
  // no checksum for it (a writable engine then records one), DataLoss if
  // they differ.
  absl::Status RecordTypedHeader(absl::string_view bytes);
  absl::StatusOr<bool> CheckTypedHeader(absl::string_view bytes);

  // Fills `report`'s `removed_records`, `metadata_problems` and `notes`
  // from what `Open` found between checksums.lx and the files (kept in
  // checksums.lx until accepted), and clears `metadata_verified` for
  // metadata that was adopted as found rather than checked.
  // Counts are of groups of `group` engine records (a ragged record's
  // payload and shape are one).
  void FindMetadataProblems(VerifyReport& report, uint64_t group = 1) const;
  // The user vouches for the store as it is now: the removed and
  // reappeared records are forgotten and the current length becomes the
  // one checksums.lx records. Writable engines only; durable on return.
  absl::Status AcceptMetadataProblems();

 private:
  friend class RecordEngineOpener;

  // One record on its way to disk: the bytes to store (the caller's own
  // for raw stores, else the compressed frame in `owned`) and the size it
  // decodes to.
  struct Frame {
    absl::string_view borrowed;  // Raw stores: the caller's bytes.
    std::string owned;           // Compressed stores: the frame.
    uint64_t original_size = 0;
    uint64_t checksum = 0;  // Of `stored()`.

    absl::string_view stored() const {
      return borrowed.data() != nullptr ? borrowed : absl::string_view(owned);
    }
  };

  // How a record's stored bytes compare with its checksum entry.
  enum class Check {
    kVerified,    // Bound, and the bytes match.
    kDamaged,     // Bound, authoritative, and the bytes differ.
    kUnverified,  // No entry, a stale one, or a mismatch that another
                  // program's writes could explain.
  };

  RecordEngine(std::unique_ptr<StoreFiles> files, std::unique_ptr<Codec> codec,
               std::unique_ptr<IntegrityFile> integrity,
               const RecordEngineOptions& options,
               const store_format::PhysicalHeader& header);

  absl::StatusOr<store_format::RecordLoc> ReadLoc(uint64_t index) const;
  absl::StatusOr<integrity_format::ChecksumEntry> ReadChecksum(
      uint64_t index) const;
  Check Classify(const integrity_format::ChecksumEntry& entry,
                 const store_format::RecordLoc& loc,
                 absl::string_view stored) const;
  // The entries of `indices` into `locs`, runs of consecutive indices read
  // in one call (entry by entry while a delete's overlay is live).
  absl::Status ReadLocRuns(absl::Span<const uint64_t> indices,
                           absl::Span<store_format::RecordLoc> locs) const;
  // Calls `visit(index, loc)` for the first `count` table entries, in order,
  // reading the table through mappings where the VFS maps, else in large
  // blocks. Stops at the first error `visit` returns.
  absl::Status ForEachLoc(
      uint64_t count,
      const std::function<
          absl::Status(uint64_t, const store_format::RecordLoc&)>& visit) const;

  absl::StatusOr<std::vector<Frame>> Encode(
      absl::Span<const absl::string_view> records);
  absl::StatusOr<uint64_t> Commit(const std::vector<Frame>& frames);
  // Moves `next`'s frontier to the start of a fresh chunk if a record of
  // `size` bytes would not fit where it is (a record never straddles
  // chunks; a chunk's first record always fits); StoreFull when no chunk
  // id is left. Both commits place records with it.
  absl::Status RollOverIfFull(store_format::PhysicalHeader& next,
                              uint64_t size) const;
  // The append of `count` records of `width` bytes, back to back in
  // `data`, to a raw store (record_engine_append_fixed.cc).
  absl::StatusOr<uint64_t> CommitFixedRaw(absl::string_view data,
                                          uint64_t count, uint64_t width);
  absl::Status WritePayloads(const std::vector<Frame>& frames,
                             const std::vector<store_format::RecordLoc>& locs);
  absl::Status WriteLocs(uint64_t first,
                         absl::Span<const store_format::RecordLoc> locs);
  // The same for entries already encoded, back to back in `bytes`.
  absl::Status WriteLocBytes(uint64_t first, absl::string_view bytes);
  absl::Status WriteChecksums(
      uint64_t first,
      absl::Span<const integrity_format::ChecksumEntry> entries);
  // Writes meta.zr inside the commit seal (see `integrity_format.h`).
  absl::Status WriteHeader(const store_format::PhysicalHeader& header);
  // Sync with the writer lock held.
  absl::Status SyncLocked();
  // Records meta.zr's current bytes and stamp as the durable state.
  absl::Status WriteDurableState();
  // Installs a journal record's entries and header, then (compaction end)
  // drops what lies past the frontier, and syncs. `replay`: the record is
  // one an earlier handle wrote, so nothing on disk can be assumed done.
  absl::Status Install(const JournalRecord& record, bool replay = false);
  // `Open`'s last steps: every table entry checked against the files, and
  // (writable) the durable state brought up to date, a new epoch begun if
  // another program wrote the store, checksums.lx made if it has none, and
  // a stale journal cleared.
  absl::Status Validate() const;
  // The first mutation's first step (lazy adoption, docs/design.md): what
  // `Open` found the store to need, written now rather than at open, so
  // that a store opens for writing on a full disk. A stale journal is
  // cleared, checksums.lx made if the store has none (with store.zr's
  // checksum, if `CheckTypedHeader` left one to record), and the durable
  // state brought up to date. Idempotent: a failure leaves it pending, and
  // the next mutation tries again. Then, best effort, the journal's
  // reserve (`kJournalReserveBytes`), so a later delete needs no space.
  absl::Status AdoptLocked();
  // `Open`'s part of the adoption, in memory only: a store another program
  // wrote gets a new epoch (its old checksums lose their authority), one
  // without checksums.lx the first (for the checksums its appends will
  // have), and whatever the files need is left to `AdoptLocked`.
  void PrepareAdoption(bool stale_journal);
  // The checksums.lx readers use: null while a store that had none waits
  // for its adoption (see `integrity_published_`).
  const IntegrityFile* Integrity() const {
    return integrity_published_.load(std::memory_order_acquire)
               ? integrity_.get()
               : nullptr;
  }
  // `Compact` under the writer lock; on failure `GiveBackStaged` removes
  // what it copied past the frontier for a step that never started, so a
  // failed compaction (a full disk) leaves the store no larger.
  absl::Status CompactLocked();
  // `Compact`'s checks of every table entry, then its plan, and the bytes
  // the live records hold.
  struct PlannedCompaction {
    CompactionPlan plan;
    uint64_t live_bytes = 0;
  };
  absl::StatusOr<PlannedCompaction> PlanLocked() const;
  absl::StatusOr<CompactionEstimate> EstimateOf(
      const PlannedCompaction& planned) const;
  absl::Status GiveBackStaged();
  // Runs one maintenance step through the journal.
  absl::Status Journaled(const JournalRecord& record);
  absl::Status RequireWritable(absl::string_view operation) const;
  // Copies one record's stored bytes for compaction; returns their checksum.
  absl::StatusOr<uint64_t> CopyRecord(const store_format::RecordLoc& from,
                                      const store_format::RecordLoc& to,
                                      std::string& buffer);

  // Where a gather puts record i: `spans[i]`, or (fixed-width batches,
  // `spans` empty) `width` bytes at `base + i * width`. `bytes` is the
  // total, which decides how the batch is divided.
  struct Destinations {
    absl::Span<const absl::Span<char>> spans;
    char* base = nullptr;
    uint64_t width = 0;
    uint64_t bytes = 0;
    absl::Span<char> at(size_t i) const;
  };
  static Destinations SpansOf(absl::Span<const absl::Span<char>> spans);

  // A batch this large is stored around the cache (`ChecksumAndCopy`'s
  // `bypass_cache`): it is larger than both cores' L2 and a good part of
  // what a VM's share of L3 holds, so its lines would be evicted before the
  // caller reads them, and reading each line before writing it (what a
  // plain store does) costs a third of the copy's memory traffic.
  static constexpr uint64_t kBypassCacheBatchBytes = 16 << 20;

  // The gathers' one loop (record_engine_gather.cc).
  absl::Status Gather(absl::Span<const uint64_t> indices,
                      const Destinations& destinations, bool fixed) const;
  // `view`, or a later view whose resident index (`resident_index.h`)
  // covers more of the store's first `length` records of `width` bytes:
  // the table and checksums.lx are mapped that far first. Any error leaves
  // the index as it is (the general path reports it).
  std::shared_ptr<const MappedView> Reside(
      std::shared_ptr<const MappedView> view, uint64_t length,
      uint64_t width) const;
  // One record through the mappings. `view` is extended (replaced) when
  // the record lies past it. Unimplemented if the VFS declined to map.
  absl::Status GatherMapped(std::shared_ptr<const MappedView>& view,
                            uint64_t length, uint64_t index,
                            absl::Span<char> destination, bool fixed,
                            DecompressionContext* context) const;
  // `GatherMapped`'s common case, inline, for records [i, end) of a batch
  // (record_engine_gather_run.cc):
  // returns the position of the first record
  // that needs `GatherMapped` (its entry, bytes or checksum entry past
  // `view`, a size or checksum mismatch, a failed decode; nothing is
  // reported), or `end`. Prefetches what records a few places ahead need,
  // up to `lookahead_end` (>= `end`: the records this thread is likely to
  // gather next). Only while nothing is overlaid.
  size_t GatherMappedRun(const MappedView& view,
                         absl::Span<const uint64_t> indices,
                         const Destinations& destinations, size_t i, size_t end,
                         size_t lookahead_end,
                         DecompressionContext* context) const;
  // Record `index`'s table and checksum entries through the mappings of a
  // store of `length` records (a delete's overlay first).
  absl::StatusOr<store_format::RecordLoc> MappedLoc(
      std::shared_ptr<const MappedView>& view, uint64_t length,
      uint64_t index) const;
  absl::StatusOr<integrity_format::ChecksumEntry> MappedChecksum(
      std::shared_ptr<const MappedView>& view, uint64_t length,
      uint64_t index) const;
  // How many of `loc`'s chunk's bytes are committed (all, for a chunk
  // before the frontier's).
  uint64_t CommittedChunkBytes(const store_format::RecordLoc& loc) const;
  // One record through `ReadAt`.
  absl::Status GatherOne(uint64_t index, const store_format::RecordLoc& loc,
                         absl::Span<char> destination, bool fixed,
                         DecompressionContext* context,
                         std::string& staging) const;
  // The checks and the decoding both paths share.
  absl::Status CheckGatheredSize(uint64_t index,
                                 const store_format::RecordLoc& loc,
                                 uint64_t destination_size, bool fixed) const;
  absl::Status CheckStored(uint64_t index, const store_format::RecordLoc& loc,
                           const integrity_format::ChecksumEntry& entry,
                           absl::string_view stored) const;
  absl::Status Decode(uint64_t index, absl::string_view stored,
                      absl::Span<char> destination,
                      DecompressionContext* context) const;
  // A buffer that grows without zero-filling: a decode whose frame turns
  // out not to fit never touches (so never commits) the memory.
  struct ScratchBuffer {
    std::unique_ptr<char[]> bytes;
    uint64_t capacity = 0;
    absl::Span<char> Get(uint64_t size);
  };
  // Verify's check of one record: empty when it reads back, else what is
  // wrong; `verified` says whether a checksum confirmed it.
  absl::StatusOr<std::string> VerifyOne(uint64_t index,
                                        DecompressionContext* context,
                                        std::string& stored,
                                        ScratchBuffer& decoded,
                                        bool& verified) const;

  const std::unique_ptr<StoreFiles> files_;
  const std::unique_ptr<Codec> codec_;
  // Contexts for `codec_`'s decodes, reused across gathers.
  mutable DecompressionContextPool decompression_contexts_;
  // Null for a read-only engine on a store without checksums.lx, and for a
  // writable one until its adoption makes one. The writer (`writer_mu_`)
  // reads it directly; readers through `Integrity()`, which sees it only
  // once `integrity_published_` says it is set for good.
  std::unique_ptr<IntegrityFile> integrity_;
  std::atomic<bool> integrity_published_{false};
  const bool raw_;  // The codec stores records verbatim.
  // The codec decodes damaged frames safely, so the gather's fast loop
  // decodes a record before it hashes it (`Codec::decodes_untrusted_input`).
  const bool decode_before_check_;
  const bool read_only_;
  const bool verify_;
  const bool resident_index_;
  const uint64_t flush_bytes_;
  const uint64_t contiguous_write_bytes_;
  const uint64_t chunk_capacity_;
  const uint64_t batch_bytes_;
  const uint64_t batch_records_;
  const std::shared_ptr<ThreadPool> pool_;

  // Checksum entries this engine writes carry `epoch_`; entries of that
  // epoch are authoritative while `trusted_` (no other program wrote the
  // store since they were made). Set by `Open`/`Create`.
  uint32_t epoch_ = 0;
  bool trusted_ = false;
  // A read-only open of a store whose last maintenance step did not finish
  // installs the step's entries here instead of on disk. Immutable.
  std::map<uint64_t, JournalEntry> overlay_;

  mutable std::mutex findings_mu_;
  MetadataFindings findings_;  // Guarded by `findings_mu_`.

  // Serialises appends, deletes, compaction and syncs (the single writer);
  // `Stats` takes it for a consistent snapshot.
  mutable std::mutex writer_mu_;
  std::unique_ptr<Journal> journal_;     // Guarded by `writer_mu_`.
  store_format::PhysicalHeader header_;  // Guarded by `writer_mu_`.
  uint64_t meta_stamp_ = 0;              // Guarded by `writer_mu_`.
  // The header meta.zr holds (as this engine last wrote or found it).
  integrity_format::MetaBytes last_written_{};  // Guarded by `writer_mu_`.
  bool state_behind_ = false;                   // Guarded by `writer_mu_`.
  // What `AdoptLocked` still has to do (all guarded by `writer_mu_`):
  // anything at all, clear a journal another program's writes made stale,
  // record store.zr's checksum, reserve the journal's space.
  bool adoption_pending_ = false;
  bool clear_stale_journal_ = false;
  std::optional<std::string> pending_typed_header_;
  bool journal_reserved_ = false;
  // Encoding buffers reused by every fixed-width append.
  std::vector<char> loc_bytes_;      // Guarded by `writer_mu_`.
  std::vector<char> entry_bytes_;    // Guarded by `writer_mu_`.
  std::atomic<uint64_t> length_{0};  // Published after each commit.
  // The committed frontier, tail_chunk << 32 | tail_offset: published
  // before `length_`, so a reader that sees a length sees a frontier at
  // least as far.
  std::atomic<uint64_t> frontier_{0};
};

}  // namespace loaderx

#endif  // LOADERX_SRC_RECORD_ENGINE_H_
