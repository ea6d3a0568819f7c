// The Dense and Ragged owners: exact identities in, exact identities out
// (byte for byte what the reference's Python layer writes), everything else
// rejected with a clear error.

#include <msgpack.hpp>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/error_code.h"
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

std::string Hex(absl::string_view hex) { return absl::HexStringToBytes(hex); }

// A msgpack map with the given string keys and values.
template <typename... Pairs>
std::string Map(const Pairs&... pairs) {
  msgpack::sbuffer buffer;
  msgpack::packer<msgpack::sbuffer> packer(&buffer);
  packer.pack_map(sizeof...(Pairs));
  (packer.pack(pairs.first).pack(pairs.second), ...);
  return std::string(buffer.data(), buffer.size());
}

DTypeField Field(std::string name, DType type,
                 std::vector<uint64_t> shape = {}) {
  DTypeField field;
  field.name = std::move(name);
  field.type = std::move(type);
  field.shape = std::move(shape);
  return field;
}

TEST(OwnerTest, KindsAndTagsAreRegistered) {
  EXPECT_EQ(Owner("dense")->kind_tag(), 1);
  EXPECT_EQ(Owner("ragged")->kind_tag(), 2);
  ASSERT_OK_AND_ASSIGN(auto by_tag, FindTypedOwnerByTag(2));
  EXPECT_EQ(by_tag->kind(), "ragged");
}

TEST(OwnerTest, DenseIdentityRoundTripsWithItsGeometry) {
  auto dense = Owner("dense");
  const TypeIdentity identity{DType::Simple("<f4"), {2, 4}};
  ASSERT_OK_AND_ASSIGN(std::string encoded, dense->EncodeIdentity(identity));
  ASSERT_OK_AND_ASSIGN(TypeIdentity decoded, dense->DecodeIdentity(encoded));
  EXPECT_EQ(decoded, identity);
  ASSERT_OK_AND_ASSIGN(RecordGeometry geometry, dense->Geometry(identity));
  EXPECT_EQ(geometry.layout, RecordGeometry::Layout::kFixedWidth);
  EXPECT_EQ(geometry.record_width, 32u);
  EXPECT_EQ(geometry.item_size, 4u);
  // A scalar record: item_shape ().
  ASSERT_OK_AND_ASSIGN(RecordGeometry scalar,
                       dense->Geometry(TypeIdentity{DType::Simple("<i8"), {}}));
  EXPECT_EQ(scalar.record_width, 8u);
}

