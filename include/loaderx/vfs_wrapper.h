// `VfsWrapper` and `VfsFileWrapper` forward every call to a wrapped VFS or
// file, so a filesystem that changes one behaviour (fault injection, call
// counting, latency) overrides only that method. As LevelDB's `EnvWrapper`.
//
// `VfsWrapper` does not own the wrapped `Vfs` unless constructed from a
// `unique_ptr`; either way the wrapped VFS must outlive the wrapper. The
// wrappers add no locking: they are as thread-safe as what they wrap.

#ifndef LOADERX_VFS_WRAPPER_H_
#define LOADERX_VFS_WRAPPER_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "loaderx/vfs.h"

namespace loaderx {

class VfsFileWrapper : public VfsFile {
 public:
  explicit VfsFileWrapper(std::unique_ptr<VfsFile> target)
      : target_(std::move(target)) {}

  VfsFile& target() const { return *target_; }

  const std::string& path() const override { return target_->path(); }
  absl::Status ReadAt(uint64_t offset, absl::Span<char> dst) const override {
    return target_->ReadAt(offset, dst);
  }
  absl::Status WriteAt(uint64_t offset, absl::string_view data) override {
    return target_->WriteAt(offset, data);
  }
  absl::Status WriteVectorAt(
      uint64_t offset, absl::Span<const absl::string_view> pieces) override {
    return target_->WriteVectorAt(offset, pieces);
  }
  absl::StatusOr<uint64_t> Size() const override { return target_->Size(); }
  absl::Status Truncate(uint64_t size) override {
    return target_->Truncate(size);
  }
  absl::Status SyncData() override { return target_->SyncData(); }
  absl::Status Sync() override { return target_->Sync(); }
  absl::Status TryLock() override { return target_->TryLock(); }

 private:
  std::unique_ptr<VfsFile> target_;
};

class VfsWrapper : public Vfs {
 public:
  // Wraps `target` without owning it.
  explicit VfsWrapper(Vfs* target) : target_(target) {}
  // Wraps and owns `target`.
  explicit VfsWrapper(std::unique_ptr<Vfs> target)
      : owned_(std::move(target)), target_(owned_.get()) {}

  Vfs& target() const { return *target_; }

  absl::StatusOr<std::unique_ptr<VfsFile>> Open(absl::string_view path,
                                                OpenMode mode) override {
    return target_->Open(path, mode);
  }
  absl::Status Remove(absl::string_view path) override {
    return target_->Remove(path);
  }
  absl::Status Rename(absl::string_view from, absl::string_view to) override {
    return target_->Rename(from, to);
  }
  absl::StatusOr<std::vector<std::string>> List(
      absl::string_view path) override {
    return target_->List(path);
  }
  absl::Status CreateDirectory(absl::string_view path) override {
    return target_->CreateDirectory(path);
  }
  absl::Status RemoveDirectory(absl::string_view path) override {
    return target_->RemoveDirectory(path);
  }
  absl::StatusOr<bool> Exists(absl::string_view path) override {
    return target_->Exists(path);
  }
  absl::Status SyncDirectory(absl::string_view path) override {
    return target_->SyncDirectory(path);
  }

 private:
  std::unique_ptr<Vfs> owned_;
  Vfs* target_;
};

}  // namespace loaderx

#endif  // LOADERX_VFS_WRAPPER_H_
