#include "vfs/fault/fault_vfs.h"

#include <algorithm>
#include <cerrno>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "loaderx/spi/path.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/vfs_registry.h"

namespace loaderx {

// What a crash would leave of one tracked file.
struct FaultVfs::Durability {
  // The contents as of the last sync; nullopt if never synced (empty).
  std::optional<std::string> durable;
  // Ranges `[begin, end)` written since the last sync.
  std::vector<std::pair<uint64_t, uint64_t>> unsynced;
  // Whether the directory entry survives a crash.
  bool entry_durable = false;
  // The wrapped file's modification stamp as of the last sync, if it has
  // stamps.
  std::optional<uint64_t> synced_stamp;
};

// The wrapped handle, shared with `FaultVfs` so a crash can close it while
// the caller still holds the `FaultVfsFile`.
struct FaultVfs::Handle {
  mutable std::shared_mutex mu;
  std::unique_ptr<VfsFile> base;  // Guarded by `mu`; null after a crash.
};

absl::string_view VfsOpName(VfsOp op) {
  switch (op) {
    case VfsOp::kOpen:
      return "Open";
    case VfsOp::kRemove:
      return "Remove";
    case VfsOp::kRename:
      return "Rename";
    case VfsOp::kList:
      return "List";
    case VfsOp::kCreateDirectory:
      return "CreateDirectory";
    case VfsOp::kRemoveDirectory:
      return "RemoveDirectory";
    case VfsOp::kExists:
      return "Exists";
    case VfsOp::kSyncDirectory:
      return "SyncDirectory";
    case VfsOp::kReadAt:
      return "ReadAt";
    case VfsOp::kWriteAt:
      return "WriteAt";
    case VfsOp::kWriteVectorAt:
      return "WriteVectorAt";
    case VfsOp::kSize:
      return "Size";
    case VfsOp::kTruncate:
      return "Truncate";
    case VfsOp::kSyncData:
      return "SyncData";
    case VfsOp::kSync:
      return "Sync";
    case VfsOp::kTryLock:
      return "TryLock";
    case VfsOp::kTryLockShared:
      return "TryLockShared";
    case VfsOp::kMapReadOnly:
      return "MapReadOnly";
    case VfsOp::kModificationStamp:
      return "ModificationStamp";
    case VfsOp::kAllocate:
      return "Allocate";
    case VfsOp::kOpenWritable:
      return "Open (writable)";
    case VfsOp::kUseSpace:
      return "UseSpace";
  }
  return "unknown";
}

class FaultVfsFile final : public VfsFile {
 public:
  FaultVfsFile(FaultVfs* vfs, std::string path,
               std::shared_ptr<FaultVfs::Handle> handle,
               std::shared_ptr<FaultVfs::Durability> durability)
      : vfs_(vfs),
        path_(std::move(path)),
        handle_(std::move(handle)),
        durability_(std::move(durability)) {}

  const std::string& path() const override { return path_; }

  absl::Status ReadAt(uint64_t offset, absl::Span<char> dst) const override {
    return Forward(VfsOp::kReadAt,
                   [&](VfsFile& f) { return f.ReadAt(offset, dst); });
  }

  absl::Status WriteAt(uint64_t offset, absl::string_view data) override {
    LOADERX_RETURN_IF_ERROR(UseSpaceUpTo(offset + data.size()));
    absl::Status status = Forward(
        VfsOp::kWriteAt, [&](VfsFile& f) { return f.WriteAt(offset, data); },
        /*mutating=*/true);
    if (status.ok()) Written(offset, data.size());
    NoteSize();
    return status;
  }

  absl::Status WriteVectorAt(
      uint64_t offset, absl::Span<const absl::string_view> pieces) override {
    uint64_t bytes = 0;
    for (absl::string_view piece : pieces) bytes += piece.size();
    LOADERX_RETURN_IF_ERROR(UseSpaceUpTo(offset + bytes));
    absl::Status status = Forward(
        VfsOp::kWriteVectorAt,
        [&](VfsFile& f) { return f.WriteVectorAt(offset, pieces); },
        /*mutating=*/true);
    if (status.ok()) {
      uint64_t total = 0;
      for (absl::string_view piece : pieces) total += piece.size();
      Written(offset, total);
    }
    NoteSize();
    return status;
  }

