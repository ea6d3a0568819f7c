// Path arithmetic on the engine's `/`-separated paths. Pure string work: no
// filesystem is consulted and "." / ".." are not interpreted.

#ifndef LOADERX_SPI_PATH_H_
#define LOADERX_SPI_PATH_H_

#include <string>

#include "absl/strings/string_view.h"

namespace loaderx {

// The directory holding `path`: "" (the current directory) for a bare name,
// "/" for a name directly under the root, otherwise everything before the
// last `/`.
std::string ParentDirectory(absl::string_view path);

// The last component of `path` (everything after the last `/`).
absl::string_view BaseName(absl::string_view path);

// `directory` and `name` joined by exactly one `/`; `name` alone when
// `directory` is empty.
std::string JoinPath(absl::string_view directory, absl::string_view name);

}  // namespace loaderx

#endif  // LOADERX_SPI_PATH_H_
