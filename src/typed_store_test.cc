// DenseStore and RaggedStore over the in-memory VFS: identities persist,
// records keep their bytes and shapes, bad input and foreign stores are
// refused without changing anything.

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/dense_store.h"
#include "loaderx/ragged_store.h"
#include "loaderx/vfs_registry.h"
#include "src/typed_header.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

template <typename T>
absl::string_view Bytes(const std::vector<T>& values) {
  return absl::string_view(reinterpret_cast<const char*>(values.data()),
                           values.size() * sizeof(T));
}

StoreOptions RawOptions() {
  StoreOptions options;
  options.codec = "raw";
  return options;
}

class TypedStoreTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(vfs_, CreateVfs("memory"));
    ASSERT_OK(vfs_->CreateDirectory("/data"));
  }
  std::unique_ptr<Vfs> vfs_;
};

TEST_F(TypedStoreTest, DenseRecordsFollowTheirIdentity) {
  // 8 records of (2, 4) float32: the reference's quick example.
  std::vector<float> data(64);
  for (int i = 0; i < 64; ++i) data[i] = static_cast<float>(i);
  {
    ASSERT_OK_AND_ASSIGN(
        auto store,
        DenseStore::Create(*vfs_, "/data/x", TypeIdentity{"<f4", {2, 4}}));
    EXPECT_EQ(store->record_bytes(), 32u);
    EXPECT_EQ(store->codec(), "zstd");  // The default.
    ASSERT_OK_AND_ASSIGN(uint64_t first, store->Append(Bytes(data)));
    EXPECT_EQ(first, 0u);
  }
  ASSERT_OK_AND_ASSIGN(auto store, DenseStore::Open(*vfs_, "/data/x"));
  EXPECT_EQ(store->identity(), (TypeIdentity{"<f4", {2, 4}}));
  EXPECT_EQ(store->size(), 8u);
  std::vector<float> out(3 * 8);
  ASSERT_OK(store->Gather({0, 5, 2},
                          absl::MakeSpan(reinterpret_cast<char*>(out.data()),
                                         out.size() * sizeof(float))));
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[8], 40.0f);  // Record 5 starts at item 5 * 8.
  EXPECT_EQ(out[16], 16.0f);
}