  absl::StatusOr<uint64_t> Size() const override {
    return Forward(VfsOp::kSize, [](VfsFile& f) { return f.Size(); });
  }

  absl::Status Truncate(uint64_t size) override {
    LOADERX_RETURN_IF_ERROR(UseSpaceUpTo(size));
    absl::Status status = Forward(
        VfsOp::kTruncate, [&](VfsFile& f) { return f.Truncate(size); },
        /*mutating=*/true);
    if (status.ok()) vfs_->ForgetRevertedStamp(path_);
    NoteSize();
    return status;
  }

  absl::Status Allocate(uint64_t bytes) override {
    LOADERX_RETURN_IF_ERROR(UseSpaceUpTo(bytes));
    absl::StatusOr<uint64_t> before = CurrentSize();
    absl::Status status = Forward(
        VfsOp::kAllocate, [&](VfsFile& f) { return f.Allocate(bytes); },
        /*mutating=*/true);
    // Extending is a write of zeros, for the crash model too.
    if (status.ok() && before.ok() && bytes > *before) {
      Written(*before, bytes - *before);
    }
    NoteSize();
    return status;
  }

  absl::StatusOr<uint64_t> ModificationStamp() const override {
    LOADERX_RETURN_IF_ERROR(vfs_->MaybeFail(VfsOp::kModificationStamp, path_));
    if (std::optional<uint64_t> reverted = vfs_->RevertedStamp(path_)) {
      return *reverted;
    }
    return Forward(
        VfsOp::kModificationStamp,
        [](VfsFile& f) { return f.ModificationStamp(); },
        /*mutating=*/false, /*counted=*/false);
  }

  absl::Status SyncData() override { return SyncAs(VfsOp::kSyncData); }
  absl::Status Sync() override { return SyncAs(VfsOp::kSync); }

  absl::Status TryLock() override {
    return Forward(VfsOp::kTryLock, [](VfsFile& f) { return f.TryLock(); });
  }

  absl::Status TryLockShared() override {
    return Forward(VfsOp::kTryLockShared,
                   [](VfsFile& f) { return f.TryLockShared(); });
  }

  absl::StatusOr<std::unique_ptr<MappedRegion>> MapReadOnly(
      uint64_t offset, uint64_t length) const override {
    if (!vfs_->mapping()) return VfsFile::MapReadOnly(offset, length);
    return Forward(VfsOp::kMapReadOnly,
                   [&](VfsFile& f) { return f.MapReadOnly(offset, length); });
  }

 private:
  // The wrapped file's size, uncounted.
  absl::StatusOr<uint64_t> CurrentSize() const {
    return Forward(
        VfsOp::kSize, [](VfsFile& f) { return f.Size(); },
        /*mutating=*/false, /*counted=*/false);
  }

  // Whether the file may grow to `end` bytes (see `MaybeRefuseSpace`).
  absl::Status UseSpaceUpTo(uint64_t end) {
    absl::StatusOr<uint64_t> size = CurrentSize();
    if (!size.ok() || end <= *size) return absl::OkStatus();
    return vfs_->MaybeRefuseSpace(path_, end - *size);
  }

  // Tells the VFS the file's size after a call that may have changed it.
  void NoteSize() {
    if (absl::StatusOr<uint64_t> size = CurrentSize(); size.ok()) {
      vfs_->RecordSize(path_, *size);
    }
  }

  // A successful write of `size` bytes at `offset`.
  void Written(uint64_t offset, uint64_t size) {
    if (durability_) vfs_->RecordWrite(*durability_, offset, size);
    if (size > 0) vfs_->ForgetRevertedStamp(path_);
  }

