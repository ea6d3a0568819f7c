// The "dense" owner (kind tag 1): every record is one item of a fixed
// `item_shape`, so records have one width and a batch read is a fixed-stride
// gather. Identity: {"dtype", "item_shape"}.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "loaderx/spi/dtype.h"
#include "loaderx/spi/limits.h"
#include "loaderx/typed_owner.h"
#include "loaderx/typed_owner_registry.h"
#include "plugins/owner/msgpack_identity.h"

namespace loaderx {
namespace {

class DenseOwner final : public TypedOwner {
 public:
  absl::string_view kind() const override { return "dense"; }
  uint8_t kind_tag() const override { return 1; }

  absl::StatusOr<std::string> EncodeIdentity(
      const TypeIdentity& identity) const override {
    if (absl::Status s = Geometry(identity).status(); !s.ok()) return s;
    return msgpack_identity::Encode(identity, /*with_item_shape=*/true);
  }

  absl::StatusOr<TypeIdentity> DecodeIdentity(
      absl::string_view encoded) const override {
    auto identity = msgpack_identity::Decode(encoded, /*with_item_shape=*/true);
    if (!identity.ok()) return identity.status();
    if (absl::Status s = Geometry(*identity).status(); !s.ok()) {
      return absl::DataLossError(
          absl::StrCat("stored dense identity is invalid: ", s.message()));
    }
    return identity;
  }

  absl::StatusOr<RecordGeometry> Geometry(
      const TypeIdentity& identity) const override {
    auto item_size = DTypeItemSize(identity.dtype);
    if (!item_size.ok()) return item_size.status();
    uint64_t width = *item_size;
    for (uint64_t dim : identity.item_shape) {
      if (dim == 0) {
        return absl::InvalidArgumentError(
            "item_shape has a zero dimension: records would be empty");
      }
      if (width > kMaxRecordBytes / dim) {
        return absl::InvalidArgumentError(
            "item_shape makes a record larger than 2^31 bytes");
      }
      width *= dim;
    }
    return RecordGeometry{RecordGeometry::Layout::kFixedWidth, width,
                          *item_size};
  }
};

const TypedOwnerRegistration kRegistration(std::make_shared<DenseOwner>());

}  // namespace
}  // namespace loaderx
