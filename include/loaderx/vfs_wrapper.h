// `VfsWrapper` forwards every call to a wrapped VFS, so a filesystem that
// changes one behaviour (call counting, tracing, a path rewrite) overrides
// only that method. As LevelDB's `EnvWrapper`.
//
// It does not own the wrapped `Vfs` unless constructed from a `unique_ptr`;
// either way the wrapped VFS must outlive the wrapper. It adds no locking: it
// is as thread-safe as what it wraps.

#ifndef LOADERX_VFS_WRAPPER_H_
#define LOADERX_VFS_WRAPPER_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "loaderx/vfs.h"

namespace loaderx {

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
  absl::StatusOr<uint64_t> AvailableBytes(absl::string_view path) override {
    return target_->AvailableBytes(path);
  }
  bool ConcurrentSyncs() const override { return target_->ConcurrentSyncs(); }

 private:
  std::unique_ptr<Vfs> owned_;
  Vfs* target_;
};

}  // namespace loaderx

#endif  // LOADERX_VFS_WRAPPER_H_
