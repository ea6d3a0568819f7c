#include "loaderx/vfs.h"

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "loaderx/spi/status_macros.h"

namespace loaderx {
namespace {

// The payload that marks a status as "lock held elsewhere". A payload rather
// than a bare code keeps `IsBusy` exact: other Unavailable errors (a device
// going away) are not mistaken for contention.
constexpr absl::string_view kBusyPayload = "loaderx.dev/busy";

}  // namespace

absl::Status VfsFile::TryLockShared() {
  return absl::UnimplementedError(
      absl::StrCat("lock ", path(), ": this filesystem has no shared locks"));
}

absl::StatusOr<std::unique_ptr<MappedRegion>> VfsFile::MapReadOnly(
    uint64_t offset, uint64_t length) const {
  return absl::UnimplementedError(
      absl::StrCat("map ", path(), ": this filesystem cannot map files"));
}

absl::StatusOr<uint64_t> VfsFile::ModificationStamp() const {
  return absl::UnimplementedError(absl::StrCat(
      "stamp ", path(), ": this filesystem keeps no modification times"));
}

absl::Status VfsFile::Allocate(uint64_t bytes) {
  LOADERX_ASSIGN_OR_RETURN(const uint64_t size, Size());
  if (size >= bytes) return absl::OkStatus();
  return Truncate(bytes);
}

absl::StatusOr<uint64_t> Vfs::AvailableBytes(absl::string_view path) {
  return absl::UnimplementedError(absl::StrCat(
      "free space of ", path, ": this filesystem does not report it"));
}

absl::Status BusyError(absl::string_view path) {
  absl::Status status = absl::UnavailableError(
      absl::StrCat("busy: ", path, " is locked by another handle or process"));
  status.SetPayload(kBusyPayload, absl::Cord(path));
  return status;
}

bool IsBusy(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable &&
         status.GetPayload(kBusyPayload).has_value();
}

absl::Status ReadPastEndError(absl::string_view path, uint64_t offset,
                              uint64_t wanted, uint64_t available) {
  return absl::OutOfRangeError(
      absl::StrCat("read ", path, ": wanted ", wanted, " bytes at offset ",
                   offset, " but the file ends after ", available));
}

absl::Status ReadOnlyHandleError(absl::string_view path) {
  return absl::FailedPreconditionError(
      absl::StrCat("write ", path, ": the file was opened read-only"));
}

absl::Status LockModeConflictError(absl::string_view path, bool holds_shared) {
  return absl::FailedPreconditionError(absl::StrCat(
      "lock ", path, ": this handle already holds the ",
      holds_shared ? "shared" : "exclusive", " lock; locks are not converted"));
}

absl::StatusOr<std::string> ReadFileToString(Vfs& vfs, absl::string_view path) {
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<VfsFile> file,
                           vfs.Open(path, OpenMode::kReadOnly));
  LOADERX_ASSIGN_OR_RETURN(const uint64_t size, file->Size());
  std::string contents(size, '\0');
  LOADERX_RETURN_IF_ERROR(file->ReadAt(0, absl::MakeSpan(contents)));
  return contents;
}

absl::Status WriteStringToFile(Vfs& vfs, absl::string_view path,
                               absl::string_view contents, bool sync) {
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<VfsFile> file,
                           vfs.Open(path, OpenMode::kCreate));
  // Truncating a file that is already empty is not free on ext4: it arms
  // auto_da_alloc, and closing the file then starts writeback.
  LOADERX_ASSIGN_OR_RETURN(const uint64_t size, file->Size());
  if (size > 0) LOADERX_RETURN_IF_ERROR(file->Truncate(0));
  LOADERX_RETURN_IF_ERROR(file->WriteAt(0, contents));
  if (!sync) return absl::OkStatus();
  return file->Sync();
}

}  // namespace loaderx
