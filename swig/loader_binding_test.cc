// The loader binding's language-neutral surface, as Python's and Java's
// wrappers use it: store streams of either layout and the index stream,
// batches whose `BatchMemory` keeps them out of the ring after `release`,
// the ragged layout as offsets/ranks/dims, a loader sharing a store whose
// handle was closed, and errors as `BindingError`s with their status codes.

#include "swig/loader_binding.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/sampler.h"
#include "swig/binding.h"
#include "swig/store_binding.h"

namespace loaderx::binding {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

constexpr int kRecords = 40;
constexpr int kCyclic = 2;
constexpr int kSequential = 0;

// The status code of the `BindingError` that `call` throws (0 if none).
template <typename Call>
int ErrorOf(Call call) {
  try {
    call();
  } catch (const BindingError& error) {
    return error.status_code();
  }
  return 0;
}

constexpr int Code(absl::StatusCode code) { return static_cast<int>(code); }

class LoaderBindingTest : public testing::Test {
 protected:
  void SetUp() override {
    fs_.create_directory("/d");
    OpenRequest dense;
    dense.set_dtype(DType::Simple("<u4"));
    dense.set_item_shape({2});
    dense.set_codec("raw");
    dense_ = std::make_unique<StoreHandle>(fs_, "/d/dense", "dense", dense);
    std::vector<uint32_t> values;
    for (uint32_t i = 0; i < kRecords; ++i) values.insert(values.end(), {i, i});
    dense_->append_array(DType::Simple("<u4"), {kRecords, 2},
                         {values.data(), values.size() * sizeof(uint32_t)});

    OpenRequest ragged;
    ragged.set_dtype(DType::Simple("<u2"));
    ragged.set_codec("zstd");
    ragged_ = std::make_unique<StoreHandle>(fs_, "/d/ragged", "ragged", ragged);
    // Record i: i % 3 + 1 uint16 values, all i, of shape (1, n).
    std::vector<std::vector<uint16_t>> payloads(kRecords);
    RecordArrays records(kRecords);
    for (int i = 0; i < kRecords; ++i) {
      payloads[i].assign(i % 3 + 1, static_cast<uint16_t>(i));
      records[i].dtype = DType::Simple("<u2");
      records[i].shape = {1, payloads[i].size()};
      records[i].data = {payloads[i].data(), payloads[i].size() * 2};
    }
    ragged_->append_records(records);
  }

  LoaderStreams BothStreams() const {
    LoaderStreams streams;
    streams.add_store("dense", *dense_);
    streams.add_store("ragged", *ragged_);
    return streams;
  }

