// Paths for the Win32 API. loaderx's paths are UTF-8 strings whose
// components are separated by `/` (the engine joins with `/`) or, on
// Windows, `\`; the wide-character Win32 functions take UTF-16. Every call
// the "win32" VFS makes uses the extended-length form `ToWin32Path` returns:
//
//   - UTF-8 becomes UTF-16; invalid UTF-8 or a NUL character is
//     InvalidArgument (a name that cannot exist on Windows is rejected, not
//     mangled);
//   - `/` becomes `\` and the path is made absolute and normalised the way
//     Win32 itself does it (`GetFullPathNameW`): `.` and `..` are resolved,
//     a relative path is taken against the process's current directory
//     (which is process-wide state: change it only while no other thread
//     uses the VFS), trailing separators are dropped;
//   - the result carries the `\\?\` prefix (`\\?\UNC\server\share\...` for
//     UNC paths), which lifts the 260-character MAX_PATH limit to the
//     system's 32,767 characters without any opt-in by the application or
//     the machine, and stops Win32 from reinterpreting the name again.
//
// A path that already starts with `\\?\` is taken as given.

#ifndef LOADERX_VFS_WIN32_WIN32_PATH_H_
#define LOADERX_VFS_WIN32_WIN32_PATH_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace loaderx {

// UTF-8 to UTF-16 and back; InvalidArgument on malformed input.
absl::StatusOr<std::wstring> Utf8ToWide(absl::string_view utf8);
absl::StatusOr<std::string> WideToUtf8(std::wstring_view wide);

// The extended-length absolute form of `path` (see above).
absl::StatusOr<std::wstring> ToWin32Path(absl::string_view path);

// The directory holding an extended-length `path`, or empty when `path` is
// a root (`\\?\C:\`, `\\?\UNC\server\share`).
std::wstring Win32ParentPath(std::wstring_view path);

}  // namespace loaderx

#endif  // LOADERX_VFS_WIN32_WIN32_PATH_H_
