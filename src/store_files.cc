#include "src/store_files.h"

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
      return create ? files[id]->Truncate(0)
                    : absl::InternalError(absl::StrCat(name, " opened twice"));
    }
    if (id != files.size()) {
      return absl::InternalError(
          absl::StrCat(name, " added out of order after ", files.size()));
    }
  }
  std::unique_ptr<VfsFile> file;
  if (create) {
    LOADERX_ASSIGN_OR_RETURN(file, vfs_.Open(PathOf(name), OpenMode::kCreate));
    LOADERX_RETURN_IF_ERROR(file->Truncate(0));
    created_files_ = true;
  } else {
    auto opened = vfs_.Open(PathOf(name), OpenMode::kReadWrite);
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

absl::Status StoreFiles::SyncWritten() {
  for (uint64_t id : written_chunks_) {
    LOADERX_ASSIGN_OR_RETURN(VfsFile * chunk, Chunk(id));
    LOADERX_RETURN_IF_ERROR(chunk->SyncData());
  }
  written_chunks_.clear();
  for (uint64_t id : written_segments_) {
    LOADERX_ASSIGN_OR_RETURN(VfsFile * segment, Segment(id));
    LOADERX_RETURN_IF_ERROR(segment->SyncData());
  }
  written_segments_.clear();
  LOADERX_RETURN_IF_ERROR(meta_->Sync());
  if (created_files_) {
    LOADERX_RETURN_IF_ERROR(vfs_.SyncDirectory(directory_));
    created_files_ = false;
  }
  return absl::OkStatus();
}

}  // namespace loaderx
