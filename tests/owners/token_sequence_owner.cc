// A typed owner defined outside loaderx, as a user writes one: fixed-length
// token sequences. Every record is `length` token ids of one integer dtype
// (a little-endian or single-byte signed or unsigned integer), so stores of
// this kind use the fixed-width layout and read back as (B, length) arrays.
//
// Its identity is its own, not the dense owner's msgpack: 24 bytes and the
// dtype, little-endian,
//
//   offset  size  field
//        0     4  magic         "TOKS"
//        4     1  version       1
//        5     1  dtype_length  n
//        6     2  reserved      zero
//        8     8  length        tokens per record (>= 1)
//       16     8  reserved      zero
//       24     n  dtype         numpy's dtype.str ("<u2", "|u1", "<i4", ...)
//
// registered as kind "token_sequence", kind tag 200. Nothing in src/ knows
// of it: linking this target is all a store of it needs, in C++ or in the
// Python package built with it (tests/python/BUILD.bazel).

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "loaderx/dtype.h"
#include "loaderx/spi/limits.h"
#include "loaderx/spi/little_endian.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/typed_owner.h"
#include "loaderx/typed_owner_registry.h"

namespace loaderx {
namespace {

constexpr char kMagic[4] = {'T', 'O', 'K', 'S'};
constexpr uint8_t kVersion = 1;
constexpr size_t kFixedBytes = 24;

class TokenSequenceOwner final : public TypedOwner {
 public:
  static constexpr char kKind[] = "token_sequence";
  static constexpr uint8_t kKindTag = 200;

  absl::string_view kind() const override { return kKind; }
  uint8_t kind_tag() const override { return kKindTag; }
  RecordGeometry::Layout layout() const override {
    return RecordGeometry::Layout::kFixedWidth;
  }

  absl::StatusOr<std::string> EncodeIdentity(
      const TypeIdentity& identity) const override {
    LOADERX_RETURN_IF_ERROR(Geometry(identity).status());
    std::string out(kFixedBytes, '\0');
    std::memcpy(out.data(), kMagic, sizeof(kMagic));
    out[4] = static_cast<char>(kVersion);
    out[5] = static_cast<char>(identity.dtype.str.size());
    StoreLittle<uint64_t>(&out[8], identity.item_shape[0]);
    return out + identity.dtype.str;
  }

  absl::StatusOr<TypeIdentity> DecodeIdentity(
      absl::string_view encoded) const override {
    auto damaged = [](absl::string_view why) {
      return absl::DataLossError(
          absl::StrCat("token_sequence identity: ", why));
    };
    if (encoded.size() < kFixedBytes ||
        std::memcmp(encoded.data(), kMagic, sizeof(kMagic)) != 0 ||
        static_cast<uint8_t>(encoded[4]) != kVersion) {
      return damaged("not a version-1 TOKS identity");
    }
    if (encoded[6] != 0 || encoded[7] != 0 ||
        LoadLittle<uint64_t>(&encoded[16]) != 0) {
      return damaged("reserved bytes are not zero");
    }
    const size_t dtype_length = static_cast<uint8_t>(encoded[5]);
    if (encoded.size() != kFixedBytes + dtype_length) {
      return damaged("its dtype does not fill the rest of it");
    }
    TypeIdentity identity{
        DType::Simple(std::string(encoded.substr(kFixedBytes))),
        {LoadLittle<uint64_t>(&encoded[8])}};
    if (absl::Status valid = Geometry(identity).status(); !valid.ok()) {
      return damaged(valid.message());
    }
    return identity;
  }

  absl::StatusOr<RecordGeometry> Geometry(
      const TypeIdentity& identity) const override {
    const DType& dtype = identity.dtype;
    const bool integer = !dtype.structured && dtype.str.size() >= 3 &&
                         (dtype.str[1] == 'i' || dtype.str[1] == 'u') &&
                         (dtype.str[0] == '<' || dtype.str[0] == '|');
    if (!integer) {
      return absl::InvalidArgumentError(absl::StrCat(
          "token ids are little-endian integers, not ", DTypeToString(dtype)));
    }
    LOADERX_ASSIGN_OR_RETURN(uint64_t item_size, DTypeItemSize(dtype));
    if (identity.item_shape.size() != 1 || identity.item_shape[0] == 0) {
      return absl::InvalidArgumentError(
          "a token sequence's item_shape is (length,), length >= 1");
    }
    const uint64_t length = identity.item_shape[0];
    if (length > kMaxRecordBytes / item_size) {
      return absl::InvalidArgumentError(
          absl::StrCat(length, " tokens make a record over 2^31 bytes"));
    }
    return RecordGeometry{RecordGeometry::Layout::kFixedWidth,
                          length * item_size, item_size};
  }
};

const TypedOwnerRegistration kRegistration(
    std::make_shared<TokenSequenceOwner>());

}  // namespace
}  // namespace loaderx
