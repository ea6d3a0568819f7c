#include "loaderx/spi/path.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace loaderx {
namespace {

// Windows accepts `\` as well as `/` between components, and users write
// paths with it ("C:\data\store"); elsewhere `\` is an ordinary character.
#ifdef _WIN32
constexpr absl::string_view kSeparators = "/\\";
#else
constexpr absl::string_view kSeparators = "/";
#endif

bool IsSeparator(char c) {
  return kSeparators.find(c) != absl::string_view::npos;
}

// Whether `path` is a drive and its root separator ("C:/"): the root of
// the drive, like "/" elsewhere.
bool IsDriveRoot(absl::string_view path) {
#ifdef _WIN32
  return path.size() == 3 && path[1] == ':' && IsSeparator(path[2]);
#else
  return false;
#endif
}

}  // namespace

std::string ParentDirectory(absl::string_view path) {
  const size_t slash = path.find_last_of(kSeparators);
  if (slash == absl::string_view::npos) return "";
  if (slash == 0) return std::string(path.substr(0, 1));
  if (IsDriveRoot(path.substr(0, slash + 1))) {
    return std::string(path.substr(0, slash + 1));
  }
  return std::string(path.substr(0, slash));
}

absl::string_view BaseName(absl::string_view path) {
  const size_t slash = path.find_last_of(kSeparators);
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

std::string JoinPath(absl::string_view directory, absl::string_view name) {
  if (directory.empty()) return std::string(name);
  if (IsSeparator(directory.back())) return absl::StrCat(directory, name);
  return absl::StrCat(directory, "/", name);
}

}  // namespace loaderx
