#include "loaderx/vfs_registry.h"

#include <memory>
#include <utility>

#include "src/registration.h"

namespace loaderx {

Registry<VfsFactory>& VfsRegistry() {
  // Never destroyed: plugins may be looked up from other static destructors.
  static auto* registry = new Registry<VfsFactory>("VFS");
  return *registry;
}

absl::StatusOr<std::unique_ptr<Vfs>> CreateVfs(absl::string_view name) {
  absl::StatusOr<VfsFactory> factory = VfsRegistry().Find(name);
  if (!factory.ok()) return factory.status();
  return (*factory)();
}

VfsRegistration::VfsRegistration(absl::string_view name, VfsFactory factory) {
  RegisterOrDie(VfsRegistry(), name, std::move(factory));
}

}  // namespace loaderx
