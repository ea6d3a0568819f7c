#include "loaderx/vfs.h"

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace loaderx {
namespace {

// The payload that marks a status as "lock held elsewhere". A payload rather
// than a bare code keeps `IsBusy` exact: other Unavailable errors (a device
// going away) are not mistaken for contention.
constexpr absl::string_view kBusyPayload = "loaderx.dev/busy";

}  // namespace

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

absl::StatusOr<std::string> ReadFileToString(Vfs& vfs, absl::string_view path) {
  absl::StatusOr<std::unique_ptr<VfsFile>> file =
      vfs.Open(path, OpenMode::kReadOnly);
  if (!file.ok()) return file.status();
  absl::StatusOr<uint64_t> size = (*file)->Size();
  if (!size.ok()) return size.status();
  std::string contents(*size, '\0');
  absl::Status read = (*file)->ReadAt(0, absl::MakeSpan(contents));
  if (!read.ok()) return read;
  return contents;
}

absl::Status WriteStringToFile(Vfs& vfs, absl::string_view path,
                               absl::string_view contents, bool sync) {
  absl::StatusOr<std::unique_ptr<VfsFile>> file =
      vfs.Open(path, OpenMode::kCreate);
  if (!file.ok()) return file.status();
  absl::Status status = (*file)->Truncate(0);
  if (!status.ok()) return status;
  status = (*file)->WriteAt(0, contents);
  if (!status.ok() || !sync) return status;
  return (*file)->Sync();
}

}  // namespace loaderx
