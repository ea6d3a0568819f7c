#include "loaderx/typed_owner_registry.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/registration.h"

namespace loaderx {

Registry<TypedOwnerDescriptor>& TypedOwnerRegistry() {
  // Never destroyed: plugins may be looked up from other static destructors.
  static auto* registry = new Registry<TypedOwnerDescriptor>("typed owner");
  return *registry;
}

absl::StatusOr<std::shared_ptr<const TypedOwner>> FindTypedOwner(
    absl::string_view kind) {
  absl::StatusOr<TypedOwnerDescriptor> descriptor =
      TypedOwnerRegistry().Find(kind);
  if (!descriptor.ok()) return descriptor.status();
  return descriptor->owner;
}

absl::StatusOr<std::shared_ptr<const TypedOwner>> FindTypedOwnerByTag(
    uint8_t kind_tag) {
  auto found = FindByTag(TypedOwnerRegistry(), kind_tag);
  if (!found.has_value()) {
    return absl::NotFoundError(absl::StrCat(
        "no typed owner is registered with kind tag ", kind_tag,
        " (a store written by a newer loaderx, or an owner plugin that is "
        "not linked in)"));
  }
  return found->second.owner;
}

TypedOwnerRegistration::TypedOwnerRegistration(
    std::shared_ptr<const TypedOwner> owner) {
  const std::string kind(owner->kind());
  const uint8_t tag = owner->kind_tag();
  RegisterTaggedOrDie(TypedOwnerRegistry(), kind,
                      TypedOwnerDescriptor{tag, std::move(owner)});
}

}  // namespace loaderx
