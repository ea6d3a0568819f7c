// DenseStore and RaggedStore over the in-memory VFS: identities persist,
// records keep their bytes and shapes, bad input and foreign stores are
// refused without changing anything.

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/dense_store.h"
#include "loaderx/error_code.h"
#include "loaderx/ragged_store.h"
#include "loaderx/vfs_registry.h"
#include "src/shape_record.h"
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

const DType kF4 = DType::Simple("<f4");
const DType kI4 = DType::Simple("<i4");
const DType kU1 = DType::Simple("|u1");

class TypedStoreTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(vfs_, CreateVfs("memory"));
    ASSERT_OK(vfs_->CreateDirectory("/data"));
  }

  // Reads every record of `store` at `indices` through `Read`.
  std::vector<std::string> ReadAll(const RaggedStore& store,
                                   std::vector<uint64_t> indices,
                                   RaggedBatch* batch_out = nullptr) {
    std::string buffer;
    auto batch = store.Read(indices, [&](uint64_t bytes) {
      buffer.resize(bytes);
      return absl::StatusOr<absl::Span<char>>(absl::MakeSpan(buffer));
    });
    EXPECT_TRUE(batch.ok()) << batch.status();
    std::vector<std::string> records;
    if (!batch.ok()) return records;
    for (size_t k = 0; k < indices.size(); ++k) {
      const uint64_t end =
          k + 1 < indices.size() ? batch->offsets[k + 1] : batch->total_bytes;
      records.push_back(
          buffer.substr(batch->offsets[k], end - batch->offsets[k]));
    }
    if (batch_out != nullptr) *batch_out = *batch;
    return records;
  }

  std::unique_ptr<Vfs> vfs_;
};

TEST_F(TypedStoreTest, DenseRecordsFollowTheirIdentity) {
  // 8 records of (2, 4) float32: the reference's quick example.
  std::vector<float> data(64);
  for (int i = 0; i < 64; ++i) data[i] = static_cast<float>(i);
  {
    ASSERT_OK_AND_ASSIGN(auto store,
                         DenseStore::Create(*vfs_, "/data/x", {kF4, {2, 4}}));
    EXPECT_EQ(store->record_bytes(), 32u);
    EXPECT_EQ(store->codec(), "zstd");  // The default.
    EXPECT_FALSE(store->has_dictionary());
    ASSERT_OK_AND_ASSIGN(uint64_t first, store->Append(Bytes(data)));
    EXPECT_EQ(first, 0u);
  }
  ASSERT_OK_AND_ASSIGN(auto store, DenseStore::Open(*vfs_, "/data/x"));
  EXPECT_EQ(store->identity(), (TypeIdentity{kF4, {2, 4}}));
  EXPECT_EQ(store->size(), 8u);
  std::vector<float> out(3 * 8);
  ASSERT_OK(store->Gather({0, 5, 2},
                          absl::MakeSpan(reinterpret_cast<char*>(out.data()),
                                         out.size() * sizeof(float))));
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[8], 40.0f);  // Record 5 starts at item 5 * 8.
  EXPECT_EQ(out[16], 16.0f);
}

TEST_F(TypedStoreTest, AnyNumpyDtypeButObjectIsAnIdentity) {
  DTypeField x{"x", false, "", kI4, {}};
  DTypeField pad{"", false, "", DType::Simple("|V4"), {}};
  DTypeField when{"when", false, "", DType::Simple("<M8[ns]"), {2}};
  const DType record = DType::Structured({x, pad, when});
  {
    ASSERT_OK_AND_ASSIGN(
        auto store,
        DenseStore::Create(*vfs_, "/data/s", {record, {3}}, RawOptions()));
    EXPECT_EQ(store->record_bytes(), 3u * (4 + 4 + 16));
    ASSERT_OK(store->Append(std::string(store->record_bytes() * 2, 'r')));
  }
  ASSERT_OK_AND_ASSIGN(auto store, DenseStore::Open(*vfs_, "/data/s"));
  EXPECT_EQ(store->identity().dtype, record);
  ASSERT_OK_AND_ASSIGN(
      auto text, RaggedStore::Create(*vfs_, "/data/u", DType::Simple("<U5"),
                                     RawOptions()));
  EXPECT_EQ(text->item_size(), 20u);
  EXPECT_STATUS_CODE(
      RaggedStore::Create(*vfs_, "/data/o", DType::Simple("|O8")),
      absl::StatusCode::kInvalidArgument);
}

