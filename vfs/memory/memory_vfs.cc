// The "memory" VFS: a whole filesystem in process memory, for fast tests.
//
// It follows the POSIX VFS's semantics, checked by the same conformance
// suite: files are nodes shared between the namespace and open handles (so a
// removed or renamed file stays usable through its handles, like an inode),
// directories must exist before entries are made in them, and the locks
// belong to the node, not the path. Sync calls are no-ops: nothing here
// survives the process, and the fault VFS models durability on top of it.
// `ModificationStamp` ticks a process-wide counter on every change.
// `MapReadOnly` hands out the file's own bytes: a node's contents are a
// shared buffer, and a write to a buffer that a mapping still holds copies
// it first (copy-on-write), so a mapping is a stable snapshot.
//
// Each `CreateVfs("memory")` is a new, empty filesystem in which "/" and the
// current directory ("" or ".") exist. Paths are normalised by collapsing
// repeated slashes and dropping a trailing one; "." and ".." are not
// interpreted inside a path.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "loaderx/spi/path.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"

namespace loaderx {
namespace {

// What a file is: its bytes and which handles hold its lock.
struct FileNode {
  mutable std::shared_mutex mu;
  // Never null. Shared with the mappings made of it; copied before a write
  // while any mapping holds it.
  std::shared_ptr<std::string> data =  // Guarded by `mu`.
      std::make_shared<std::string>();
  // When the contents last changed: a tick of `NextStamp`.
  uint64_t stamp = 0;      // Guarded by `mu`.
  bool exclusive = false;  // Guarded by `mu`.
  int shared = 0;          // Guarded by `mu`: holders of the shared lock.

  // The buffer, made private to this node so it may be changed in place.
  std::string& MutableData() {
    if (data.use_count() > 1) data = std::make_shared<std::string>(*data);
    return *data;
  }
};

// The memory VFS's clock for `ModificationStamp`: one tick per change, so
// every write is seen as later than the ones before it.
uint64_t NextStamp() {
  static std::atomic<uint64_t> clock{0};
  return clock.fetch_add(1, std::memory_order_relaxed) + 1;
}

// A snapshot of a file's bytes, sharing the node's buffer.
class MemoryMapping final : public MappedRegion {
 public:
  MemoryMapping(std::shared_ptr<const std::string> buffer,
                absl::string_view data)
      : buffer_(std::move(buffer)), data_(data) {}
  absl::string_view data() const override { return data_; }

 private:
  const std::shared_ptr<const std::string> buffer_;
  const absl::string_view data_;
};

std::string Normalize(absl::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (char c : path) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out.push_back(c);
  }
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  if (out == ".") out.clear();  // The current directory.
  return out;
}

class MemoryFile final : public VfsFile {
 public:
  MemoryFile(std::string path, std::shared_ptr<FileNode> node, bool writable)
      : path_(std::move(path)), node_(std::move(node)), writable_(writable) {}

  ~MemoryFile() override {
    std::unique_lock lock(node_->mu);
    if (held_ == Held::kExclusive) node_->exclusive = false;
    if (held_ == Held::kShared) --node_->shared;
  }

  const std::string& path() const override { return path_; }

  absl::Status ReadAt(uint64_t offset, absl::Span<char> dst) const override {
    if (dst.empty()) return absl::OkStatus();
    std::shared_lock lock(node_->mu);
    const std::string& data = *node_->data;
    if (offset > data.size() || dst.size() > data.size() - offset) {
      return ReadPastEndError(path_, offset, dst.size(),
                              offset > data.size() ? 0 : data.size() - offset);
    }
    std::memcpy(dst.data(), data.data() + offset, dst.size());
    return absl::OkStatus();
  }

  absl::Status WriteAt(uint64_t offset, absl::string_view data) override {
    return WriteVectorAt(offset, {data});
  }

