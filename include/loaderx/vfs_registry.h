// The VFS registry: VFS plugins register a factory under a name ("posix",
// "memory", "fault", "win32", or a user's own) and the engine creates them by
// that name. A plugin registers itself with a namespace-scope
// `VfsRegistration` in its `.cc`, built `alwayslink = 1`:
//
//   namespace {
//   const loaderx::VfsRegistration kRegistration(
//       MyVfs::kName, [] { return std::make_unique<MyVfs>(); });
//   }  // namespace
//
// Each `CreateVfs` call returns a new instance: for "memory" that is a new,
// empty filesystem; for "posix" a handle on the real one.

#ifndef LOADERX_VFS_REGISTRY_H_
#define LOADERX_VFS_REGISTRY_H_

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "loaderx/registry.h"
#include "loaderx/vfs.h"

namespace loaderx {

using VfsFactory = std::function<absl::StatusOr<std::unique_ptr<Vfs>>()>;

// The process-wide VFS registry.
Registry<VfsFactory>& VfsRegistry();

// Creates the VFS registered as `name`; NotFound names the registered ones.
absl::StatusOr<std::unique_ptr<Vfs>> CreateVfs(absl::string_view name);

// Registers a VFS factory when constructed; aborts on a duplicate name.
class VfsRegistration {
 public:
  VfsRegistration(absl::string_view name, VfsFactory factory);
};

}  // namespace loaderx

#endif  // LOADERX_VFS_REGISTRY_H_