TEST_F(TypedStoreTest, DenseRejectsPartialRecordsAndChangesNothing) {
  ASSERT_OK_AND_ASSIGN(
      auto store,
      DenseStore::Create(*vfs_, "/data/x", {kI4, {3}}, RawOptions()));
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
  EXPECT_STATUS_CODE(DenseStore::Create(*vfs_, "/data/x", {kF4, {0}}),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(
      RaggedStore::Create(*vfs_, "/data/y", DType::Simple("object")),
      absl::StatusCode::kInvalidArgument);
  const absl::Status wide =
      DenseStore::Create(*vfs_, "/data/z", {kF4, {1 << 20, 1 << 10}}).status();
  EXPECT_EQ(ErrorCodeOf(wide), ErrorCode::kRecordTooLarge);
  ASSERT_OK_AND_ASSIGN(auto names, vfs_->List("/data"));
  EXPECT_TRUE(names.empty());
}

TEST_F(TypedStoreTest, KindsAreNotInterchangeable) {
  { ASSERT_OK(RaggedStore::Create(*vfs_, "/data/r", kI4).status()); }
  absl::Status status = DenseStore::Open(*vfs_, "/data/r").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ErrorCodeOf(status), ErrorCode::kKindMismatch);
  EXPECT_THAT(status.message(), HasSubstr("'ragged' store, not 'dense'"));
  { ASSERT_OK(DenseStore::Create(*vfs_, "/data/d", {kI4, {}}).status()); }
  EXPECT_EQ(ErrorCodeOf(RaggedStore::Open(*vfs_, "/data/d").status()),
            ErrorCode::kKindMismatch);
}

TEST_F(TypedStoreTest, MissingOrDamagedTypedHeaderIsDataLoss) {
  { ASSERT_OK(RaggedStore::Create(*vfs_, "/data/r", kI4).status()); }
  ASSERT_OK_AND_ASSIGN(std::string header,
                       ReadFileToString(*vfs_, "/data/r/store.zr"));
  ASSERT_OK(WriteStringToFile(*vfs_, "/data/r/store.zr",
                              header.substr(0, header.size() - 1)));
  EXPECT_STATUS_CODE(RaggedStore::Open(*vfs_, "/data/r"),
                     absl::StatusCode::kDataLoss);
  std::string wrong_width = header;
  wrong_width[8] = 4;  // record_bytes must be 0 for ragged
  ASSERT_OK(WriteStringToFile(*vfs_, "/data/r/store.zr", wrong_width));
  EXPECT_THAT(RaggedStore::Open(*vfs_, "/data/r").status().message(),
              HasSubstr("record width 4"));
  ASSERT_OK(vfs_->Remove("/data/r/store.zr"));
  absl::Status missing = RaggedStore::Open(*vfs_, "/data/r").status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(ErrorCodeOf(missing), ErrorCode::kBadFormat);
  EXPECT_THAT(missing.message(), HasSubstr("unfinished creation at /data/r"));
}

TEST_F(TypedStoreTest, TypedHeaderBytesFollowTheLayout) {
  const std::string bytes =
      EncodeTypedHeader(TypedHeader{1, 0x0102030405060708ULL, "id"});
  EXPECT_EQ(bytes, std::string("LXST\x01\x01\0\0"
                               "\x08\x07\x06\x05\x04\x03\x02\x01"
                               "\x02\0\0\0\0\0\0\0"
                               "\0\0\0\0\0\0\0\0"
                               "id",
                               34));
  ASSERT_OK_AND_ASSIGN(TypedHeader back, DecodeTypedHeader(bytes, "store.zr"));
  EXPECT_EQ(back.kind, 1);
  EXPECT_EQ(back.record_bytes, 0x0102030405060708ULL);
  EXPECT_EQ(back.identity, "id");
  for (size_t at : {0, 4, 6, 7, 16, 24, 31}) {
    SCOPED_TRACE(at);
    std::string damaged = bytes;
    damaged[at] ^= 0x10;
    EXPECT_STATUS_CODE(DecodeTypedHeader(damaged, "store.zr"),
                       absl::StatusCode::kDataLoss);
  }
}

