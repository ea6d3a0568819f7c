// Path arithmetic on the engine's `/`-separated paths (on Windows, `\`
// separates too, and "C:/" is a root like "/"). Pure string work: no
// filesystem is consulted and "." / ".." are not interpreted.
//
// `ValidatePath` is the one check that a path is taken whole: every VFS
// plugin calls it on every path it is given, and the stores and the CLI
// call it before they touch anything, so a path the platform cannot name
// exactly is refused rather than cut short or mangled.

#ifndef LOADERX_SPI_PATH_H_
#define LOADERX_SPI_PATH_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace loaderx {

// The directory holding `path`: "" (the current directory) for a bare name,
// the root ("/", or "C:/" on Windows) for a name directly under it,
// otherwise everything before the last separator.
std::string ParentDirectory(absl::string_view path);

// The last component of `path` (everything after the last `/`).
absl::string_view BaseName(absl::string_view path);

// `directory` and `name` joined by exactly one `/`; `name` alone when
// `directory` is empty.
std::string JoinPath(absl::string_view directory, absl::string_view name);

// OK when the platform can name `path` exactly as given; InvalidArgument
// naming the path (escaped) and the offending byte otherwise. Everywhere a
// NUL byte is refused: the C and Win32 APIs end a name at it, so "a\0b"
// would silently become "a". On Windows also what no Windows name may
// hold: bytes that are not UTF-8, control characters (U+0001..U+001F),
// `<`, `>`, `"`, `|`, `?`, `*`, and a `:` anywhere but after a drive letter
// (an alternate data stream); an extended-length `\\?\` prefix is allowed.
// Elsewhere any other byte sequence is a valid name.
absl::Status ValidatePath(absl::string_view path);

}  // namespace loaderx

#endif  // LOADERX_SPI_PATH_H_
