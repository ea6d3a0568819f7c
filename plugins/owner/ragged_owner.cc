// The "ragged" owner (kind tag 2): records of one dtype, each with its own
// shape, stored as payload/shape pairs (physical records 2i and 2i+1).
// Identity: {"dtype"} only; shapes are per record, never part of it.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "loaderx/dtype.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/typed_owner.h"
#include "loaderx/typed_owner_registry.h"
#include "plugins/owner/msgpack_identity.h"

namespace loaderx {
namespace {

class RaggedOwner final : public TypedOwner {
 public:
  absl::string_view kind() const override { return "ragged"; }
  uint8_t kind_tag() const override { return 2; }
  RecordGeometry::Layout layout() const override {
    return RecordGeometry::Layout::kPayloadShapePairs;
  }

  absl::StatusOr<std::string> EncodeIdentity(
      const TypeIdentity& identity) const override {
    LOADERX_RETURN_IF_ERROR(Geometry(identity).status());
    return msgpack_identity::Encode(identity, /*with_item_shape=*/false);
  }

  absl::StatusOr<TypeIdentity> DecodeIdentity(
      absl::string_view encoded) const override {
    LOADERX_ASSIGN_OR_RETURN(
        TypeIdentity identity,
        msgpack_identity::Decode(encoded, /*with_item_shape=*/false));
    if (absl::Status s = Geometry(identity).status(); !s.ok()) {
      return absl::DataLossError(
          absl::StrCat("stored ragged identity is invalid: ", s.message()));
    }
    return identity;
  }

  absl::StatusOr<RecordGeometry> Geometry(
      const TypeIdentity& identity) const override {
    if (!identity.item_shape.empty()) {
      return absl::InvalidArgumentError(
          "a ragged identity has no item_shape: each record keeps its own");
    }
    LOADERX_ASSIGN_OR_RETURN(uint64_t item_size, DTypeItemSize(identity.dtype));
    return RecordGeometry{RecordGeometry::Layout::kPayloadShapePairs, 0,
                          item_size};
  }
};

const TypedOwnerRegistration kRegistration(std::make_shared<RaggedOwner>());

}  // namespace
}  // namespace loaderx