  // Runs `call` on the wrapped handle unless a rule fails `op` first (when
  // `counted`), the power is cut, or a crash closed the handle.
  template <typename Call>
  auto Forward(VfsOp op, Call call, bool mutating = false,
               bool counted = true) const
      -> decltype(call(std::declval<VfsFile&>())) {
    if (counted) LOADERX_RETURN_IF_ERROR(vfs_->MaybeFail(op, path_, mutating));
    std::shared_lock lock(handle_->mu);
    if (handle_->base == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat(VfsOpName(op), " ", path_,
                       ": the handle was closed by a simulated crash"));
    }
    return call(*handle_->base);
  }

  // Syncs, then records the file's current contents (and stamp) as durable.
  absl::Status SyncAs(VfsOp op) {
    std::optional<uint64_t> stamp;
    absl::StatusOr<std::string> contents = Forward(
        op,
        [&](VfsFile& f) -> absl::StatusOr<std::string> {
          absl::Status synced = op == VfsOp::kSync ? f.Sync() : f.SyncData();
          if (!synced.ok() || durability_ == nullptr) return synced;
          LOADERX_ASSIGN_OR_RETURN(uint64_t size, f.Size());
          std::string bytes(size, '\0');
          LOADERX_RETURN_IF_ERROR(f.ReadAt(0, absl::MakeSpan(bytes)));
          if (absl::StatusOr<uint64_t> now = f.ModificationStamp(); now.ok()) {
            stamp = *now;
          }
          return bytes;
        },
        /*mutating=*/true);
    LOADERX_RETURN_IF_ERROR(contents.status());
    if (durability_) {
      vfs_->RecordSync(*durability_, *std::move(contents), stamp);
    }
    return absl::OkStatus();
  }

  FaultVfs* const vfs_;
  const std::string path_;
  const std::shared_ptr<FaultVfs::Handle> handle_;
  // Null for a read-only handle on a file this VFS does not track.
  const std::shared_ptr<FaultVfs::Durability> durability_;
};

FaultVfs::FaultVfs(Vfs* base) : target_(base) {}
FaultVfs::FaultVfs(std::unique_ptr<Vfs> base)
    : owned_(std::move(base)), target_(owned_.get()) {}
FaultVfs::~FaultVfs() = default;

void FaultVfs::FailOnCall(VfsOp op, int64_t nth, absl::Status error,
                          bool sticky, absl::string_view path_filter) {
  std::lock_guard lock(mu_);
  std::erase_if(rules_, [&](const Rule& rule) {
    return rule.op == op && rule.path_filter == path_filter;
  });
  rules_.push_back(
      Rule{op, std::string(path_filter), nth, std::move(error), sticky});
}

void FaultVfs::ClearFaults() {
  std::lock_guard lock(mu_);
  rules_.clear();
}

void FaultVfs::set_capacity(int64_t bytes, int error_number) {
  std::lock_guard lock(mu_);
  capacity_ = bytes < 0 ? -1 : bytes;
  capacity_error_ = error_number;
}

uint64_t FaultVfs::UsedBytes() const {
  std::lock_guard lock(mu_);
  uint64_t used = 0;
  for (const auto& [path, size] : sizes_) used += size;
  return used;
}

absl::StatusOr<uint64_t> FaultVfs::AvailableBytes(absl::string_view path) {
  {
    std::lock_guard lock(mu_);
    if (capacity_ >= 0) {
      uint64_t used = 0;
      for (const auto& [file, size] : sizes_) used += size;
      const uint64_t capacity = static_cast<uint64_t>(capacity_);
      return capacity > used ? capacity - used : 0;
    }
  }
  return target().AvailableBytes(path);
}

absl::Status FaultVfs::MaybeRefuseSpace(absl::string_view path, uint64_t growth,
                                        bool creating) {
  LOADERX_RETURN_IF_ERROR(MaybeFail(VfsOp::kUseSpace, path));
  std::lock_guard lock(mu_);
  if (capacity_ < 0) return absl::OkStatus();
  uint64_t used = 0;
  for (const auto& [file, size] : sizes_) used += size;
  const uint64_t capacity = static_cast<uint64_t>(capacity_);
  const bool full = creating ? used >= capacity : used + growth > capacity;
  if (!full) return absl::OkStatus();
  return absl::ErrnoToStatus(
      capacity_error_,
      absl::StrCat("simulated full disk (", used, " of ", capacity,
                   " bytes used, ", growth, " more asked for): ", path));
}