  absl::Status WriteVectorAt(
      uint64_t offset, absl::Span<const absl::string_view> pieces) override {
    uint64_t total = 0;
    for (absl::string_view piece : pieces) total += piece.size();
    LOADERX_RETURN_IF_ERROR(CheckWrite(offset, total));
    if (total == 0) return absl::OkStatus();  // Like pwrite: no extension.
    std::unique_lock lock(node_->mu);
    std::string& data = node_->MutableData();
    if (data.size() < offset + total) data.resize(offset + total, '\0');
    for (absl::string_view piece : pieces) {
      if (!piece.empty())
        std::memcpy(&data[offset], piece.data(), piece.size());
      offset += piece.size();
    }
    node_->stamp = NextStamp();
    return absl::OkStatus();
  }

  absl::StatusOr<uint64_t> Size() const override {
    std::shared_lock lock(node_->mu);
    return node_->data->size();
  }

  absl::Status Truncate(uint64_t size) override {
    LOADERX_RETURN_IF_ERROR(CheckWrite(size, 0));
    std::unique_lock lock(node_->mu);
    node_->MutableData().resize(size, '\0');
    node_->stamp = NextStamp();
    return absl::OkStatus();
  }

  absl::StatusOr<uint64_t> ModificationStamp() const override {
    std::shared_lock lock(node_->mu);
    return node_->stamp;
  }

  absl::Status SyncData() override { return absl::OkStatus(); }
  absl::Status Sync() override { return absl::OkStatus(); }

  absl::Status TryLock() override {
    std::unique_lock lock(node_->mu);
    if (held_ != Held::kNone) return Relock(Held::kExclusive);
    if (node_->exclusive || node_->shared > 0) return BusyError(path_);
    node_->exclusive = true;
    held_ = Held::kExclusive;
    return absl::OkStatus();
  }

  absl::Status TryLockShared() override {
    std::unique_lock lock(node_->mu);
    if (held_ != Held::kNone) return Relock(Held::kShared);
    if (node_->exclusive) return BusyError(path_);
    ++node_->shared;
    held_ = Held::kShared;
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<MappedRegion>> MapReadOnly(
      uint64_t offset, uint64_t length) const override {
    std::shared_lock lock(node_->mu);
    const std::shared_ptr<const std::string> buffer = node_->data;
    if (offset > buffer->size() || length > buffer->size() - offset) {
      return absl::OutOfRangeError(
          absl::StrCat("map ", path_, ": wanted ", length, " bytes at offset ",
                       offset, " but the file ends after ",
                       offset > buffer->size() ? 0 : buffer->size() - offset));
    }
    const absl::string_view bytes =
        absl::string_view(*buffer).substr(offset, length);
    return std::make_unique<MemoryMapping>(buffer, bytes);
  }

 private:
  enum class Held { kNone, kShared, kExclusive };

  // A lock request on a handle that already holds `held_`.
  absl::Status Relock(Held wanted) const {
    if (held_ == wanted) return absl::OkStatus();
    return LockModeConflictError(path_, held_ == Held::kShared);
  }

  // The memory VFS holds files in a `std::string`; refuse sizes it could not
  // allocate rather than throwing from `resize`.
  absl::Status CheckWrite(uint64_t offset, uint64_t size) const {
    if (!writable_) return ReadOnlyHandleError(path_);
    constexpr uint64_t kMaxSize = uint64_t{1} << 40;
    if (offset > kMaxSize || size > kMaxSize - offset) {
      return absl::InvalidArgumentError(
          absl::StrCat("write ", path_, ": range [", offset, ", +", size,
                       ") exceeds the memory VFS's 1 TiB file limit"));
    }
    return absl::OkStatus();
  }

  const std::string path_;
  const std::shared_ptr<FileNode> node_;
  const bool writable_;
  Held held_ = Held::kNone;  // Guarded by `node_->mu`.
};

class MemoryVfs final : public Vfs {
 public:
  static constexpr char kName[] = "memory";

  MemoryVfs() : directories_{"", "/"} {}

