// The LoaderStream adapters over DenseStore and RaggedStore: their types
// follow the stores' identities, gathers land in the batch layout, and the
// stores' errors come through with their codes.

#include "loaderx/store_streams.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/vfs_registry.h"
#include "tests/status_testing.h"
#include "vfs/fault/fault_vfs.h"

namespace loaderx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::shared_ptr<const StreamSpec> SpecOf(const LoaderStream& stream) {
  return std::make_shared<const StreamSpec>(StreamSpec{"s", stream.type()});
}

std::string AsString(absl::Span<const char> bytes) {
  return std::string(bytes.data(), bytes.size());
}

class StoreStreamsTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(vfs_.CreateDirectory("/data"));
    StoreOptions raw;
    raw.codec = "raw";
    ASSERT_OK_AND_ASSIGN(
        dense_,
        DenseStore::Create(vfs_, "/data/dense",
                           TypeIdentity{DType::Simple("|u1"), {2, 3}}, raw));
    ASSERT_OK(dense_->Append("aaaaaabbbbbbccccccdddddd"));
    ASSERT_OK_AND_ASSIGN(ragged_, RaggedStore::Create(vfs_, "/data/ragged",
                                                      DType::Simple("<u2")));
    const std::vector<RaggedRecord> records = {
        {"ab", {}}, {"cdefgh", {3}}, {"ijklmnop", {2, 2}}};
    ASSERT_OK(ragged_->Append(records));
  }

  FaultVfs vfs_{CreateVfs("memory").value()};
  std::unique_ptr<DenseStore> dense_;
  std::unique_ptr<RaggedStore> ragged_;
};

TEST_F(StoreStreamsTest, ADenseStreamGathersIntoOneArray) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<LoaderStream> stream,
                       DenseStoreStream(*dense_));
  EXPECT_EQ(stream->type(),
            (StreamType{StreamKind::kDense, DType::Simple("|u1"), 1, {2, 3}}));
  EXPECT_EQ(stream->size(), 4u);
  StreamBatch batch(SpecOf(*stream));
  ASSERT_OK(stream->Gather({3, 0, 3}, batch));
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(AsString({batch.data(), batch.data_bytes()}), "ddddddaaaaaadddddd");
  EXPECT_THAT(batch.shape(1), ElementsAre(2, 3));
  // The next gather reuses the buffer.
  const char* buffer = batch.data();
  ASSERT_OK(stream->Gather({1}, batch));
  EXPECT_EQ(batch.data(), buffer);
  EXPECT_EQ(AsString(batch.record(0)), "bbbbbb");
}

TEST_F(StoreStreamsTest, ARaggedStreamKeepsEveryRecordsShape) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<LoaderStream> stream,
                       RaggedStoreStream(*ragged_));
  EXPECT_EQ(stream->type(),
            (StreamType{StreamKind::kRagged, DType::Simple("<u2"), 2, {}}));
  EXPECT_EQ(stream->size(), 3u);
  StreamBatch batch(SpecOf(*stream));
  ASSERT_OK(stream->Gather({2, 0, 1}, batch));
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(AsString(batch.record(0)), "ijklmnop");
  EXPECT_THAT(batch.shape(0), ElementsAre(2, 2));
  EXPECT_EQ(AsString(batch.record(1)), "ab");
  EXPECT_THAT(batch.shape(1), ElementsAre());
  EXPECT_EQ(AsString(batch.record(2)), "cdefgh");
  EXPECT_THAT(batch.shape(2), ElementsAre(3));
  // The store's layout: back to back in batch order.
  EXPECT_EQ(batch.offset(0), 0u);
  EXPECT_EQ(batch.offset(1), 8u);
  EXPECT_EQ(batch.offset(2), 10u);
  EXPECT_EQ(batch.data_bytes(), 16u);
  EXPECT_EQ(AsString({batch.data(), batch.data_bytes()}), "ijklmnopabcdefgh");
}

TEST_F(StoreStreamsTest, OutOfRangeIndicesAreRefusedAndLeaveTheBatchEmpty) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<LoaderStream> dense,
                       DenseStoreStream(*dense_));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<LoaderStream> ragged,
                       RaggedStoreStream(*ragged_));
  for (const LoaderStream* stream : {dense.get(), ragged.get()}) {
    StreamBatch batch(SpecOf(*stream));
    ASSERT_OK(stream->Gather({0}, batch));
    absl::Status status = stream->Gather({1, 9}, batch);
    EXPECT_STATUS_CODE(status, absl::StatusCode::kOutOfRange);
    EXPECT_THAT(status.message(), HasSubstr("9"));
    EXPECT_EQ(batch.size(), 0u);
  }
}

TEST_F(StoreStreamsTest, AFailedReadKeepsItsCode) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<LoaderStream> dense,
                       DenseStoreStream(*dense_));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<LoaderStream> ragged,
                       RaggedStoreStream(*ragged_));
  for (const LoaderStream* stream : {dense.get(), ragged.get()}) {
    vfs_.FailOnCall(VfsOp::kReadAt, 1, absl::UnavailableError("bad sector"));
    StreamBatch batch(SpecOf(*stream));
    absl::Status status = stream->Gather({0, 1}, batch);
    EXPECT_STATUS_CODE(status, absl::StatusCode::kUnavailable);
    EXPECT_THAT(status.message(), HasSubstr("bad sector"));
    vfs_.ClearFaults();
    ASSERT_OK(stream->Gather({0, 1}, batch));
  }
}

TEST_F(StoreStreamsTest, ATypedStoreStreamFollowsTheGeometryAndKeepsTheStore) {
  dense_.reset();  // Releases the directory's lock.
  ragged_.reset();
  for (const char* path : {"/data/dense", "/data/ragged"}) {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<TypedStore> opened,
                         TypedStore::OpenAny(vfs_, path));
    std::shared_ptr<const TypedStore> store = std::move(opened);
    const bool fixed_width = store->fixed_width();
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<LoaderStream> stream,
                         TypedStoreStream(store));
    store.reset();  // The stream's share keeps it open.
    EXPECT_EQ(stream->type().kind,
              fixed_width ? StreamKind::kDense : StreamKind::kRagged);
    StreamBatch batch(SpecOf(*stream));
    ASSERT_OK(stream->Gather({1, 0}, batch));
    ASSERT_EQ(batch.size(), 2u);
    if (fixed_width) {
      EXPECT_THAT(stream->type().item_shape, ElementsAre(2, 3));
      EXPECT_EQ(AsString({batch.data(), batch.data_bytes()}), "bbbbbbaaaaaa");
    } else {
      EXPECT_EQ(stream->type().item_size, 2u);
      EXPECT_EQ(AsString(batch.record(0)), "cdefgh");
      EXPECT_THAT(batch.shape(0), ElementsAre(3));
    }
  }
  EXPECT_STATUS_CODE(TypedStoreStream(nullptr).status(),
                     absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace loaderx
