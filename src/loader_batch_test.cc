// StreamBatch layouts: dense records back to back, ragged records on
// 64-byte boundaries with their shapes and zeroed gaps or where their source
// put them, page-aligned buffers that are reused and grow only when a step
// needs more.

#include "loaderx/loader_batch.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

using ::testing::ElementsAre;

std::shared_ptr<const StreamSpec> Spec(StreamType type) {
  return std::make_shared<const StreamSpec>(StreamSpec{"s", std::move(type)});
}

const StreamType kDenseF4{StreamKind::kDense, DType::Simple("<f4"), 4, {2, 3}};
const StreamType kRaggedI2{StreamKind::kRagged, DType::Simple("<i2"), 2, {}};

bool PageAligned(const char* data) {
  return reinterpret_cast<uintptr_t>(data) % StreamBatch::kBufferAlignment == 0;
}

TEST(StreamTypeTest, RecordBytesOfDenseTypesOnly) {
  EXPECT_EQ(kDenseF4.record_bytes(), 24u);
  EXPECT_EQ((StreamType{StreamKind::kDense, DType::Simple("<u1"), 1, {}})
                .record_bytes(),
            1u);
  EXPECT_EQ(kRaggedI2.record_bytes(), 0u);
}

TEST(StreamBatchTest, DenseRecordsSitBackToBackInOnePageAlignedBuffer) {
  StreamBatch batch(Spec(kDenseF4));
  EXPECT_EQ(batch.size(), 0u);
  EXPECT_EQ(batch.data(), nullptr);
  ASSERT_OK_AND_ASSIGN(absl::Span<char> buffer, batch.PrepareDense(5));
  EXPECT_EQ(buffer.size(), 5u * 24);
  EXPECT_EQ(buffer.data(), batch.data());
  EXPECT_TRUE(PageAligned(batch.data()));
  EXPECT_EQ(batch.size(), 5u);
  EXPECT_EQ(batch.data_bytes(), 120u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(batch.offset(i), 24 * i);
    EXPECT_EQ(batch.record_bytes(i), 24u);
    EXPECT_THAT(batch.shape(i), ElementsAre(2, 3));
  }
  EXPECT_EQ(batch.record(3).data(), batch.data() + 72);
  // A ragged layout is refused on a dense stream.
  EXPECT_STATUS_CODE(batch.PrepareRagged({{1}}),
                     absl::StatusCode::kFailedPrecondition);
}

TEST(StreamBatchTest, TheBufferIsReusedAndGrowsOnlyWhenNeeded) {
  StreamBatch batch(Spec(kDenseF4));
  ASSERT_OK(batch.PrepareDense(200));
  const char* first = batch.data();
  const uint64_t capacity = batch.capacity();
  EXPECT_GE(capacity, 200u * 24);
  EXPECT_EQ(capacity % StreamBatch::kBufferAlignment, 0u);
  for (size_t records : {200, 3, 150, 200}) {
    ASSERT_OK(batch.PrepareDense(records));
    EXPECT_EQ(batch.data(), first);
    EXPECT_EQ(batch.capacity(), capacity);
  }
  // Growing goes at least half again beyond what the batch had.
  ASSERT_OK(batch.PrepareDense(capacity / 24 + 1));
  EXPECT_GE(batch.capacity(), capacity + capacity / 2);
  EXPECT_TRUE(PageAligned(batch.data()));
  batch.Clear();
  EXPECT_EQ(batch.size(), 0u);
  EXPECT_GE(batch.capacity(), capacity);
}

TEST(StreamBatchTest, AnAllocationShareOutlivesGrowthAndTheBatch) {
  auto batch = std::make_unique<StreamBatch>(Spec(kDenseF4));
  EXPECT_EQ(batch->allocation(), nullptr);
  ASSERT_OK_AND_ASSIGN(absl::Span<char> first, batch->PrepareDense(10));
  std::shared_ptr<const void> share = batch->allocation();
  ASSERT_EQ(share.get(), batch->data());
  std::fill(first.begin(), first.end(), 'a');
  // Growing moves the batch to a new allocation; the share keeps the old.
  ASSERT_OK(batch->PrepareDense(batch->capacity() / 24 + 1));
  EXPECT_NE(batch->data(), share.get());
  EXPECT_EQ(batch->allocation().get(), batch->data());
  batch.reset();
  // Still allocated and unchanged (ASan reports a read of freed memory).
  const char* bytes = static_cast<const char*>(share.get());
  EXPECT_TRUE(std::all_of(bytes, bytes + 240, [](char c) { return c == 'a'; }));
}