TEST_F(TypedStoreTest, DenseRejectsPartialRecordsAndChangesNothing) {
  ASSERT_OK_AND_ASSIGN(
      auto store, DenseStore::Create(*vfs_, "/data/x", TypeIdentity{"<i4", {3}},
                                     RawOptions()));
  ASSERT_OK(store->Append(std::string(24, 'a')));
  EXPECT_STATUS_CODE(store->Append(std::string(13, 'b')),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(store->Append(""), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store->size(), 2u);
  std::string out(12, '\0');
  EXPECT_STATUS_CODE(store->Gather({2}, absl::MakeSpan(out)),
                     absl::StatusCode::kOutOfRange);
}

TEST_F(TypedStoreTest, InvalidIdentityCreatesNothing) {
  EXPECT_STATUS_CODE(
      DenseStore::Create(*vfs_, "/data/x", TypeIdentity{"<f4", {0}}),
      absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(RaggedStore::Create(*vfs_, "/data/y", "object"),
                     absl::StatusCode::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(auto names, vfs_->List("/data"));
  EXPECT_TRUE(names.empty());
}

TEST_F(TypedStoreTest, KindsAreNotInterchangeable) {
  { ASSERT_OK(RaggedStore::Create(*vfs_, "/data/r", "<i4").status()); }
  absl::Status status = DenseStore::Open(*vfs_, "/data/r").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("ragged, not dense"));
  {
    ASSERT_OK(
        DenseStore::Create(*vfs_, "/data/d", TypeIdentity{"<i4", {}}).status());
  }
  EXPECT_STATUS_CODE(RaggedStore::Open(*vfs_, "/data/d"),
                     absl::StatusCode::kFailedPrecondition);
}

TEST_F(TypedStoreTest, MissingOrDamagedTypedHeaderIsDataLoss) {
  { ASSERT_OK(RaggedStore::Create(*vfs_, "/data/r", "<i4").status()); }
  ASSERT_OK_AND_ASSIGN(std::string header,
                       ReadFileToString(*vfs_, "/data/r/store.zr"));
  ASSERT_OK(WriteStringToFile(*vfs_, "/data/r/store.zr",
                              header.substr(0, header.size() - 1)));
  EXPECT_STATUS_CODE(RaggedStore::Open(*vfs_, "/data/r"),
                     absl::StatusCode::kDataLoss);
  ASSERT_OK(vfs_->Remove("/data/r/store.zr"));
  absl::Status missing = RaggedStore::Open(*vfs_, "/data/r").status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(missing.message(), HasSubstr("did not finish"));
}

TEST_F(TypedStoreTest, TypedHeaderBytesFollowTheLayout) {
  const std::string bytes =
      EncodeTypedHeader(TypedHeader{1, 0x0102030405060708ULL, "id"});
  EXPECT_EQ(bytes, std::string("ZRTY\x01\x01\0\0"
                               "\x08\x07\x06\x05\x04\x03\x02\x01"
                               "\x02\0\0\0"
                               "\0\0\0\0\0\0\0\0\0\0\0\0"
                               "id",
                               34));
  ASSERT_OK_AND_ASSIGN(TypedHeader back, DecodeTypedHeader(bytes, "store.zr"));
  EXPECT_EQ(back.kind, 1);
  EXPECT_EQ(back.record_width, 0x0102030405060708ULL);
  EXPECT_EQ(back.identity, "id");
}

TEST_F(TypedStoreTest, RaggedRecordsKeepTheirExactShapes) {
  const std::vector<int32_t> a = {0, 1, 2};
  const std::vector<int32_t> b = {7};  // a scalar: shape ()
  const std::vector<int32_t> c = {1, 2, 3, 4, 5, 6};
  {
    ASSERT_OK_AND_ASSIGN(auto store,
                         RaggedStore::Create(*vfs_, "/data/t", "<i4"));
    std::vector<RaggedRecord> records = {
        {Bytes(a), {3}}, {Bytes(b), {}}, {Bytes(c), {2, 3}}};
    ASSERT_OK_AND_ASSIGN(uint64_t first, store->Append(records));
    EXPECT_EQ(first, 0u);
    EXPECT_EQ(store->size(), 3u);
  }
  ASSERT_OK_AND_ASSIGN(auto store, RaggedStore::Open(*vfs_, "/data/t"));
  EXPECT_EQ(store->dtype(), "<i4");
  EXPECT_EQ(store->item_size(), 4u);
  ASSERT_OK_AND_ASSIGN(auto shapes, store->Shapes({2, 1, 0}));
  EXPECT_THAT(shapes,
              ElementsAre(ElementsAre(2, 3), ElementsAre(), ElementsAre(3)));
  std::vector<int32_t> out_c(6), out_b(1);
  std::vector<absl::Span<char>> slots = {
      absl::MakeSpan(reinterpret_cast<char*>(out_c.data()), 24),
      absl::MakeSpan(reinterpret_cast<char*>(out_b.data()), 4)};
  ASSERT_OK(store->Gather({2, 1}, slots));
  EXPECT_EQ(out_c, c);
  EXPECT_EQ(out_b, b);
}

TEST_F(TypedStoreTest, RaggedRejectsEmptyOrMisshapenRecords) {
  ASSERT_OK_AND_ASSIGN(auto store,
                       RaggedStore::Create(*vfs_, "/data/t", "<i4"));
  const std::vector<int32_t> three = {1, 2, 3};
  std::vector<RaggedRecord> empty = {{Bytes(three), {3}}, {"", {0}}};
  absl::Status status = store->Append(empty).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("record 1"));
  std::vector<RaggedRecord> misshapen = {{Bytes(three), {2, 2}}};
  EXPECT_STATUS_CODE(store->Append(misshapen),
                     absl::StatusCode::kInvalidArgument);
  std::vector<RaggedRecord> torn = {{Bytes(three).substr(0, 5), {1}}};
  EXPECT_STATUS_CODE(store->Append(torn), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store->size(), 0u);  // Nothing from the failed batches.
}

TEST_F(TypedStoreTest, RaggedDeleteMovesWholePairs) {
  ASSERT_OK_AND_ASSIGN(
      auto store, RaggedStore::Create(*vfs_, "/data/t", "|u1", RawOptions()));
  std::vector<std::string> payloads = {"a", "bb", "ccc", "dddd"};
  std::vector<RaggedRecord> records;
  for (const std::string& p : payloads) records.push_back({p, {p.size()}});
  ASSERT_OK(store->Append(records));
  ASSERT_OK(store->Delete({0}));  // The last record (dddd) moves to 0.
  EXPECT_EQ(store->size(), 3u);
  ASSERT_OK_AND_ASSIGN(auto shapes, store->Shapes({0, 1, 2}));
  EXPECT_THAT(shapes,
              ElementsAre(ElementsAre(4), ElementsAre(2), ElementsAre(3)));
  std::string first(4, '\0');
  std::vector<absl::Span<char>> slot = {absl::MakeSpan(first)};
  ASSERT_OK(store->Gather({0}, slot));
  EXPECT_EQ(first, "dddd");
  EXPECT_STATUS_CODE(store->Delete({3}), absl::StatusCode::kOutOfRange);
  ASSERT_OK_AND_ASSIGN(auto stats, store->Stats());
  EXPECT_EQ(stats.records, 3u);
}

}  // namespace
}  // namespace loaderx