// Bytes that msgpack-python's `dumps` gives for the reference's identity
// dicts (numpy 2, msgpack 1.1), and the dtypes they describe.
TEST(OwnerTest, IdentitiesAreTheReferencesBytes) {
  auto dense = Owner("dense");
  auto ragged = Owner("ragged");
  const DType i4 = DType::Simple("<i4");
  DTypeField titled = Field("a", i4);
  titled.has_title = true;
  titled.title = "T";
  const struct {
    std::shared_ptr<const TypedOwner> owner;
    TypeIdentity identity;
    const char* hex;
  } cases[] = {
      // FACTS: dense "<i2", item_shape (4, 16).
      {dense,
       {DType::Simple("<i2"), {4, 16}},
       "82a56474797065a33c6932aa6974656d5f73686170659204"
       "10"},
      // Minimal integer widths: 300, 70000.
      {dense,
       {DType::Simple("<U3"), {300, 70000}},
       "82a56474797065a33c5533aa6974656d5f736861706592cd012cce00011170"},
      {ragged, {DType::Simple("|u1"), {}}, "81a56474797065a37c7531"},
      // {'names': ['a', 'b'], 'formats': ['<i4', '<f8'], 'offsets': [0, 8],
      //  'itemsize': 24}: padding fields between and after.
      {dense,
       {DType::Structured({Field("a", i4), Field("", DType::Simple("|V4")),
                           Field("b", DType::Simple("<f8")),
                           Field("", DType::Simple("|V8"))}),
        {2}},
       "82a564747970659492a161a33c693492a0a37c563492a162a33c663892a0a37c5638"
       "aa6974656d5f73686170659102"},
      // [(('T', 'a'), '<i4'), ('b', '>f4', (2, 3))]
      {dense,
       {DType::Structured({titled, Field("b", DType::Simple(">f4"), {2, 3})}),
        {2}},
       "82a56474797065929292a154a161a33c693493a162a33e6634920203aa6974656d"
       "5f73686170659102"},
      // [('p', [('x', '<i2'), ('y', '|u1')], (2,)), ('q', '<M8[ms]')]
      {dense,
       {DType::Structured(
            {Field("p",
                   DType::Structured({Field("x", DType::Simple("<i2")),
                                      Field("y", DType::Simple("|u1"))}),
                   {2}),
             Field("q", DType::Simple("<M8[ms]"))}),
        {2}},
       "82a564747970659293a1709292a178a33c693292a179a37c7531910292a171a73c4d"
       "385b6d735daa6974656d5f73686170659102"},
      // A 40-byte name is a str8; UTF-8 names stay UTF-8.
      {ragged,
       {DType::Structured({Field(std::string(40, 'n'), i4)}), {}},
       "81a564747970659192d9286e6e6e6e6e6e6e6e6e6e6e6e6e6e6e6e6e6e6e6e6e6e"
       "6e6e6e6e6e6e6e6e6e6e6e6e6e6e6e6e6e6ea33c6934"},
      {ragged,
       {DType::Structured({Field("\xc3\xa9", DType::Simple("<f4"))}), {}},
       "81a564747970659192a2c3a9a33c6634"},
      {ragged, {DType::Structured({}), {}}, "81a5647479706590"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.hex);
    ASSERT_OK_AND_ASSIGN(std::string encoded,
                         c.owner->EncodeIdentity(c.identity));
    EXPECT_EQ(absl::BytesToHexString(encoded), c.hex);
    ASSERT_OK_AND_ASSIGN(TypeIdentity decoded,
                         c.owner->DecodeIdentity(Hex(c.hex)));
    EXPECT_EQ(decoded, c.identity);
  }
}

TEST(OwnerTest, RaggedIdentityIsTheDtypeAlone) {
  auto ragged = Owner("ragged");
  ASSERT_OK_AND_ASSIGN(std::string encoded,
                       ragged->EncodeIdentity({DType::Simple("|u1"), {}}));
  EXPECT_EQ(encoded,
            Map(std::make_pair(std::string("dtype"), std::string("|u1"))));
  ASSERT_OK_AND_ASSIGN(RecordGeometry geometry,
                       ragged->Geometry({DType::Simple("<i4"), {}}));
  EXPECT_EQ(geometry.layout, RecordGeometry::Layout::kPayloadShapePairs);
  EXPECT_EQ(geometry.item_size, 4u);
  EXPECT_STATUS_CODE(ragged->EncodeIdentity({DType::Simple("<i4"), {3}}),
                     absl::StatusCode::kInvalidArgument);
}

