// The name of this platform's own filesystem plugin: "posix" on Linux,
// "win32" on Windows. Tests and tools that run on both use it to reach the
// real filesystem; linking `//vfs:native` also registers that plugin.

#ifndef LOADERX_VFS_NATIVE_VFS_H_
#define LOADERX_VFS_NATIVE_VFS_H_

#include "absl/strings/string_view.h"

namespace loaderx {

absl::string_view NativeVfsName();

}  // namespace loaderx

#endif  // LOADERX_VFS_NATIVE_VFS_H_
