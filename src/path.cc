#include "loaderx/spi/path.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace loaderx {

std::string ParentDirectory(absl::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == absl::string_view::npos) return "";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

absl::string_view BaseName(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

std::string JoinPath(absl::string_view directory, absl::string_view name) {
  if (directory.empty()) return std::string(name);
  if (directory.back() == '/') return absl::StrCat(directory, name);
  return absl::StrCat(directory, "/", name);
}

}  // namespace loaderx