  absl::StatusOr<std::unique_ptr<VfsFile>> Open(absl::string_view raw_path,
                                                OpenMode mode) override {
    LOADERX_RETURN_IF_ERROR(ValidatePath(raw_path));
    const std::string path = Normalize(raw_path);
    std::lock_guard lock(mu_);
    if (directories_.count(path)) {
      if (mode == OpenMode::kCreateExclusive) {
        return absl::AlreadyExistsError(
            absl::StrCat("open ", path, ": exists (a directory)"));
      }
      return absl::FailedPreconditionError(
          absl::StrCat("open ", path, ": not a regular file"));
    }
    LOADERX_RETURN_IF_ERROR(CheckParentLocked("open", path));
    auto it = files_.find(path);
    if (it == files_.end()) {
      if (mode == OpenMode::kReadOnly || mode == OpenMode::kReadWrite) {
        return absl::NotFoundError(
            absl::StrCat("open ", path, ": no such file"));
      }
      it = files_.emplace(path, std::make_shared<FileNode>()).first;
    } else if (mode == OpenMode::kCreateExclusive) {
      return absl::AlreadyExistsError(
          absl::StrCat("open ", path, ": file exists"));
    }
    return std::make_unique<MemoryFile>(path, it->second,
                                        mode != OpenMode::kReadOnly);
  }

  absl::Status Remove(absl::string_view raw_path) override {
    LOADERX_RETURN_IF_ERROR(ValidatePath(raw_path));
    const std::string path = Normalize(raw_path);
    std::lock_guard lock(mu_);
    if (directories_.count(path)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "remove ", path, ": is a directory (use RemoveDirectory)"));
    }
    LOADERX_RETURN_IF_ERROR(CheckParentLocked("remove", path));
    if (files_.erase(path) == 0) {
      return absl::NotFoundError(
          absl::StrCat("remove ", path, ": no such file"));
    }
    return absl::OkStatus();
  }

  absl::Status Rename(absl::string_view raw_from,
                      absl::string_view raw_to) override {
    LOADERX_RETURN_IF_ERROR(ValidatePath(raw_from));
    LOADERX_RETURN_IF_ERROR(ValidatePath(raw_to));
    const std::string from = Normalize(raw_from), to = Normalize(raw_to);
    const std::string what = absl::StrCat("rename ", from, " -> ", to);
    std::lock_guard lock(mu_);
    // The order of checks follows rename(2) after the POSIX VFS's own
    // directory check: both parents resolve before the names are looked up.
    if (directories_.count(from)) {
      return absl::FailedPreconditionError(
          absl::StrCat(what, ": directories cannot be renamed"));
    }
    LOADERX_RETURN_IF_ERROR(CheckParentLocked("rename", from));
    LOADERX_RETURN_IF_ERROR(CheckParentLocked("rename", to));
    auto it = files_.find(from);
    if (it == files_.end()) {
      return absl::NotFoundError(absl::StrCat(what, ": no such file"));
    }
    if (directories_.count(to)) {
      return absl::FailedPreconditionError(
          absl::StrCat(what, ": the target is a directory"));
    }
    if (from == to) return absl::OkStatus();
    std::shared_ptr<FileNode> node = std::move(it->second);
    files_.erase(it);
    files_[to] = std::move(node);
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<std::string>> List(
      absl::string_view raw_path) override {
    LOADERX_RETURN_IF_ERROR(ValidatePath(raw_path));
    const std::string path = Normalize(raw_path);
    std::lock_guard lock(mu_);
    if (files_.count(path)) {
      return absl::FailedPreconditionError(
          absl::StrCat("list ", path, ": not a directory"));
    }
    LOADERX_RETURN_IF_ERROR(CheckParentLocked("list", path));
    if (!directories_.count(path)) {
      return absl::NotFoundError(
          absl::StrCat("list ", path, ": no such directory"));
    }
    return ChildrenLocked(path);
  }

  absl::Status CreateDirectory(absl::string_view raw_path) override {
    LOADERX_RETURN_IF_ERROR(ValidatePath(raw_path));
    const std::string path = Normalize(raw_path);
    std::lock_guard lock(mu_);
    if (directories_.count(path) || files_.count(path)) {
      return absl::AlreadyExistsError(
          absl::StrCat("create directory ", path, ": exists"));
    }
    LOADERX_RETURN_IF_ERROR(CheckParentLocked("create directory", path));
    directories_.insert(path);
    return absl::OkStatus();
  }

  absl::Status RemoveDirectory(absl::string_view raw_path) override {
    LOADERX_RETURN_IF_ERROR(ValidatePath(raw_path));
    const std::string path = Normalize(raw_path);
    std::lock_guard lock(mu_);
    if (files_.count(path)) {
      return absl::FailedPreconditionError(
          absl::StrCat("remove directory ", path, ": not a directory"));
    }
    LOADERX_RETURN_IF_ERROR(CheckParentLocked("remove directory", path));
    if (!directories_.count(path)) {
      return absl::NotFoundError(
          absl::StrCat("remove directory ", path, ": no such directory"));
    }
    if (!ChildrenLocked(path).empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("remove directory ", path, ": not empty"));
    }
    directories_.erase(path);
    return absl::OkStatus();
  }

