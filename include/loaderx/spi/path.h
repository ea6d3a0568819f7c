// Path arithmetic on the engine's `/`-separated paths (on Windows, `\`
// separates too, and "C:/" is a root like "/"). Pure string work: no
// filesystem is consulted and "." / ".." are not interpreted.

#ifndef LOADERX_SPI_PATH_H_
#define LOADERX_SPI_PATH_H_

#include <string>

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

}  // namespace loaderx

#endif  // LOADERX_SPI_PATH_H_
