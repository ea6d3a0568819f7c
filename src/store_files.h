// `StoreFiles` holds the open handles of one store directory: meta.zr
// (locked for the handle's lifetime), the chunk files and the record-table
// segments, each list growing as appends need more. It also remembers which
// files were written or created since the last sync, so a sync touches only
// those. A read-only instance opens every file read-only and creates none.
//
// Thread safety: `Chunk` and `Segment` may be called from many threads
// while one thread adds files (a shared lock keeps the lists stable); the
// handles themselves are safe for concurrent positional I/O. The
// dirty-tracking methods belong to the single writer.

#ifndef LOADERX_SRC_STORE_FILES_H_
#define LOADERX_SRC_STORE_FILES_H_

#include <cstdint>
#include <memory>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loaderx/vfs.h"
#include "src/integrity_file.h"
#include "src/store_mappings.h"
#include "src/sync_group.h"

namespace loaderx {

class StoreFiles {
 public:
  StoreFiles(Vfs& vfs, std::string directory, std::unique_ptr<VfsFile> meta,
             bool read_only = false)
      : vfs_(vfs),
        directory_(std::move(directory)),
        meta_(std::move(meta)),
        read_only_(read_only) {}

  VfsFile& meta() { return *meta_; }
  Vfs& vfs() const { return vfs_; }
  const std::string& directory() const { return directory_; }
  std::string PathOf(absl::string_view name) const;

  // The mappings readers read the files through. Removing files or
  // emptying a reused one invalidates them.
  StoreMappings& mappings() const { return mappings_; }

  // The open chunk or segment `id`; DataLoss if the store has no such file
  // (a record-table entry pointing outside the store).
  absl::StatusOr<VfsFile*> Chunk(uint64_t id) const;
  absl::StatusOr<VfsFile*> Segment(uint64_t id) const;
  uint64_t chunk_count() const;
  uint64_t segment_count() const;

  // Opens the existing chunk or segment `id` (which must be the next one).
  absl::Status OpenChunk(uint64_t id);
  absl::Status OpenSegment(uint64_t id);

  // Makes chunk or segment `id` (the next one, or an existing one, which is
  // emptied) available for writing, creating its file if needed.
  absl::Status CreateChunk(uint64_t id);
  absl::Status CreateSegment(uint64_t id);

  // Closes and removes every chunk or segment from `first` on.
  absl::Status RemoveChunksFrom(uint64_t first);
  absl::Status RemoveSegmentsFrom(uint64_t first);
  // Removes chunk files `first`, `first + 1`, ... that exist without being
  // open (left by an interrupted compaction), up to the first missing one.
  absl::Status RemoveStrayChunksFrom(uint64_t first);

  // Dirty tracking for `SyncWritten`.
  void MarkChunkWritten(uint64_t id) { written_chunks_.insert(id); }
  void MarkSegmentWritten(uint64_t id) { written_segments_.insert(id); }
  // Every open file, for a sync of what another handle may have left
  // unsynced.
  void MarkAllWritten();

  // Makes what was written durable, meta.zr last: the header never becomes
  // durable before what it refers to. Two rounds of overlapping syncs
  // (`SyncGroup`) come first: the written chunks with `integrity` (the
  // checksum entries and the commit seal; may be null), then the written
  // segments with the directory (if files were created or removed).
  // The rounds keep the seal from ever being durable with its table
  // entries while their payloads are not: recovery from a torn meta.zr
  // takes the seal's header if its table validates, and a payload's
  // garbled bytes would pass that check where a garbled entry does not. On
  // failure the written-file records are as if every sync had run one
  // after another in that order and stopped at the first failure.
  absl::Status SyncWritten(IntegrityFile* integrity);
  // The syncs of a new store, all at once (`SyncGroup`): its written
  // files, `integrity`, its directory, meta.zr, and then each of
  // `made_directories` in its parent. Until store.zr is written after them
  // the directory is an unfinished creation whatever a crash keeps of
  // these, so their order is free.
  absl::Status SyncCreated(IntegrityFile& integrity,
                           absl::Span<const std::string> made_directories);
  // Syncs the written chunks and the directory if it changed, at once:
  // what a later entry will point at is durable.
  absl::Status SyncChunks();

 private:
  absl::StatusOr<VfsFile*> Find(
      const std::vector<std::unique_ptr<VfsFile>>& files, uint64_t id,
      absl::string_view what) const;
  absl::Status Add(std::vector<std::unique_ptr<VfsFile>>& files, uint64_t id,
                   const std::string& name, bool create);
  // Adds a sync of each written chunk to `group`.
  absl::Status AddWrittenChunks(SyncGroup& group) const;
  // Syncs the files of `written` (opened by `file`) and, if files were
  // created or removed, the directory, in one round; clears `written` only
  // if every file synced, and the directory's mark only if it did too.
  absl::Status SyncWithDirectory(
      std::set<uint64_t>& written,
      absl::FunctionRef<absl::StatusOr<VfsFile*>(uint64_t)> file);
  absl::Status RemoveFrom(std::vector<std::unique_ptr<VfsFile>>& files,
                          std::set<uint64_t>& written, uint64_t first,
                          std::string (*name)(uint64_t));

  Vfs& vfs_;
  const std::string directory_;
  const std::unique_ptr<VfsFile> meta_;
  const bool read_only_;

  mutable StoreMappings mappings_;
  mutable std::shared_mutex mu_;
  std::vector<std::unique_ptr<VfsFile>> chunks_;    // Guarded by `mu_`.
  std::vector<std::unique_ptr<VfsFile>> segments_;  // Guarded by `mu_`.

  // Single-writer state.
  std::set<uint64_t> written_chunks_;
  std::set<uint64_t> written_segments_;
  bool created_files_ = false;
};

}  // namespace loaderx

#endif  // LOADERX_SRC_STORE_FILES_H_
