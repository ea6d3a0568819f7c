// The "dense" owner (kind tag 1): every record is one item of a fixed
// `item_shape`, so records have one width and a batch read is a fixed-stride
// gather. Identity: {"dtype", "item_shape"}.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "loaderx/dtype.h"
#include "loaderx/error_code.h"
#include "loaderx/spi/limits.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/typed_owner.h"
#include "loaderx/typed_owner_registry.h"
#include "plugins/owner/msgpack_identity.h"

namespace loaderx {
namespace {

class DenseOwner final : public TypedOwner {
 public:
  absl::string_view kind() const override { return "dense"; }
  uint8_t kind_tag() const override { return 1; }
  RecordGeometry::Layout layout() const override {
    return RecordGeometry::Layout::kFixedWidth;
  }

  absl::StatusOr<std::string> EncodeIdentity(
      const TypeIdentity& identity) const override {
    LOADERX_RETURN_IF_ERROR(Geometry(identity).status());
    return msgpack_identity::Encode(identity, /*with_item_shape=*/true);
  }

  absl::StatusOr<TypeIdentity> DecodeIdentity(
      absl::string_view encoded) const override {
    LOADERX_ASSIGN_OR_RETURN(
        TypeIdentity identity,
        msgpack_identity::Decode(encoded, /*with_item_shape=*/true));
    if (absl::Status s = Geometry(identity).status(); !s.ok()) {
      return absl::DataLossError(
          absl::StrCat("stored dense identity is invalid: ", s.message()));
    }
    return identity;
  }

  absl::StatusOr<RecordGeometry> Geometry(
      const TypeIdentity& identity) const override {
    LOADERX_ASSIGN_OR_RETURN(uint64_t item_size, DTypeItemSize(identity.dtype));
    const std::string described =
        absl::StrCat("item_shape (", absl::StrJoin(identity.item_shape, ", "),
                     ") of dtype ", DTypeToString(identity.dtype));
    // Overflow-safe: a zero anywhere makes records empty, whatever the rest.
    uint64_t width = item_size;
    bool empty = item_size == 0;
    bool too_large = false;
    for (uint64_t dim : identity.item_shape) {
      if (dim == 0) {
        empty = true;
      } else if (too_large || width > kMaxRecordBytes / dim) {
        too_large = true;
      } else {
        width *= dim;
      }
    }
    if (empty) {
      return absl::InvalidArgumentError(absl::StrCat(
          described, " makes records of 0 bytes; records must be nonempty"));
    }
    if (too_large || width > kMaxRecordBytes) {
      return RecordTooLargeError(
          absl::StrCat(described, " makes records larger than 2^31 bytes"));
    }
    return RecordGeometry{RecordGeometry::Layout::kFixedWidth, width,
                          item_size};
  }
};

const TypedOwnerRegistration kRegistration(std::make_shared<DenseOwner>());

}  // namespace
}  // namespace loaderx
