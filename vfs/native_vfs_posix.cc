#include "absl/strings/string_view.h"
#include "vfs/native_vfs.h"

namespace loaderx {

absl::string_view NativeVfsName() { return "posix"; }

}  // namespace loaderx