void FaultVfs::RecordSize(const std::string& path, uint64_t size) {
  std::lock_guard lock(mu_);
  sizes_[path] = size;
}

void FaultVfs::set_mapping(bool enabled) {
  std::lock_guard lock(mu_);
  mapping_ = enabled;
}

bool FaultVfs::mapping() const {
  std::lock_guard lock(mu_);
  return mapping_;
}

void FaultVfs::set_concurrent_syncs(bool enabled) {
  std::lock_guard lock(mu_);
  concurrent_syncs_ = enabled;
}

bool FaultVfs::ConcurrentSyncs() const {
  std::lock_guard lock(mu_);
  return concurrent_syncs_;
}

int64_t FaultVfs::CallCount(VfsOp op) const {
  std::lock_guard lock(mu_);
  auto it = calls_.find(op);
  return it == calls_.end() ? 0 : it->second;
}

std::set<std::string> FaultVfs::PathsCalled(VfsOp op) const {
  std::lock_guard lock(mu_);
  auto it = paths_called_.find(op);
  return it == paths_called_.end() ? std::set<std::string>() : it->second;
}

void FaultVfs::CutPowerAfter(int64_t calls) {
  std::lock_guard lock(mu_);
  power_cut_at_ = calls < 0 ? -1 : mutating_calls_ + calls;
}

void FaultVfs::set_on_power_cut(std::function<void()> action) {
  std::lock_guard lock(mu_);
  on_power_cut_ = std::move(action);
}

int64_t FaultVfs::MutatingCalls() const {
  std::lock_guard lock(mu_);
  return mutating_calls_;
}

std::optional<uint64_t> FaultVfs::RevertedStamp(const std::string& path) const {
  std::lock_guard lock(mu_);
  auto it = reverted_stamps_.find(path);
  if (it == reverted_stamps_.end()) return std::nullopt;
  return it->second;
}

void FaultVfs::ForgetRevertedStamp(const std::string& path) {
  std::lock_guard lock(mu_);
  reverted_stamps_.erase(path);
}

absl::Status FaultVfs::MaybeFail(VfsOp op, absl::string_view path,
                                 bool mutating) {
  std::lock_guard lock(mu_);
  ++calls_[op];
  paths_called_[op].emplace(path);
  if (power_cut_at_ >= 0 && mutating_calls_ >= power_cut_at_) {
    if (on_power_cut_) std::exchange(on_power_cut_, nullptr)();
    return absl::UnavailableError(absl::StrCat(
        "simulated power cut: ", VfsOpName(op), " ", path, " never happened"));
  }
  for (Rule& rule : rules_) {
    if (rule.op != op || !absl::StrContains(path, rule.path_filter)) continue;
    ++rule.seen;
    if (rule.seen == rule.nth || (rule.sticky && rule.seen > rule.nth)) {
      return absl::Status(rule.error.code(),
                          absl::StrCat("injected fault in ", VfsOpName(op), " ",
                                       path, ": ", rule.error.message()));
    }
  }
  if (mutating) ++mutating_calls_;
  return absl::OkStatus();
}

void FaultVfs::RecordWrite(Durability& durability, uint64_t offset,
                           uint64_t size) {
  if (size == 0) return;
  std::lock_guard lock(mu_);
  durability.unsynced.emplace_back(offset, offset + size);
}

void FaultVfs::RecordSync(Durability& durability, std::string contents,
                          std::optional<uint64_t> stamp) {
  std::lock_guard lock(mu_);
  durability.durable = std::move(contents);
  durability.unsynced.clear();
  durability.synced_stamp = stamp;
}

