// The typed-owner registry: owners register under their kind name and
// persisted kind tag, and the engine finds them by name (creating a store)
// or by tag (opening one). An owner registers itself with a namespace-scope
// `TypedOwnerRegistration` in its `.cc`, built `alwayslink = 1`; owners are
// stateless, so the registry hands out one shared instance per kind.

#ifndef LOADERX_TYPED_OWNER_REGISTRY_H_
#define LOADERX_TYPED_OWNER_REGISTRY_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "loaderx/registry.h"
#include "loaderx/typed_owner.h"

namespace loaderx {

struct TypedOwnerDescriptor {
  uint8_t tag;  // == owner->kind_tag()
  std::shared_ptr<const TypedOwner> owner;
};

// The process-wide typed-owner registry.
Registry<TypedOwnerDescriptor>& TypedOwnerRegistry();

// The owner registered as `kind`; NotFound names the registered kinds.
absl::StatusOr<std::shared_ptr<const TypedOwner>> FindTypedOwner(
    absl::string_view kind);

// The owner registered with `kind_tag` (as read from a typed header).
absl::StatusOr<std::shared_ptr<const TypedOwner>> FindTypedOwnerByTag(
    uint8_t kind_tag);

// Registers `owner` under its `kind()` and `kind_tag()`; aborts on a clash.
class TypedOwnerRegistration {
 public:
  explicit TypedOwnerRegistration(std::shared_ptr<const TypedOwner> owner);
};

}  // namespace loaderx

#endif  // LOADERX_TYPED_OWNER_REGISTRY_H_