TEST(StreamBatchTest, RaggedRecordsKeepTheirShapesOn64ByteBoundaries) {
  StreamBatch batch(Spec(kRaggedI2));
  const std::vector<std::vector<uint64_t>> shapes = {{3}, {}, {2, 40}, {1, 1}};
  ASSERT_OK_AND_ASSIGN(absl::Span<const absl::Span<char>> destinations,
                       batch.PrepareRagged(shapes));
  ASSERT_EQ(batch.size(), 4u);
  ASSERT_EQ(destinations.size(), 4u);
  EXPECT_TRUE(PageAligned(batch.data()));
  const uint64_t expected_bytes[] = {6, 2, 160, 2};
  const uint64_t expected_offsets[] = {0, 64, 128, 320};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(batch.record_bytes(i), expected_bytes[i]);
    EXPECT_EQ(batch.offset(i), expected_offsets[i]);
    EXPECT_EQ(destinations[i].data(), batch.data() + expected_offsets[i]);
    EXPECT_EQ(destinations[i].size(), expected_bytes[i]);
    EXPECT_EQ(
        std::vector<uint64_t>(batch.shape(i).begin(), batch.shape(i).end()),
        shapes[i]);
  }
  EXPECT_EQ(batch.data_bytes(), 322u);
  // A dense layout is refused on a ragged stream, changing nothing.
  EXPECT_STATUS_CODE(batch.PrepareDense(1),
                     absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(batch.size(), 4u);
  // The gaps between records are zeroed, whatever the buffer held before.
  std::fill(batch.mutable_data(), batch.mutable_data() + batch.data_bytes(),
            '\x7f');
  ASSERT_OK(batch.PrepareRagged(shapes));
  for (uint64_t b = 0; b < batch.data_bytes(); ++b) {
    const bool in_record =
        b < 6 || (b >= 64 && b < 66) || (b >= 128 && b < 288) || b >= 320;
    ASSERT_EQ(batch.data()[b], in_record ? '\x7f' : '\0') << "byte " << b;
  }
}

TEST(StreamBatchTest, ASourcesOwnRaggedLayoutIsTakenAsGiven) {
  StreamBatch batch(Spec(kRaggedI2));
  ASSERT_OK_AND_ASSIGN(absl::Span<char> buffer, batch.AllocateRagged(14));
  EXPECT_EQ(buffer.size(), 14u);
  EXPECT_TRUE(PageAligned(buffer.data()));
  EXPECT_EQ(batch.size(), 0u);  // No records until the layout is set.
  ASSERT_OK(
      batch.SetRaggedLayout(BatchShapes::Of({{2, 2}, {}, {2}}), {0, 8, 10}));
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(batch.data_bytes(), 14u);
  EXPECT_EQ(batch.record(1).data(), buffer.data() + 8);
  EXPECT_EQ(batch.record_bytes(0), 8u);
  EXPECT_EQ(batch.record_bytes(1), 2u);
  EXPECT_THAT(batch.shape(0), ElementsAre(2, 2));
  EXPECT_THAT(batch.shape(1), ElementsAre());
  EXPECT_THAT(batch.shape(2), ElementsAre(2));
  // The same buffer serves the next, smaller batch.
  ASSERT_OK_AND_ASSIGN(absl::Span<char> again, batch.AllocateRagged(4));
  EXPECT_EQ(again.data(), buffer.data());
}

TEST(StreamBatchTest, ARaggedLayoutOutsideItsBufferIsRefused) {
  StreamBatch batch(Spec(kRaggedI2));
  const auto refused = [&](std::vector<std::vector<uint64_t>> shapes,
                           std::vector<uint64_t> offsets) {
    EXPECT_OK(batch.AllocateRagged(10));
    EXPECT_STATUS_CODE(batch.SetRaggedLayout(BatchShapes::Of(shapes), offsets),
                       absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(batch.size(), 0u);
  };
  refused({{4}}, {4});                  // Ends past the buffer.
  refused({{1}}, {11});                 // Starts past it.
  refused({{1}}, {3});                  // Not on an item boundary.
  refused({{0}}, {0});                  // Empty.
  refused({{1}, {1}}, {0});             // A shape without an offset.
  refused({{uint64_t{1} << 62}}, {0});  // Overflows.
  StreamBatch dense(Spec(kDenseF4));
  EXPECT_STATUS_CODE(dense.AllocateRagged(8),
                     absl::StatusCode::kFailedPrecondition);
}

TEST(StreamBatchTest, EmptyOrOverflowingRaggedRecordsAreRefused) {
  StreamBatch batch(Spec(kRaggedI2));
  EXPECT_STATUS_CODE(batch.PrepareRagged({{2}, {0, 4}}),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(batch.size(), 0u);
  EXPECT_STATUS_CODE(
      batch.PrepareRagged({{uint64_t{1} << 40, uint64_t{1} << 40}}),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(batch.size(), 0u);
  StreamBatch dense(Spec(kDenseF4));
  EXPECT_STATUS_CODE(dense.PrepareDense(size_t{1} << 60),
                     absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace loaderx