TEST(OwnerTest, InvalidIdentitiesAreInvalidArguments) {
  auto dense = Owner("dense");
  for (const char* dtype : {"", "f4", "<f3", "<x4", "?f4", "|O8", "<i1"}) {
    SCOPED_TRACE(dtype);
    EXPECT_STATUS_CODE(dense->EncodeIdentity({DType::Simple(dtype), {1}}),
                       absl::StatusCode::kInvalidArgument);
  }
  absl::Status zero =
      dense->EncodeIdentity({DType::Simple("<f4"), {3, 0}}).status();
  EXPECT_EQ(zero.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(zero.message(), HasSubstr("0 bytes"));
  // A zero after an overflowing product is still "empty".
  EXPECT_THAT(
      dense->EncodeIdentity({DType::Simple("<f8"), {1 << 30, 1 << 30, 0}})
          .status()
          .message(),
      HasSubstr("0 bytes"));
  EXPECT_STATUS_CODE(dense->EncodeIdentity({DType::Simple("<U0"), {4}}),
                     absl::StatusCode::kInvalidArgument);
  const absl::Status big =
      dense->EncodeIdentity({DType::Simple("<f8"), {1 << 20, 1 << 20}})
          .status();
  EXPECT_EQ(big.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ErrorCodeOf(big), ErrorCode::kRecordTooLarge);
  // Exactly 2^31 bytes is the largest record.
  EXPECT_OK(dense->EncodeIdentity({DType::Simple("|u1"), {1u << 31}}));
  EXPECT_OK(dense->EncodeIdentity({DType::Simple("|b1"), {7}}));
  EXPECT_OK(dense->EncodeIdentity({DType::Simple(">c16"), {2}}));
  EXPECT_OK(dense->EncodeIdentity({DType::Simple("<U8"), {}}));
}

TEST(OwnerTest, StoredIdentitiesWithAnythingExtraOrMissingAreDataLoss) {
  auto dense = Owner("dense");
  auto ragged = Owner("ragged");
  const auto dtype = std::make_pair(std::string("dtype"), std::string("<f4"));
  const auto shape =
      std::make_pair(std::string("item_shape"), std::vector<uint64_t>{2});
  const auto extra = std::make_pair(std::string("user_metadata"), 1);
  using Fields = std::vector<std::vector<std::string>>;
  auto structured = [](Fields fields) {
    return std::make_pair(std::string("dtype"), fields);
  };

  EXPECT_OK(dense->DecodeIdentity(Map(dtype, shape)));
  EXPECT_OK(ragged->DecodeIdentity(Map(dtype)));
  EXPECT_OK(ragged->DecodeIdentity(Map(structured({{"x", "<i4"}}))));
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
       "neither a string nor a field list"},
      {dense,
       Map(dtype,
           std::make_pair(std::string("item_shape"), std::vector<int>{-1})),
       "non-integer"},
      {dense,
       Map(std::make_pair(std::string("dtype"), std::string("|O8")), shape),
       "object dtypes cannot be persisted"},
      {ragged, Map(structured({{"x"}})), "[name, type]"},
      {ragged, Map(structured({{"x", "<i4", "<i4", "<i4"}})), "[name, type]"},
      {ragged, Map(structured({{"x", "<i4", "2"}})), "not an array"},
      {ragged, Map(structured({{"x", "<i4"}, {"x", "<f4"}})), "more than once"},
      {ragged, Map(structured({{"", "<i4"}})), "must be padding"},
      {ragged, Hex("81a56474797065a33c69"), "malformed"},  // truncated
      {ragged,
       Hex("81a5647479706591"
           "93"
           "a178"
           "a33c6934"
           "90"),
       "shape is empty"},
      {ragged,
       Hex("81a56474797065a3"
           "3c6934c0"),
       "trailing bytes"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.why);
    absl::Status status = c.owner->DecodeIdentity(c.bytes).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
    EXPECT_THAT(status.message(), HasSubstr(c.why));
    // The bindings raise 1.7.7's ValueError for a map with other keys, and
    // only for it, by this phrase.
    const bool fields_mismatch =
        absl::string_view(c.why) == "unexpected field" ||
        absl::string_view(c.why).substr(0, 3) == "no ";
    EXPECT_EQ(absl::StrContains(status.message(), "type identity fields"),
              fields_mismatch);
  }
}

TEST(OwnerTest, DeeplyNestedIdentitiesAreRefused) {
  // [["x", [["x", [ ... "<i4" ... ]]]]], nested far past kMaxDTypeDepth.
  std::string bytes = Hex("81a56474797065");
  const int depth = 200;
  for (int i = 0; i < depth; ++i) bytes += Hex("9192a178");
  bytes += Hex("a33c6934");
  absl::Status status = Owner("ragged")->DecodeIdentity(bytes).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace loaderx