  absl::StatusOr<bool> Exists(absl::string_view raw_path) override {
    LOADERX_RETURN_IF_ERROR(ValidatePath(raw_path));
    const std::string path = Normalize(raw_path);
    std::lock_guard lock(mu_);
    return directories_.count(path) > 0 || files_.count(path) > 0;
  }

  absl::Status SyncDirectory(absl::string_view raw_path) override {
    LOADERX_RETURN_IF_ERROR(ValidatePath(raw_path));
    const std::string path = Normalize(raw_path);
    std::lock_guard lock(mu_);
    if (files_.count(path)) {
      return absl::FailedPreconditionError(
          absl::StrCat("sync directory ", path, ": not a directory"));
    }
    LOADERX_RETURN_IF_ERROR(CheckParentLocked("sync directory", path));
    if (!directories_.count(path)) {
      return absl::NotFoundError(
          absl::StrCat("sync directory ", path, ": no such directory"));
    }
    return absl::OkStatus();
  }

  // Its syncs do nothing: handing them to other threads would only cost.
  bool ConcurrentSyncs() const override { return false; }

 private:
  // Resolves the directories above `path` as a path lookup would, from the
  // top: the first one that is a file fails with FailedPrecondition (POSIX's
  // ENOTDIR), the first missing one with NotFound.
  absl::Status CheckParentLocked(absl::string_view operation,
                                 const std::string& path) const {
    std::vector<std::string> ancestors;
    for (std::string parent = ParentDirectory(path);
         parent != "" && parent != "/"; parent = ParentDirectory(parent)) {
      ancestors.push_back(parent);
    }
    for (auto it = ancestors.rbegin(); it != ancestors.rend(); ++it) {
      if (files_.count(*it)) {
        return absl::FailedPreconditionError(absl::StrCat(
            operation, " ", path, ": ", *it, " is not a directory"));
      }
      if (!directories_.count(*it)) {
        return absl::NotFoundError(
            absl::StrCat(operation, " ", path, ": ", *it, " does not exist"));
      }
    }
    return absl::OkStatus();
  }

  std::vector<std::string> ChildrenLocked(const std::string& directory) const {
    std::vector<std::string> names;
    for (const auto& [path, node] : files_) {
      if (ParentDirectory(path) == directory)
        names.emplace_back(BaseName(path));
    }
    for (const std::string& path : directories_) {
      if (path != directory && path != "" && path != "/" &&
          ParentDirectory(path) == directory) {
        names.emplace_back(BaseName(path));
      }
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  std::mutex mu_;
  std::map<std::string, std::shared_ptr<FileNode>> files_;  // Guarded by `mu_`.
  std::set<std::string> directories_;                       // Guarded by `mu_`.
};

const VfsRegistration kRegistration(MemoryVfs::kName, []() {
  return absl::StatusOr<std::unique_ptr<Vfs>>(std::make_unique<MemoryVfs>());
});

}  // namespace
}  // namespace loaderx