TEST_F(TypedStoreTest, AFreshStoreHasExactlyTheReferencesFilesAndChecksums) {
  // A raw dense "<i2" store of item_shape (4, 16): the reference's files,
  // byte for byte, and loaderx's checksums.lx beside them (1.7.7 ignores
  // it).
  {
    ASSERT_OK_AND_ASSIGN(
        auto store,
        DenseStore::Create(*vfs_, "/data/x", {DType::Simple("<i2"), {4, 16}},
                           RawOptions()));
  }
  ASSERT_OK_AND_ASSIGN(auto names, vfs_->List("/data/x"));
  std::sort(names.begin(), names.end());
  EXPECT_THAT(names,
              ElementsAre("0.chunk", "checksums.lx", "meta.zr", "store.zr"));
  ASSERT_OK_AND_ASSIGN(std::string meta,
                       ReadFileToString(*vfs_, "/data/x/meta.zr"));
  EXPECT_EQ(absl::BytesToHexString(meta),
            "5a52454304000000000000000000" + std::string(36, '0'));
  ASSERT_OK_AND_ASSIGN(std::string typed,
                       ReadFileToString(*vfs_, "/data/x/store.zr"));
  EXPECT_EQ(absl::BytesToHexString(typed),
            "4c58535401010000"
            "8000000000000000"
            "1900000000000000"
            "0000000000000000"
            "82a56474797065a33c6932aa6974656d5f7368617065920410");
  ASSERT_OK_AND_ASSIGN(std::string chunk,
                       ReadFileToString(*vfs_, "/data/x/0.chunk"));
  EXPECT_TRUE(chunk.empty());
}

TEST_F(TypedStoreTest, RaggedRecordsKeepTheirExactShapes) {
  const std::vector<int32_t> a = {0, 1, 2};
  const std::vector<int32_t> b = {7};  // a scalar: shape ()
  const std::vector<int32_t> c = {1, 2, 3, 4, 5, 6};
  {
    ASSERT_OK_AND_ASSIGN(auto store,
                         RaggedStore::Create(*vfs_, "/data/t", kI4));
    std::vector<RaggedRecord> records = {
        {Bytes(a), {3}}, {Bytes(b), {}}, {Bytes(c), {2, 3}}};
    ASSERT_OK_AND_ASSIGN(uint64_t first, store->Append(records));
    EXPECT_EQ(first, 0u);
    EXPECT_EQ(store->size(), 3u);
  }
  ASSERT_OK_AND_ASSIGN(auto store, RaggedStore::Open(*vfs_, "/data/t"));
  EXPECT_EQ(store->dtype(), kI4);
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

  RaggedBatch batch;
  EXPECT_THAT(ReadAll(*store, {2, 0, 2}, &batch),
              ElementsAre(Bytes(c), Bytes(a), Bytes(c)));
  EXPECT_THAT(
      batch.shapes.ToVectors(),
      ElementsAre(ElementsAre(2, 3), ElementsAre(3), ElementsAre(2, 3)));
  EXPECT_THAT(batch.offsets, ElementsAre(0, 24, 36));
  EXPECT_EQ(batch.total_bytes, 60u);
  EXPECT_TRUE(ReadAll(*store, {}).empty());
}

TEST_F(TypedStoreTest, RaggedShapeRecordsAreTheReferences) {
  {
    ASSERT_OK_AND_ASSIGN(
        auto store, RaggedStore::Create(*vfs_, "/data/t", kU1, RawOptions()));
    std::vector<RaggedRecord> records = {{"abc", {3}}, {"d", {}}};
    ASSERT_OK(store->Append(records));
  }
  // Payload, shape, payload, shape: back to back in 0.chunk.
  ASSERT_OK_AND_ASSIGN(std::string chunk,
                       ReadFileToString(*vfs_, "/data/t/0.chunk"));
  EXPECT_EQ(chunk,
            "abc" + EncodeShapeRecord({3}) + "d" + EncodeShapeRecord({}));
}