absl::StatusOr<std::shared_ptr<FaultVfs::Durability>> FaultVfs::TrackLocked(
    const std::string& path, bool created, std::optional<uint64_t> stamp) {
  auto it = tracked_.find(path);
  if (it != tracked_.end()) return it->second;
  auto durability = std::make_shared<Durability>();
  if (!created) {
    // A file that predates tracking is durable as it is now.
    LOADERX_ASSIGN_OR_RETURN(durability->durable,
                             ReadFileToString(target(), path));
    durability->entry_durable = true;
    durability->synced_stamp = stamp;
  }
  tracked_.emplace(path, durability);
  return durability;
}

absl::StatusOr<std::unique_ptr<VfsFile>> FaultVfs::Open(absl::string_view path,
                                                        OpenMode mode) {
  const bool creating =
      mode == OpenMode::kCreate || mode == OpenMode::kCreateExclusive;
  // The writable check first: once the creating open is counted, the
  // file is created, even when that open is the last call a power cut
  // lets through (a kill right after it leaves an empty file).
  if (mode != OpenMode::kReadOnly) {
    LOADERX_RETURN_IF_ERROR(MaybeFail(VfsOp::kOpenWritable, path));
  }
  // A full disk refuses a new file before the open is counted.
  bool created = false;
  if (creating) {
    LOADERX_ASSIGN_OR_RETURN(const bool exists, target().Exists(path));
    created = !exists;
    if (created) LOADERX_RETURN_IF_ERROR(MaybeRefuseSpace(path, 0, true));
  }
  if (mode == OpenMode::kCreateExclusive) created = true;
  LOADERX_RETURN_IF_ERROR(MaybeFail(VfsOp::kOpen, path, creating));
  auto handle = std::make_shared<Handle>();
  LOADERX_ASSIGN_OR_RETURN(handle->base, target().Open(path, mode));
  if (absl::StatusOr<uint64_t> size = handle->base->Size(); size.ok()) {
    RecordSize(std::string(path), *size);
  }
  std::optional<uint64_t> stamp;
  if (absl::StatusOr<uint64_t> now = handle->base->ModificationStamp();
      now.ok()) {
    stamp = *now;
  }
  const std::string key(path);
  std::shared_ptr<Durability> durability;
  std::lock_guard lock(mu_);
  if (mode == OpenMode::kReadOnly) {
    auto it = tracked_.find(key);
    if (it != tracked_.end()) durability = it->second;
  } else {
    LOADERX_ASSIGN_OR_RETURN(durability, TrackLocked(key, created, stamp));
  }
  std::erase_if(handles_,
                [](const std::weak_ptr<Handle>& h) { return h.expired(); });
  handles_.push_back(handle);
  return std::make_unique<FaultVfsFile>(this, key, std::move(handle),
                                        std::move(durability));
}

absl::Status FaultVfs::Remove(absl::string_view path) {
  LOADERX_RETURN_IF_ERROR(MaybeFail(VfsOp::kRemove, path, true));
  LOADERX_RETURN_IF_ERROR(target().Remove(path));
  std::lock_guard lock(mu_);
  sizes_.erase(std::string(path));
  tracked_.erase(std::string(path));
  reverted_stamps_.erase(std::string(path));
  return absl::OkStatus();
}