  Filesystem fs_{"memory"};
  std::unique_ptr<StoreHandle> dense_;
  std::unique_ptr<StoreHandle> ragged_;
};

std::vector<uint64_t> IndicesOf(const LoaderBatch& batch) {
  const BatchMemory memory = batch.indices();
  std::vector<uint64_t> indices(memory.size / sizeof(uint64_t));
  std::memcpy(indices.data(), memory.data, memory.size);
  EXPECT_FALSE(memory.writable);
  return indices;
}

TEST_F(LoaderBindingTest, BatchesFollowTheSamplerWithBothLayouts) {
  LoaderHandle loader(BothStreams(), 8, kCyclic, 42, 3);
  EXPECT_EQ(loader.num_streams(), 2);
  EXPECT_EQ(loader.stream_kind(0), "dense");
  EXPECT_EQ(loader.stream_kind(1), "ragged");
  EXPECT_THAT(loader.stream_item_shape(0), ElementsAre(2));
  EXPECT_EQ(loader.stream_dtype(1).str, "<u2");
  Sampler sampler = Sampler::Create(kRecords, 8, SamplerMode::kCyclic).value();
  for (uint64_t step = 0; step < 30; ++step) {
    std::unique_ptr<LoaderBatch> batch(loader.next());
    EXPECT_EQ(batch->step(), step);
    std::vector<uint64_t> expected(8);
    ASSERT_EQ(sampler.Next(absl::MakeSpan(expected)).value(), 8u);
    const std::vector<uint64_t> indices = IndicesOf(*batch);
    ASSERT_THAT(indices, ElementsAreArray(expected));

    const BatchMemory dense = batch->buffer(0);
    ASSERT_EQ(dense.size, 8 * 2 * sizeof(uint32_t));
    EXPECT_TRUE(dense.writable);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(dense.data) % 4096, 0u);
    const BatchMemory ragged = batch->buffer(1);
    const Uint64Array offsets = batch->offsets(1);
    const Uint64Array ranks = batch->ranks(1);
    const Uint64Array dims = batch->dims(1);
    ASSERT_EQ(offsets.size(), 8u);
    ASSERT_EQ(dims.size(), 16u);
    for (size_t i = 0; i < 8; ++i) {
      uint32_t pair[2];
      std::memcpy(pair, dense.data + i * sizeof(pair), sizeof(pair));
      EXPECT_THAT(pair, ElementsAre(indices[i], indices[i]));
      EXPECT_EQ(ranks[i], 2u);
      EXPECT_EQ(dims[2 * i], 1u);
      ASSERT_EQ(dims[2 * i + 1], indices[i] % 3 + 1);
      for (uint64_t k = 0; k < dims[2 * i + 1]; ++k) {
        uint16_t value;
        std::memcpy(&value, ragged.data + offsets[i] + 2 * k, 2);
        EXPECT_EQ(value, indices[i]);
      }
    }
  }
  EXPECT_EQ(loader.step(), 30u);
  loader.seek(3);
  std::unique_ptr<LoaderBatch> again(loader.next());
  EXPECT_EQ(again->step(), 3u);
}

TEST_F(LoaderBindingTest, MemoryKeepsItsBatchOutOfTheRingAfterRelease) {
  LoaderHandle loader(BothStreams(), 8, kSequential, 42, 2);
  std::unique_ptr<LoaderBatch> first(loader.next());
  const BatchMemory kept = first->buffer(0);
  const std::string before(kept.data, kept.size);
  first->release();
  EXPECT_TRUE(first->released());
  EXPECT_EQ(ErrorOf([&] { first->step(); }),
            Code(absl::StatusCode::kFailedPrecondition));
  for (int i = 0; i < 20; ++i) {
    std::unique_ptr<LoaderBatch> batch(loader.next());
    EXPECT_NE(batch->buffer(0).data, kept.data);
  }
  EXPECT_EQ(std::string(kept.data, kept.size), before);
  loader.close();
  EXPECT_EQ(std::string(kept.data, kept.size), before);  // After close too.
}

// Java's rule: the batch goes back to the ring at release, and a
// `BufferShare` keeps only the buffer's bytes allocated (ASan reports a read
// of freed memory).
TEST_F(LoaderBindingTest, ABufferShareKeepsTheBytesNotTheBatch) {
  auto loader =
      std::make_unique<LoaderHandle>(BothStreams(), 8, kSequential, 42, 2);
  std::unique_ptr<LoaderBatch> first(loader->next());
  const char* bytes;
  uint64_t size;
  {
    const BatchMemory memory = first->buffer(1);  // Holds the batch: scoped.
    bytes = memory.data;
    size = memory.size;
  }
  std::unique_ptr<BufferShare> share(first->buffer_share(1));
  first.reset();  // The LoaderBatch and its share of the batch.
  // The ring reuses the batch: a later step gathers into the same buffer.
  bool reused = false;
  for (int i = 0; i < 20; ++i) {
    std::unique_ptr<LoaderBatch> batch(loader->next());
    reused = reused || batch->buffer(1).data == bytes;
  }
  EXPECT_TRUE(reused);
  loader.reset();  // Closed and destroyed: the ring's batches are freed.
  EXPECT_EQ(std::string(bytes, size).size(), size);  // Still allocated.
  EXPECT_EQ(ErrorOf([&] {
              LoaderHandle other(BothStreams(), 8, kSequential, 42, 2);
              std::unique_ptr<LoaderBatch> batch(other.next());
              delete batch->buffer_share(2);
            }),
            Code(absl::StatusCode::kInvalidArgument));
}

