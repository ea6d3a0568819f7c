// Win32 error codes in the `Vfs` error table (loaderx/vfs.h), so a caller
// sees the same status code for the same failure on every platform.
//
// clang-format off
//   ERROR_FILE_NOT_FOUND, ERROR_PATH_NOT_FOUND, ERROR_INVALID_DRIVE,
//   ERROR_BAD_NETPATH, ERROR_BAD_NET_NAME              NotFound
//   ERROR_FILE_EXISTS, ERROR_ALREADY_EXISTS           AlreadyExists
//   ERROR_HANDLE_EOF                                   OutOfRange
//   ERROR_SHARING_VIOLATION, ERROR_LOCK_VIOLATION      busy (`BusyError`)
//   ERROR_INVALID_PARAMETER, ERROR_INVALID_NAME,
//   ERROR_BAD_PATHNAME, ERROR_FILENAME_EXCED_RANGE,
//   ERROR_NEGATIVE_SEEK                                InvalidArgument
//   ERROR_DIR_NOT_EMPTY, ERROR_DIRECTORY,
//   ERROR_DELETE_PENDING, ERROR_USER_MAPPED_FILE       FailedPrecondition
//   ERROR_ACCESS_DENIED, ERROR_WRITE_PROTECT,
//   ERROR_PRIVILEGE_NOT_HELD                           PermissionDenied
//   ERROR_DISK_FULL, ERROR_HANDLE_DISK_FULL,
//   ERROR_TOO_MANY_OPEN_FILES, ERROR_NOT_ENOUGH_MEMORY,
//   ERROR_OUTOFMEMORY, ERROR_NOT_ENOUGH_QUOTA          ResourceExhausted
//   ERROR_CRC, ERROR_IO_DEVICE, ERROR_FILE_CORRUPT,
//   ERROR_DISK_CORRUPT                                 DataLoss
//   ERROR_NOT_READY, ERROR_DEV_NOT_EXIST,
//   ERROR_NETNAME_DELETED                              Unavailable (not busy)
//   ERROR_NOT_SUPPORTED, ERROR_INVALID_FUNCTION,
//   ERROR_CALL_NOT_IMPLEMENTED                         Unimplemented
//   anything else                                      Unknown
// clang-format on
//
// Where Win32 reports one code for two situations the table tells apart
// (ERROR_PATH_NOT_FOUND for a missing directory and for a file used as a
// directory; ERROR_ACCESS_DENIED for a refused access and for a directory
// opened as a file), the VFS looks at the path before choosing.

#ifndef LOADERX_VFS_WIN32_WIN32_ERROR_H_
#define LOADERX_VFS_WIN32_WIN32_ERROR_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "vfs/win32/windows_include.h"

namespace loaderx {

// The status code of `error` in the table above.
absl::StatusCode Win32ErrorCode(DWORD error);

// The system's message for `error`, in UTF-8, without a trailing newline.
std::string Win32ErrorMessage(DWORD error);

// A status for `error` naming the operation, the path (as the caller gave
// it) and the system's message: "open C:/data/meta.zr: Access is denied.
// (Windows error 5)". A sharing or lock violation is `BusyError(path)`.
absl::Status Win32Error(absl::string_view operation, absl::string_view path,
                        DWORD error);

}  // namespace loaderx

#endif  // LOADERX_VFS_WIN32_WIN32_ERROR_H_
