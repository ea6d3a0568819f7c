#include "vfs/win32/win32_error.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "loaderx/vfs.h"
#include "vfs/win32/win32_path.h"
#include "vfs/win32/windows_include.h"

namespace loaderx {

absl::StatusCode Win32ErrorCode(DWORD error) {
  switch (error) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME:
      return absl::StatusCode::kNotFound;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
      return absl::StatusCode::kAlreadyExists;
    case ERROR_HANDLE_EOF:
      return absl::StatusCode::kOutOfRange;
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_NOT_READY:
    case ERROR_DEV_NOT_EXIST:
    case ERROR_NETNAME_DELETED:
      return absl::StatusCode::kUnavailable;
    case ERROR_INVALID_PARAMETER:
    case ERROR_INVALID_NAME:
    case ERROR_BAD_PATHNAME:
    case ERROR_FILENAME_EXCED_RANGE:
    case ERROR_NEGATIVE_SEEK:
      return absl::StatusCode::kInvalidArgument;
    case ERROR_DIR_NOT_EMPTY:
    case ERROR_DIRECTORY:
    case ERROR_DELETE_PENDING:
    case ERROR_USER_MAPPED_FILE:  // Truncating below a mapped view.
      return absl::StatusCode::kFailedPrecondition;
    case ERROR_ACCESS_DENIED:
    case ERROR_WRITE_PROTECT:
    case ERROR_PRIVILEGE_NOT_HELD:
      return absl::StatusCode::kPermissionDenied;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
    case ERROR_TOO_MANY_OPEN_FILES:
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
    case ERROR_NOT_ENOUGH_QUOTA:
      return absl::StatusCode::kResourceExhausted;
    case ERROR_CRC:
    case ERROR_IO_DEVICE:
    case ERROR_FILE_CORRUPT:
    case ERROR_DISK_CORRUPT:
      return absl::StatusCode::kDataLoss;
    case ERROR_NOT_SUPPORTED:
    case ERROR_INVALID_FUNCTION:
    case ERROR_CALL_NOT_IMPLEMENTED:
      return absl::StatusCode::kUnimplemented;
    default:
      return absl::StatusCode::kUnknown;
  }
}

std::string Win32ErrorMessage(DWORD error) {
  wchar_t* buffer = nullptr;
  const DWORD length = ::FormatMessageW(
      FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
          FORMAT_MESSAGE_IGNORE_INSERTS,
      nullptr, error, MAKELANGID(LANG_NEUTRAL, SUBLANG_DEFAULT),
      reinterpret_cast<wchar_t*>(&buffer), 0, nullptr);
  std::string message;
  if (length > 0) {
    std::wstring_view text(buffer, length);
    while (!text.empty() && (text.back() == L'\n' || text.back() == L'\r' ||
                             text.back() == L' ')) {
      text.remove_suffix(1);
    }
    absl::StatusOr<std::string> utf8 = WideToUtf8(text);
    if (utf8.ok()) message = *std::move(utf8);
  }
  if (buffer != nullptr) ::LocalFree(buffer);
  if (message.empty()) message = "unknown error";
  return absl::StrCat(message, " (Windows error ", error, ")");
}

absl::Status Win32Error(absl::string_view operation, absl::string_view path,
                        DWORD error) {
  if (error == ERROR_SHARING_VIOLATION || error == ERROR_LOCK_VIOLATION) {
    return BusyError(path);
  }
  return absl::Status(
      Win32ErrorCode(error),
      absl::StrCat(operation, " ", path, ": ", Win32ErrorMessage(error)));
}

}  // namespace loaderx