TEST_F(LoaderBindingTest, TheIndexStreamHoldsTheIndices) {
  LoaderStreams streams;
  streams.add_index_stream("i", kRecords);
  LoaderHandle loader(streams, 8, kCyclic, 7, 1);
  for (int step = 0; step < 10; ++step) {
    std::unique_ptr<LoaderBatch> batch(loader.next());
    const BatchMemory records = batch->buffer(0);
    ASSERT_EQ(records.size, 8 * sizeof(uint64_t));
    std::vector<uint64_t> values(8);
    std::memcpy(values.data(), records.data, records.size);
    EXPECT_EQ(values, IndicesOf(*batch));
  }
  EXPECT_EQ(ErrorOf([&] { streams.add_index_stream("none", 0); }),
            Code(absl::StatusCode::kInvalidArgument));
}

TEST_F(LoaderBindingTest, ALoaderKeepsAStoreWhoseHandleClosed) {
  LoaderHandle loader(BothStreams(), 4, kSequential, 42, 2);
  dense_->close();
  dense_.reset();
  for (int step = 0; step < 15; ++step) {
    std::unique_ptr<LoaderBatch> batch(loader.next());
    uint32_t first[2];
    std::memcpy(first, batch->buffer(0).data, sizeof(first));
    EXPECT_EQ(first[0], (4u * step) % kRecords);
  }
  EXPECT_EQ(ErrorOf([&] { StoreHandle(fs_, "/d/dense", "", OpenRequest()); }),
            Code(absl::StatusCode::kUnavailable))
      << "the loader still holds the store's lock";
  loader.close();
  StoreHandle reopened(fs_, "/d/dense", "", OpenRequest());
  EXPECT_EQ(reopened.size(), kRecords);
  reopened.close();
  LoaderStreams streams;
  EXPECT_EQ(ErrorOf([&] { streams.add_store("x", reopened); }),
            Code(absl::StatusCode::kFailedPrecondition));
}

TEST_F(LoaderBindingTest, BadRequestsAreBindingErrors) {
  const int invalid = Code(absl::StatusCode::kInvalidArgument);
  const int closed = Code(absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ErrorOf([] { LoaderHandle(LoaderStreams(), 8, kCyclic, 42, 1); }),
            invalid);
  EXPECT_EQ(ErrorOf([&] { LoaderHandle(BothStreams(), 8, 300, 42, 1); }),
            invalid);
  EXPECT_EQ(ErrorOf([&] { LoaderHandle(BothStreams(), 0, kCyclic, 42, 1); }),
            invalid);
  EXPECT_EQ(ErrorOf([&] { LoaderHandle(BothStreams(), 8, kCyclic, 42, 0); }),
            invalid);
  LoaderStreams unequal = BothStreams();
  unequal.add_index_stream("short", kRecords - 1);
  EXPECT_EQ(ErrorOf([&] { LoaderHandle(unequal, 8, kCyclic, 42, 1); }),
            invalid);

  LoaderHandle loader(BothStreams(), 8, kCyclic, 42, 1);
  std::unique_ptr<LoaderBatch> batch(loader.next());
  EXPECT_EQ(ErrorOf([&] { batch->buffer(2); }), invalid);
  EXPECT_EQ(ErrorOf([&] { batch->offsets(-1); }), invalid);
  EXPECT_EQ(ErrorOf([&] { loader.stream_name(5); }), invalid);
  loader.close();
  loader.close();  // Idempotent.
  EXPECT_TRUE(loader.closed());
  EXPECT_EQ(ErrorOf([&] { delete loader.next(); }), closed);
  EXPECT_EQ(ErrorOf([&] { loader.seek(0); }), closed);
  EXPECT_EQ(loader.step(), 1u);  // Accessors still answer.
  EXPECT_GE(loader.stats().batches_created, 1);
  EXPECT_EQ(batch->step(), 0u);  // Batches handed out stay valid.
}

}  // namespace
}  // namespace loaderx::binding