absl::Status FaultVfs::Rename(absl::string_view from, absl::string_view to) {
  LOADERX_RETURN_IF_ERROR(MaybeFail(VfsOp::kRename, from, true));
  LOADERX_RETURN_IF_ERROR(target().Rename(from, to));
  std::lock_guard lock(mu_);
  reverted_stamps_.erase(std::string(from));
  reverted_stamps_.erase(std::string(to));
  if (auto size = sizes_.find(std::string(from)); size != sizes_.end()) {
    const uint64_t bytes = size->second;
    sizes_.erase(size);
    sizes_[std::string(to)] = bytes;
  } else {
    sizes_.erase(std::string(to));
  }
  auto it = tracked_.find(std::string(from));
  if (it == tracked_.end()) {
    tracked_.erase(std::string(to));
    return absl::OkStatus();
  }
  std::shared_ptr<Durability> durability = std::move(it->second);
  tracked_.erase(it);
  tracked_[std::string(to)] = std::move(durability);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> FaultVfs::List(
    absl::string_view path) {
  LOADERX_RETURN_IF_ERROR(MaybeFail(VfsOp::kList, path));
  return target().List(path);
}

absl::Status FaultVfs::CreateDirectory(absl::string_view path) {
  LOADERX_RETURN_IF_ERROR(MaybeFail(VfsOp::kCreateDirectory, path, true));
  return target().CreateDirectory(path);
}

absl::Status FaultVfs::RemoveDirectory(absl::string_view path) {
  LOADERX_RETURN_IF_ERROR(MaybeFail(VfsOp::kRemoveDirectory, path, true));
  return target().RemoveDirectory(path);
}

absl::StatusOr<bool> FaultVfs::Exists(absl::string_view path) {
  LOADERX_RETURN_IF_ERROR(MaybeFail(VfsOp::kExists, path));
  return target().Exists(path);
}

absl::Status FaultVfs::SyncDirectory(absl::string_view path) {
  LOADERX_RETURN_IF_ERROR(MaybeFail(VfsOp::kSyncDirectory, path, true));
  LOADERX_RETURN_IF_ERROR(target().SyncDirectory(path));
  absl::string_view directory = path;
  if (directory.size() > 1 && directory.back() == '/') {
    directory.remove_suffix(1);
  }
  std::lock_guard lock(mu_);
  for (auto& [file, durability] : tracked_) {
    if (ParentDirectory(file) == directory) durability->entry_durable = true;
  }
  return absl::OkStatus();
}

absl::Status FaultVfs::SimulateCrash(CrashMode mode, uint64_t seed) {
  std::vector<std::weak_ptr<Handle>> handles;
  std::map<std::string, std::shared_ptr<Durability>> tracked;
  {
    std::lock_guard lock(mu_);
    handles.swap(handles_);
    tracked.swap(tracked_);
    power_cut_at_ = -1;
  }
  // The process "died": its descriptors, and with them its locks, are gone.
  for (const std::weak_ptr<Handle>& weak : handles) {
    if (std::shared_ptr<Handle> handle = weak.lock()) {
      std::unique_lock lock(handle->mu);
      handle->base.reset();
    }
  }
  // A killed process loses nothing the kernel accepted.
  if (mode == CrashMode::kKillProcess) return absl::OkStatus();
  for (const auto& [path, durability] : tracked) {
    if (!durability->entry_durable) {
      absl::Status removed = target().Remove(path);
      if (!removed.ok() && !absl::IsNotFound(removed)) return removed;
      std::lock_guard lock(mu_);
      sizes_.erase(path);
      continue;
    }
    std::string contents = durability->durable.value_or("");
    if (mode == CrashMode::kGarbleUnsynced) {
      std::mt19937_64 random(seed ^ std::hash<std::string>()(path));
      for (const auto& [begin, end] : durability->unsynced) {
        if (contents.size() < end) contents.resize(end);
        for (uint64_t i = begin; i < end; ++i) {
          contents[i] = static_cast<char>(random());
        }
      }
    }
    LOADERX_RETURN_IF_ERROR(WriteStringToFile(target(), path, contents));
    std::lock_guard lock(mu_);
    sizes_[path] = contents.size();
    if (durability->synced_stamp.has_value()) {
      reverted_stamps_[path] = *durability->synced_stamp;
    } else {
      reverted_stamps_.erase(path);
    }
  }
  return absl::OkStatus();
}

namespace {

const VfsRegistration kRegistration(FaultVfs::kName, []() {
  absl::StatusOr<std::unique_ptr<Vfs>> memory = CreateVfs("memory");
  if (!memory.ok()) return memory;
  return absl::StatusOr<std::unique_ptr<Vfs>>(
      std::make_unique<FaultVfs>(*std::move(memory)));
});

}  // namespace
}  // namespace loaderx
