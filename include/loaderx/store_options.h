// What the typed stores (`DenseStore`, `RaggedStore`) are created or opened
// with, and what they report about themselves.

#ifndef LOADERX_STORE_OPTIONS_H_
#define LOADERX_STORE_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loaderx/dtype.h"
#include "loaderx/thread_pool.h"

namespace loaderx {

struct StoreOptions {
  // The store's one codec, fixed at creation: "raw", "zstd" (the default)
  // or "zstd_dict" (which needs `dictionary`), or a registered plugin's.
  std::string codec = "zstd";
  // The trained dictionary for "zstd_dict"; must be empty otherwise.
  std::string dictionary;
  // The compression level for appends through this handle, or 0 for the
  // codec's default (zstd 3, zstd_dict 19). Not persisted: a level shapes
  // how records are written, and any level's frames read back alike.
  // Codecs without levels ignore it; an out-of-range level is
  // InvalidArgument at create or open.
  int level = 0;
  // The pool compression and gathers run on; null (the default) means the
  // process's shared `DefaultThreadPool()` (see `loaderx/thread_pool.h`).
  std::shared_ptr<ThreadPool> thread_pool;
  // Open without writing anything: read-only file handles, a shared lock on
  // meta.zr (other read-only handles may hold it too; a writer may not), so
  // it works on read-only files and filesystems. Appends, deletes and
  // compaction then fail with FailedPrecondition; `Sync` does nothing.
  // Ignored by `Create`.
  bool read_only = false;
  // Check every record read against the checksum written with it (a
  // mismatch is DataLoss naming the record). Records without one (written
  // by another program, e.g. loaderx 1.7.7) are read unchecked.
  bool verify_checksums = true;
};

// What `Verify` found, record by record (logical records of the store).
struct VerifyReport {
  uint64_t records = 0;  // Records examined: every record of the store.
  // Records whose stored bytes match the checksum written with them.
  uint64_t verified = 0;
  // Records that read back but have no checksum to compare against: written
  // or moved by a program that keeps no checksums (loaderx 1.7.7), or last
  // checked before such a program wrote to the store and not matching now.
  uint64_t unverified = 0;
  // Records that are damaged: their bytes fail their checksum, do not decode,
  // or lie outside the store. Ascending. records = verified + unverified +
  // damaged.size().
  std::vector<uint64_t> damaged;
  // What is wrong with the first few damaged records, one line each.
  std::vector<std::string> problems;
  // Whether store.zr (and dict.zr) matched checksums written with them;
  // false for a store created by a program that keeps none. A mismatch
  // fails `Open` itself.
  bool metadata_verified = false;
  // Records the store had and no longer has, where nothing this library
  // did explains it: meta.zr's length became smaller than checksums.lx's
  // record of it (1.7.7's delete of the last records does that, and so
  // does damage to meta.zr; only the user can tell which).
  uint64_t removed_records = 0;
  // Differences between checksums.lx and the files that cannot be told
  // apart from damage, one line each (the removed records among them).
  // `AcceptMetadataProblems` accepts them.
  std::vector<std::string> metadata_problems;
  // What is worth knowing but wrong with nothing (another program wrote
  // the store; its metadata was adopted as found).
  std::vector<std::string> notes;

  bool ok() const { return damaged.empty() && metadata_problems.empty(); }
};

// What a compaction would do, and the space it needs (`EstimateCompaction`,
// `loaderx compact --dry-run`), measured from the record table before
// anything is moved.
struct CompactionEstimate {
  uint64_t moves = 0;    // Records that would move (a staged one twice).
  uint64_t batches = 0;  // Journaled steps, each one commit.
  // Chunk bytes no live record uses: what compaction gives back.
  uint64_t reclaimed_bytes = 0;
  // New bytes it writes before it gives any back: records staged past the
  // frontier (where the holes before them are too small), and journal
  // records larger than the journal's reserve.
  uint64_t needed_bytes = 0;
  // The filesystem's free space now, if the VFS can tell
  // (`Vfs::AvailableBytes`). `Compact` refuses with ResourceExhausted when
  // it is known and smaller than `needed_bytes`.
  std::optional<uint64_t> available_bytes;
};

// How far a `Verify` has got: called with the records examined so far and
// the records it examines in all (`done` grows to `total`; the last call
// has them equal). Calls come from the threads doing the work, never two
// at once, after every few thousand records; the callback must not call
// back into the store.
using VerifyProgress = std::function<void(uint64_t done, uint64_t total)>;

// The reference's open-or-create constructor, `DenseStore(path, dtype=None,
// item_shape=None, codec=None, dict_bytes=None)`, as a request: every field
// is optional. At a path holding a store, each given field is checked
// against it (a mismatch is InvalidArgument; so is a dictionary, which only
// a creation takes). Anywhere else the store is created from the fields:
// `dtype` (and `item_shape` for dense stores) are required, the codec
// defaults to "zstd".
struct StoreRequest {
  std::optional<DType> dtype;
  std::optional<std::vector<uint64_t>> item_shape;  // Dense stores only.
  std::optional<std::string> codec;
  std::optional<std::string> dictionary;
  // As in `StoreOptions`.
  int level = 0;
  std::shared_ptr<ThreadPool> thread_pool;
  // Open read-only (`StoreOptions::read_only`); never creates a store: a
  // path holding none is NotFound.
  bool read_only = false;
};

struct StoreStats {
  uint64_t records = 0;     // Live (logical) records.
  uint64_t live_bytes = 0;  // Bytes stored for them (ragged: shapes too).
  // How far the chunks reach: tail_chunk * 2^32 + tail_offset, the
  // reference's measure (the bytes written, for a single-chunk store).
  uint64_t chunk_bytes = 0;
  // chunk_bytes - live_bytes: an upper bound on what `Compact` reclaims.
  uint64_t reclaimable = 0;
};

}  // namespace loaderx

#endif  // LOADERX_STORE_OPTIONS_H_
