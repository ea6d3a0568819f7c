// The Dense and Ragged owners: exact identities in, exact identities out,
// everything else rejected with a clear error.

#include <msgpack.hpp>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/typed_owner_registry.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<const TypedOwner> Owner(absl::string_view kind) {
  auto owner = FindTypedOwner(kind);
  EXPECT_TRUE(owner.ok()) << owner.status();
  return owner.value_or(nullptr);
}

// A msgpack map with the given string keys and values.
template <typename... Pairs>
std::string Map(const Pairs&... pairs) {
  msgpack::sbuffer buffer;
  msgpack::packer<msgpack::sbuffer> packer(&buffer);
  packer.pack_map(sizeof...(Pairs));
  (packer.pack(pairs.first).pack(pairs.second), ...);
  return std::string(buffer.data(), buffer.size());
}

TEST(OwnerTest, KindsAndTagsAreRegistered) {
  EXPECT_EQ(Owner("dense")->kind_tag(), 1);
  EXPECT_EQ(Owner("ragged")->kind_tag(), 2);
  ASSERT_OK_AND_ASSIGN(auto by_tag, FindTypedOwnerByTag(2));
  EXPECT_EQ(by_tag->kind(), "ragged");
}

TEST(OwnerTest, DenseIdentityRoundTripsWithItsGeometry) {
  auto dense = Owner("dense");
  const TypeIdentity identity{"<f4", {2, 4}};
  ASSERT_OK_AND_ASSIGN(std::string encoded, dense->EncodeIdentity(identity));
  ASSERT_OK_AND_ASSIGN(TypeIdentity decoded, dense->DecodeIdentity(encoded));
  EXPECT_EQ(decoded, identity);
  ASSERT_OK_AND_ASSIGN(RecordGeometry geometry, dense->Geometry(identity));
  EXPECT_EQ(geometry.layout, RecordGeometry::Layout::kFixedWidth);
  EXPECT_EQ(geometry.record_width, 32u);
  EXPECT_EQ(geometry.item_size, 4u);
  // A scalar record: item_shape ().
  ASSERT_OK_AND_ASSIGN(RecordGeometry scalar,
                       dense->Geometry(TypeIdentity{"<i8", {}}));
  EXPECT_EQ(scalar.record_width, 8u);
}

TEST(OwnerTest, RaggedIdentityIsTheDtypeAlone) {
  auto ragged = Owner("ragged");
  ASSERT_OK_AND_ASSIGN(std::string encoded,
                       ragged->EncodeIdentity(TypeIdentity{"|u1", {}}));
  EXPECT_EQ(encoded,
            Map(std::make_pair(std::string("dtype"), std::string("|u1"))));
  ASSERT_OK_AND_ASSIGN(RecordGeometry geometry,
                       ragged->Geometry(TypeIdentity{"<i4", {}}));
  EXPECT_EQ(geometry.layout, RecordGeometry::Layout::kPayloadShapePairs);
  EXPECT_EQ(geometry.item_size, 4u);
  EXPECT_STATUS_CODE(ragged->EncodeIdentity(TypeIdentity{"<i4", {3}}),
                     absl::StatusCode::kInvalidArgument);
}

TEST(OwnerTest, InvalidIdentitiesAreInvalidArguments) {
  auto dense = Owner("dense");
  for (const char* dtype : {"", "f4", "<f3", "<x4", "?f4", "<U8", "|O8"}) {
    SCOPED_TRACE(dtype);
    EXPECT_STATUS_CODE(dense->EncodeIdentity(TypeIdentity{dtype, {1}}),
                       absl::StatusCode::kInvalidArgument);
  }
  absl::Status zero =
      dense->EncodeIdentity(TypeIdentity{"<f4", {3, 0}}).status();
  EXPECT_EQ(zero.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(zero.message(), HasSubstr("empty"));
  EXPECT_STATUS_CODE(
      dense->EncodeIdentity(TypeIdentity{"<f8", {1 << 20, 1 << 20}}),
      absl::StatusCode::kInvalidArgument);
  EXPECT_OK(dense->EncodeIdentity(TypeIdentity{"|b1", {7}}));
  EXPECT_OK(dense->EncodeIdentity(TypeIdentity{">c16", {2}}));
}

TEST(OwnerTest, StoredIdentitiesWithAnythingExtraOrMissingAreDataLoss) {
  auto dense = Owner("dense");
  auto ragged = Owner("ragged");
  const auto dtype = std::make_pair(std::string("dtype"), std::string("<f4"));
  const auto shape =
      std::make_pair(std::string("item_shape"), std::vector<uint64_t>{2});
  const auto extra = std::make_pair(std::string("user_metadata"), 1);

  EXPECT_OK(dense->DecodeIdentity(Map(dtype, shape)));
  EXPECT_OK(ragged->DecodeIdentity(Map(dtype)));
  struct {
    std::shared_ptr<const TypedOwner> owner;
    std::string bytes;
    const char* why;
  } cases[] = {
      {dense, Map(dtype, shape, extra), "unexpected field"},
      {ragged, Map(dtype, extra), "unexpected field"},
      {ragged, Map(dtype, shape), "unexpected field"},  // shape is per record
      {dense, Map(dtype), "no item_shape"},
      {dense, Map(shape), "no dtype"},
      {dense, Map(dtype, shape) + "x", "trailing bytes"},
      {dense, "\xc1", "malformed"},
      {dense, Map(std::make_pair(std::string("dtype"), 4), shape),
       "unexpected field"},
      {dense,
       Map(dtype,
           std::make_pair(std::string("item_shape"), std::vector<int>{-1})),
       "non-integer"},
      {dense,
       Map(std::make_pair(std::string("dtype"), std::string("<U8")), shape),
       "not supported"},
  };
  for (const auto& c : cases) {
    absl::Status status = c.owner->DecodeIdentity(c.bytes).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << c.why;
    EXPECT_THAT(status.message(), HasSubstr(c.why));
  }
}

}  // namespace
}  // namespace loaderx
