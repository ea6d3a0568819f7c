#include "src/store_files.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "loaderx/spi/path.h"
#include "loaderx/spi/status_macros.h"
#include "src/store_format.h"

namespace loaderx {

std::string StoreFiles::PathOf(absl::string_view name) const {
  return JoinPath(directory_, name);
}

absl::StatusOr<VfsFile*> StoreFiles::Find(
    const std::vector<std::unique_ptr<VfsFile>>& files, uint64_t id,
    absl::string_view what) const {
  std::shared_lock lock(mu_);
  if (id >= files.size()) {
    return absl::DataLossError(
        absl::StrCat(directory_, ": the record table refers to ", what, " ", id,
                     ", which the store does not have (damaged store)"));
  }
  return files[id].get();
}

absl::StatusOr<VfsFile*> StoreFiles::Chunk(uint64_t id) const {
  return Find(chunks_, id, "chunk");
}

absl::StatusOr<VfsFile*> StoreFiles::Segment(uint64_t id) const {
  return Find(segments_, id, "record-table segment");
}

uint64_t StoreFiles::chunk_count() const {
  std::shared_lock lock(mu_);
  return chunks_.size();
}

uint64_t StoreFiles::segment_count() const {
  std::shared_lock lock(mu_);
  return segments_.size();
}

absl::Status StoreFiles::Add(std::vector<std::unique_ptr<VfsFile>>& files,
                             uint64_t id, const std::string& name,
                             bool create) {
  {
    std::shared_lock lock(mu_);
    if (id < files.size()) {
      // Reused after an append that failed before committing: start empty.
      if (!create) {
        return absl::InternalError(absl::StrCat(name, " opened twice"));
      }
      mappings_.Invalidate();
      return files[id]->Truncate(0);
    }
    if (id != files.size()) {
      return absl::InternalError(
          absl::StrCat(name, " added out of order after ", files.size()));
    }
  }
  std::unique_ptr<VfsFile> file;
  if (create && read_only_) {
    return absl::FailedPreconditionError(
        absl::StrCat(PathOf(name), ": the store is open read-only"));
  }
  if (create) {
    LOADERX_ASSIGN_OR_RETURN(file, vfs_.Open(PathOf(name), OpenMode::kCreate));
    LOADERX_RETURN_IF_ERROR(file->Truncate(0));
    created_files_ = true;
  } else {
    auto opened = vfs_.Open(
        PathOf(name), read_only_ ? OpenMode::kReadOnly : OpenMode::kReadWrite);
    if (absl::IsNotFound(opened.status())) {
      return absl::DataLossError(
          absl::StrCat(PathOf(name), " is missing (damaged store)"));
    }
    LOADERX_ASSIGN_OR_RETURN(file, std::move(opened));
  }
  std::unique_lock lock(mu_);
  files.push_back(std::move(file));
  return absl::OkStatus();
}

absl::Status StoreFiles::OpenChunk(uint64_t id) {
  return Add(chunks_, id, store_format::ChunkFileName(id), false);
}

absl::Status StoreFiles::OpenSegment(uint64_t id) {
  return Add(segments_, id, store_format::SegmentFileName(id), false);
}

absl::Status StoreFiles::CreateChunk(uint64_t id) {
  return Add(chunks_, id, store_format::ChunkFileName(id), true);
}

absl::Status StoreFiles::CreateSegment(uint64_t id) {
  return Add(segments_, id, store_format::SegmentFileName(id), true);
}

absl::Status StoreFiles::RemoveFrom(
    std::vector<std::unique_ptr<VfsFile>>& files, std::set<uint64_t>& written,
    uint64_t first, std::string (*name)(uint64_t)) {
  std::unique_lock lock(mu_);
  if (files.size() > first) mappings_.Invalidate();
  while (files.size() > first) {
    const uint64_t id = files.size() - 1;
    files.pop_back();  // Close before removing.
    written.erase(id);
    absl::Status removed = vfs_.Remove(PathOf(name(id)));
    if (!removed.ok() && !absl::IsNotFound(removed)) return removed;
    created_files_ = true;  // The directory changed: sync it.
  }
  return absl::OkStatus();
}

absl::Status StoreFiles::RemoveChunksFrom(uint64_t first) {
  return RemoveFrom(chunks_, written_chunks_, first,
                    &store_format::ChunkFileName);
}

absl::Status StoreFiles::RemoveSegmentsFrom(uint64_t first) {
  return RemoveFrom(segments_, written_segments_, first,
                    &store_format::SegmentFileName);
}

absl::Status StoreFiles::RemoveStrayChunksFrom(uint64_t first) {
  for (uint64_t id = std::max<uint64_t>(first, chunk_count());; ++id) {
    const std::string path = PathOf(store_format::ChunkFileName(id));
    LOADERX_ASSIGN_OR_RETURN(const bool exists, vfs_.Exists(path));
    if (!exists) return absl::OkStatus();
    LOADERX_RETURN_IF_ERROR(vfs_.Remove(path));
    created_files_ = true;  // The directory changed: sync it.
  }
}

absl::Status StoreFiles::AddWrittenChunks(SyncGroup& group) const {
  for (uint64_t id : written_chunks_) {
    LOADERX_ASSIGN_OR_RETURN(VfsFile * chunk, Chunk(id));
    group.Add([chunk] { return chunk->SyncData(); });
  }
  return absl::OkStatus();
}

absl::Status StoreFiles::SyncWritten(IntegrityFile* integrity) {
  if (read_only_) return absl::OkStatus();
  {
    SyncGroup payloads(vfs_);
    LOADERX_RETURN_IF_ERROR(AddWrittenChunks(payloads));
    const size_t chunks = payloads.size();
    const bool integrity_unsynced =
        integrity != nullptr && integrity->unsynced();
    if (integrity != nullptr) {
      payloads.Add([integrity] { return integrity->Sync(); });
    }
    const absl::Status synced = payloads.Run();
    if (payloads.all_succeeded(0, chunks)) {
      written_chunks_.clear();
    } else if (integrity_unsynced) {
      // One after another, checksums.lx would not have been synced.
      integrity->MarkWritten();
    }
    LOADERX_RETURN_IF_ERROR(synced);
  }
  LOADERX_RETURN_IF_ERROR(SyncWithDirectory(
      written_segments_, [this](uint64_t id) { return Segment(id); }));
  return meta_->Sync();
}

absl::Status StoreFiles::SyncCreated(
    IntegrityFile& integrity, absl::Span<const std::string> made_directories) {
  SyncGroup group(vfs_);
  LOADERX_RETURN_IF_ERROR(AddWrittenChunks(group));
  group.Add([&integrity] { return integrity.Sync(); });
  group.Add([this] { return vfs_.SyncDirectory(directory_); });
  group.Add([this] { return meta_->Sync(); });
  for (const std::string& made : made_directories) {
    const std::string parent = ParentDirectory(made);
    group.Add([this, parent] {
      return vfs_.SyncDirectory(parent.empty() ? "." : parent);
    });
  }
  LOADERX_RETURN_IF_ERROR(group.Run());
  written_chunks_.clear();
  created_files_ = false;
  return absl::OkStatus();
}

void StoreFiles::MarkAllWritten() {
  for (uint64_t id = 0; id < chunk_count(); ++id) written_chunks_.insert(id);
  for (uint64_t id = 0; id < segment_count(); ++id) {
    written_segments_.insert(id);
  }
  created_files_ = true;
}

absl::Status StoreFiles::SyncChunks() {
  if (read_only_) return absl::OkStatus();
  return SyncWithDirectory(written_chunks_,
                           [this](uint64_t id) { return Chunk(id); });
}

absl::Status StoreFiles::SyncWithDirectory(
    std::set<uint64_t>& written,
    absl::FunctionRef<absl::StatusOr<VfsFile*>(uint64_t)> file) {
  SyncGroup group(vfs_);
  for (uint64_t id : written) {
    LOADERX_ASSIGN_OR_RETURN(VfsFile * opened, file(id));
    group.Add([opened] { return opened->SyncData(); });
  }
  const size_t files = group.size();
  if (created_files_) {
    group.Add([this] { return vfs_.SyncDirectory(directory_); });
  }
  const absl::Status synced = group.Run();
  // What did not sync stays marked, for the next sync to redo.
  if (group.all_succeeded(0, files)) {
    written.clear();
    if (group.all_succeeded(files, group.size())) created_files_ = false;
  }
  return synced;
}

}  // namespace loaderx
