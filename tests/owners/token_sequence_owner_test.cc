// The "token_sequence" owner (token_sequence_owner.cc), a plugin the engine
// has never heard of: found by kind and tag once linked, its stores run the
// typed-store conformance suite like loaderx's own, and its identity, its
// validation and its kind are its own.

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/dense_store.h"
#include "loaderx/error_code.h"
#include "loaderx/typed_owner_registry.h"
#include "loaderx/typed_store.h"
#include "loaderx/vfs_registry.h"
#include "tests/status_testing.h"
#include "tests/typed_store_conformance.h"

namespace loaderx {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

const DType kU2 = DType::Simple("<u2");

OwnerUnderTest TokenSequences() {
  return OwnerUnderTest{"token_sequence",
                        "token_sequence",
                        {kU2, {8}},
                        [](uint64_t) { return std::vector<uint64_t>{8}; },
                        {DType::Simple("<f4"), {8}},
                        DType::Simple("<u4")};
}

INSTANTIATE_TEST_SUITE_P(UserOwner, TypedStoreConformanceTest,
                         testing::Combine(testing::Values(TokenSequences()),
                                          testing::Values("raw", "zstd")),
                         OwnerUnderTestName);

class TokenSequenceOwnerTest : public testing::Test {
 protected:
  void SetUp() override { ASSERT_OK_AND_ASSIGN(vfs_, CreateVfs("memory")); }

  std::unique_ptr<Vfs> vfs_;
};

TEST_F(TokenSequenceOwnerTest, IsFoundByKindAndTagOnceLinked) {
  EXPECT_THAT(TypedOwnerRegistry().Names(), Contains("token_sequence"));
  ASSERT_OK_AND_ASSIGN(auto owner, FindTypedOwnerByTag(200));
  EXPECT_EQ(owner->kind(), "token_sequence");
  EXPECT_EQ(owner->layout(), RecordGeometry::Layout::kFixedWidth);
}

TEST_F(TokenSequenceOwnerTest, StoresItsOwnIdentityAndWidth) {
  StoreOptions raw;
  raw.codec = "raw";
  ASSERT_OK_AND_ASSIGN(auto store,
                       TypedStore::Create(*vfs_, "/tokens", "token_sequence",
                                          TypeIdentity{kU2, {128}}, raw));
  EXPECT_TRUE(store->fixed_width());
  EXPECT_EQ(store->record_bytes(), 256u);
  // Two sequences of 128 token ids, appended as one (2, 128) array.
  std::vector<uint16_t> tokens(256);
  for (size_t i = 0; i < tokens.size(); ++i) {
    tokens[i] = static_cast<uint16_t>(i * 257);
  }
  const absl::string_view bytes(reinterpret_cast<const char*>(tokens.data()),
                                tokens.size() * 2);
  ASSERT_OK(store->AppendBatch(ShapedRecord{bytes, {2, 128}, &kU2}));
  store.reset();

  ASSERT_OK_AND_ASSIGN(std::string header,
                       ReadFileToString(*vfs_, "/tokens/store.zr"));
  ASSERT_EQ(header.size(), 32u + 24u + 3u);
  EXPECT_EQ(static_cast<uint8_t>(header[5]), 200);  // the kind tag
  uint64_t record_bytes = 0;
  std::memcpy(&record_bytes, &header[8], 8);
  EXPECT_EQ(record_bytes, 256u);
  EXPECT_EQ(header.substr(32, 4), "TOKS");
  EXPECT_EQ(header.substr(32 + 24), "<u2");

  ASSERT_OK_AND_ASSIGN(store, TypedStore::OpenAny(*vfs_, "/tokens"));
  EXPECT_EQ(store->identity(), (TypeIdentity{kU2, {128}}));
  std::vector<uint16_t> second(128);
  ASSERT_OK(store->GatherFixed(
      {1}, absl::MakeSpan(reinterpret_cast<char*>(second.data()), 256)));
  EXPECT_EQ(second, std::vector<uint16_t>(tokens.begin() + 128, tokens.end()));
}

TEST_F(TokenSequenceOwnerTest, RefusesWhatIsNotATokenSequence) {
  for (const TypeIdentity& identity :
       {TypeIdentity{DType::Simple("<f4"), {8}},
        TypeIdentity{DType::Simple(">u2"), {8}}, TypeIdentity{kU2, {}},
        TypeIdentity{kU2, {2, 8}}, TypeIdentity{kU2, {0}}}) {
    absl::Status status =
        TypedStore::Create(*vfs_, "/t", "token_sequence", identity).status();
    EXPECT_STATUS_CODE(status, absl::StatusCode::kInvalidArgument);
  }
  ASSERT_OK_AND_ASSIGN(bool created, vfs_->Exists("/t"));
  EXPECT_FALSE(created);
}

TEST_F(TokenSequenceOwnerTest, IsNotADenseStore) {
  ASSERT_OK(TypedStore::Create(*vfs_, "/tokens", "token_sequence",
                               TypeIdentity{kU2, {4}}));
  absl::Status as_dense = DenseStore::Open(*vfs_, "/tokens").status();
  EXPECT_EQ(ErrorCodeOf(as_dense), ErrorCode::kKindMismatch) << as_dense;
  EXPECT_THAT(as_dense.message(), HasSubstr("'token_sequence' store"));
}

TEST_F(TokenSequenceOwnerTest, ADamagedIdentityIsDataLoss) {
  ASSERT_OK(TypedStore::Create(*vfs_, "/tokens", "token_sequence",
                               TypeIdentity{kU2, {4}}));
  ASSERT_OK_AND_ASSIGN(std::string header,
                       ReadFileToString(*vfs_, "/tokens/store.zr"));
  header[32 + 24 + 1] = 'f';  // "<f2": not a token id
  ASSERT_OK(WriteStringToFile(*vfs_, "/tokens/store.zr", header));
  absl::Status damaged = TypedStore::OpenAny(*vfs_, "/tokens").status();
  EXPECT_STATUS_CODE(damaged, absl::StatusCode::kDataLoss);
  EXPECT_THAT(damaged.message(), HasSubstr("token ids"));
}

}  // namespace
}  // namespace loaderx