TEST_F(TypedStoreTest, ACorruptShapeFailsTheReadAndSizesNothing) {
  {
    ASSERT_OK_AND_ASSIGN(
        auto store, RaggedStore::Create(*vfs_, "/data/t", kI4, RawOptions()));
    const std::vector<int32_t> a = {1, 2, 3};
    std::vector<RaggedRecord> records = {{Bytes(a), {3}}};
    ASSERT_OK(store->Append(records));
  }
  // Rewrite the shape (3,) as (2^62,): its size disagrees with the payload.
  ASSERT_OK_AND_ASSIGN(auto chunk,
                       vfs_->Open("/data/t/0.chunk", OpenMode::kReadWrite));
  std::string huge = EncodeShapeRecord({uint64_t{1} << 62});
  ASSERT_OK(chunk->WriteAt(12, huge));
  ASSERT_OK_AND_ASSIGN(auto store, RaggedStore::Open(*vfs_, "/data/t"));
  // The batch's buffer is sized from the payload's table entry (which
  // `Open` checked against its chunk), never from a shape.
  std::vector<uint64_t> requested;
  std::string buffer;
  absl::Status status =
      store
          ->Read({0},
                 [&](uint64_t bytes) -> absl::StatusOr<absl::Span<char>> {
                   requested.push_back(bytes);
                   buffer.resize(bytes);
                   return absl::MakeSpan(buffer);
                 })
          .status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(ErrorCodeOf(status), ErrorCode::kCorruptRecord);
  EXPECT_THAT(requested, ElementsAre(3 * sizeof(int32_t)));
  EXPECT_EQ(ErrorCodeOf(store->Shapes({0}).status()),
            ErrorCode::kCorruptRecord);
}

TEST_F(TypedStoreTest, RaggedRejectsEmptyOrMisshapenRecords) {
  ASSERT_OK_AND_ASSIGN(auto store, RaggedStore::Create(*vfs_, "/data/t", kI4));
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
  std::vector<RaggedRecord> deep = {
      {Bytes(three), std::vector<uint64_t>(65, 1)}};
  EXPECT_STATUS_CODE(store->Append(deep), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store->size(), 0u);  // Nothing from the failed batches.
}

TEST_F(TypedStoreTest, RaggedDeleteMovesWholePairs) {
  ASSERT_OK_AND_ASSIGN(
      auto store, RaggedStore::Create(*vfs_, "/data/t", kU1, RawOptions()));
  std::vector<std::string> payloads = {"a", "bb", "ccc", "dddd", "eeeee"};
  std::vector<RaggedRecord> records;
  for (const std::string& p : payloads) records.push_back({p, {p.size()}});
  ASSERT_OK(store->Append(records));
  ASSERT_OK(store->Delete({4}));
  ASSERT_OK(store->Delete({0, 0}));  // Twice is once; dddd moves to 0.
  EXPECT_EQ(store->size(), 3u);
  ASSERT_OK_AND_ASSIGN(auto shapes, store->Shapes({0, 1, 2}));
  EXPECT_THAT(shapes,
              ElementsAre(ElementsAre(4), ElementsAre(2), ElementsAre(3)));
  EXPECT_THAT(ReadAll(*store, {0, 1, 2}), ElementsAre("dddd", "bb", "ccc"));
  EXPECT_STATUS_CODE(store->Delete({3}), absl::StatusCode::kOutOfRange);
  ASSERT_OK_AND_ASSIGN(auto stats, store->Stats());
  EXPECT_EQ(stats.records, 3u);
  // Shapes count: 15 payload bytes and five 16-byte shapes were written.
  EXPECT_EQ(stats.chunk_bytes, 15u + 5 * 16);
  EXPECT_EQ(stats.live_bytes, 9u + 3 * 16);
  EXPECT_EQ(stats.reclaimable, stats.chunk_bytes - stats.live_bytes);
}

}  // namespace
}  // namespace loaderx
