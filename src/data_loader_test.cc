// DataLoader over real dense and ragged stores (in-memory VFS) and over test
// streams: record i of every stream lines up, steps come in the sampler's
// order in every mode, `Seek` resumes exactly, bad construction is refused,
// and a gather's error is reported by the step it belongs to.

#include "loaderx/data_loader.h"

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/dense_store.h"
#include "loaderx/ragged_store.h"
#include "loaderx/spi/little_endian.h"
#include "loaderx/store_streams.h"
#include "loaderx/vfs_registry.h"
#include "tests/loader_testing.h"
#include "tests/status_testing.h"
#include "vfs/fault/fault_vfs.h"

namespace loaderx {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kRecords = 600;
constexpr uint64_t kDenseItems = 3;  // Dense records are (3,) of "<u4".
constexpr SamplerMode kModes[] = {SamplerMode::kSequential, SamplerMode::kIid,
                                  SamplerMode::kCyclic, SamplerMode::kIidKeyed};

std::string EncodedRecord(uint64_t i, uint64_t elements) {
  std::string bytes(4 * elements, '\0');
  for (uint64_t e = 0; e < elements; ++e) {
    StoreLittle<uint32_t>(&bytes[4 * e], EncodedValue(i, e));
  }
  return bytes;
}

uint64_t Elements(const std::vector<uint64_t>& shape) {
  uint64_t elements = 1;
  for (uint64_t dim : shape) elements *= dim;
  return elements;
}

// Whether `batch` holds `indices`, and record r of every stream is record
// indices[r] of its store.
::testing::AssertionResult HoldsRecords(const Batch& batch,
                                        const std::vector<uint64_t>& indices) {
  if (std::vector<uint64_t>(batch.indices().begin(), batch.indices().end()) !=
      indices) {
    return ::testing::AssertionFailure()
           << "step " << batch.step() << " holds other indices";
  }
  const StreamBatch* dense = batch.Find("dense");
  const StreamBatch* ragged = batch.Find("ragged");
  if (dense == nullptr || ragged == nullptr || batch.num_streams() != 2) {
    return ::testing::AssertionFailure() << "streams missing";
  }
  for (const StreamBatch* stream : {dense, ragged}) {
    if (stream->size() != indices.size() ||
        reinterpret_cast<uintptr_t>(stream->data()) %
                StreamBatch::kBufferAlignment !=
            0) {
      return ::testing::AssertionFailure()
             << stream->name() << ": wrong size or misaligned buffer";
    }
  }
  for (size_t r = 0; r < indices.size(); ++r) {
    const uint64_t i = indices[r];
    if (dense->offset(r) != r * 4 * kDenseItems ||
        std::string(dense->record(r).begin(), dense->record(r).end()) !=
            EncodedRecord(i, kDenseItems)) {
      return ::testing::AssertionFailure()
             << "step " << batch.step() << ": dense record " << r
             << " is not record " << i;
    }
    const std::vector<uint64_t> shape = RaggedShapeFor(i);
    if (ragged->offset(r) % 4 != 0 ||
        std::vector<uint64_t>(ragged->shape(r).begin(),
                              ragged->shape(r).end()) != shape ||
        std::string(ragged->record(r).begin(), ragged->record(r).end()) !=
            EncodedRecord(i, Elements(shape))) {
      return ::testing::AssertionFailure()
             << "step " << batch.step() << ": ragged record " << r
             << " is not record " << i;
    }
  }
  return ::testing::AssertionSuccess();
}

class DataLoaderTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(vfs_, CreateVfs("memory"));
    ASSERT_OK(vfs_->CreateDirectory("/data"));
    StoreOptions raw;
    raw.codec = "raw";
    ASSERT_OK_AND_ASSIGN(
        dense_, DenseStore::Create(
                    *vfs_, "/data/dense",
                    TypeIdentity{DType::Simple("<u4"), {kDenseItems}}, raw));
    std::string dense_data;
    for (uint64_t i = 0; i < kRecords; ++i) {
      dense_data += EncodedRecord(i, kDenseItems);
    }
    ASSERT_OK(dense_->Append(dense_data));
    // zstd, the default codec: the loader decodes as well as copies.
    ASSERT_OK_AND_ASSIGN(ragged_, RaggedStore::Create(*vfs_, "/data/ragged",
                                                      DType::Simple("<u4")));
    std::vector<std::string> payloads;
    std::vector<RaggedRecord> records;
    for (uint64_t i = 0; i < kRecords; ++i) {
      payloads.push_back(EncodedRecord(i, Elements(RaggedShapeFor(i))));
    }
    for (uint64_t i = 0; i < kRecords; ++i) {
      records.push_back(RaggedRecord{payloads[i], RaggedShapeFor(i)});
    }
    ASSERT_OK(ragged_->Append(records));
    ASSERT_OK_AND_ASSIGN(dense_stream_, DenseStoreStream(*dense_));
    ASSERT_OK_AND_ASSIGN(ragged_stream_, RaggedStoreStream(*ragged_));
  }

  std::vector<NamedStream> Streams() const {
    return {{"dense", Unowned(*dense_stream_)},
            {"ragged", Unowned(*ragged_stream_)}};
  }

  std::unique_ptr<DataLoader> MakeLoader(DataLoaderOptions options) const {
    absl::StatusOr<std::unique_ptr<DataLoader>> loader =
        DataLoader::Create(Streams(), options);
    EXPECT_OK(loader);
    return loader.ok() ? *std::move(loader) : nullptr;
  }

  std::unique_ptr<Vfs> vfs_;
  std::unique_ptr<DenseStore> dense_;
  std::unique_ptr<RaggedStore> ragged_;
  std::unique_ptr<LoaderStream> dense_stream_;
  std::unique_ptr<LoaderStream> ragged_stream_;
};

DataLoaderOptions OptionsFor(SamplerMode mode, uint64_t batch_size = 8) {
  DataLoaderOptions options;
  options.mode = mode;
  options.batch_size = batch_size;
  options.seed = 7;
  return options;
}

TEST_F(DataLoaderTest, StreamsAndTypesAreReportedInOrder) {
  std::unique_ptr<DataLoader> loader = MakeLoader(OptionsFor(kModes[2]));
  ASSERT_NE(loader, nullptr);
  ASSERT_EQ(loader->streams().size(), 2u);
  EXPECT_EQ(loader->streams()[0].name, "dense");
  EXPECT_EQ(
      loader->streams()[0].type,
      (StreamType{StreamKind::kDense, DType::Simple("<u4"), 4, {kDenseItems}}));
  EXPECT_EQ(loader->streams()[1].name, "ragged");
  EXPECT_EQ(loader->streams()[1].type,
            (StreamType{StreamKind::kRagged, DType::Simple("<u4"), 4, {}}));
  EXPECT_EQ(loader->size(), kRecords);
  EXPECT_EQ(loader->step(), 0u);
  EXPECT_EQ(loader->options().prefetch, 4);
  EXPECT_NE(loader->options().thread_pool, nullptr);
  // Nothing is read before the first `Next`.
  EXPECT_EQ(loader->stats().gathers_completed, 0u);
}

TEST_F(DataLoaderTest, EveryModeReturnsItsSamplersStepsWithRecordsAligned) {
  for (SamplerMode mode : kModes) {
    SCOPED_TRACE(static_cast<int>(mode));
    // Cyclic, the default mode, runs through 25 cycles of 75 batches.
    const uint64_t steps = mode == SamplerMode::kCyclic ? 2000 : 600;
    const std::vector<std::vector<uint64_t>> expected =
        SamplerSteps(kRecords, 8, mode, 7, 0, steps);
    std::unique_ptr<DataLoader> loader = MakeLoader(OptionsFor(mode));
    ASSERT_NE(loader, nullptr);
    for (uint64_t s = 0; s < steps; ++s) {
      ASSERT_EQ(loader->step(), s);
      ASSERT_OK_AND_ASSIGN(std::shared_ptr<Batch> batch, loader->Next());
      ASSERT_EQ(batch->step(), s);
      ASSERT_TRUE(HoldsRecords(*batch, expected[s]));
    }
  }
}

TEST_F(DataLoaderTest, SeekResumesExactlyAsAnUninterruptedRun) {
  for (SamplerMode mode : kModes) {
    SCOPED_TRACE(static_cast<int>(mode));
    constexpr uint64_t kSteps = 320;
    std::vector<std::vector<uint64_t>> uninterrupted;
    {
      std::unique_ptr<DataLoader> loader = MakeLoader(OptionsFor(mode));
      ASSERT_NE(loader, nullptr);
      for (uint64_t s = 0; s < kSteps; ++s) {
        ASSERT_OK_AND_ASSIGN(std::shared_ptr<Batch> batch, loader->Next());
        uninterrupted.emplace_back(batch->indices().begin(),
                                   batch->indices().end());
      }
    }
    ASSERT_EQ(uninterrupted, SamplerSteps(kRecords, 8, mode, 7, 0, kSteps));

    // A fresh loader sought before its first step, then seeks back,
    // forward, to where it already is, and while gathers are in flight.
    std::unique_ptr<DataLoader> loader = MakeLoader(OptionsFor(mode));
    ASSERT_NE(loader, nullptr);
    const struct {
      uint64_t seek_to;
      uint64_t run;
    } legs[] = {{150, 20}, {30, 40}, {70, 10}, {70, 5}, {250, 70}, {0, 12}};
    for (const auto& leg : legs) {
      SCOPED_TRACE(leg.seek_to);
      ASSERT_OK(loader->Seek(leg.seek_to));
      EXPECT_EQ(loader->step(), leg.seek_to);
      for (uint64_t s = leg.seek_to; s < leg.seek_to + leg.run; ++s) {
        ASSERT_OK_AND_ASSIGN(std::shared_ptr<Batch> batch, loader->Next());
        ASSERT_EQ(batch->step(), s);
        ASSERT_TRUE(HoldsRecords(*batch, uninterrupted[s]));
      }
    }
  }
}

TEST_F(DataLoaderTest, ShortCyclicBatchesHoldAWholePermutation) {
  // Fewer records than the batch size: every cyclic batch is all of them.
  IndexStream five(5);
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<DataLoader> loader,
      DataLoader::Create({{"x", Unowned(five)}},
                         OptionsFor(SamplerMode::kCyclic, /*batch_size=*/8)));
  const auto expected = SamplerSteps(5, 8, SamplerMode::kCyclic, 7, 0, 20);
  for (uint64_t s = 0; s < 20; ++s) {
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<Batch> batch, loader->Next());
    ASSERT_EQ(batch->size(), 5u);
    const StreamBatch& x = batch->stream(0);
    ASSERT_EQ(x.size(), 5u);
    for (size_t r = 0; r < 5; ++r) {
      EXPECT_EQ(LoadLittle<uint64_t>(x.record(r).data()), expected[s][r]);
    }
  }
}

TEST_F(DataLoaderTest, StreamsOfDifferentSizesAreRefusedNamingTheSizes) {
  IndexStream longer(kRecords + 1);
  std::vector<NamedStream> streams = Streams();
  streams.push_back({"longer", Unowned(longer)});
  absl::StatusOr<std::unique_ptr<DataLoader>> loader =
      DataLoader::Create(streams);
  EXPECT_STATUS_CODE(loader, absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(loader.status().message(),
              HasSubstr("{'dense': 600, 'ragged': 600, 'longer': 601}"));
}

TEST_F(DataLoaderTest, BadStreamsAndOptionsAreRefused) {
  IndexStream empty(0);
  const auto refused = [](std::vector<NamedStream> streams,
                          DataLoaderOptions options = {}) -> std::string {
    absl::StatusOr<std::unique_ptr<DataLoader>> loader =
        DataLoader::Create(std::move(streams), options);
    EXPECT_STATUS_CODE(loader, absl::StatusCode::kInvalidArgument);
    return std::string(loader.status().message());
  };
  EXPECT_THAT(refused({}), HasSubstr("at least one stream"));
  EXPECT_THAT(refused({{"x", nullptr}}), HasSubstr("'x' is null"));
  EXPECT_THAT(refused({Streams()[0], Streams()[0]}),
              HasSubstr("two streams are called 'dense'"));
  EXPECT_THAT(refused({{"x", Unowned(empty)}}), HasSubstr("no records"));
  DataLoaderOptions options;
  options.prefetch = 0;
  EXPECT_THAT(refused(Streams(), options), HasSubstr("prefetch"));
  options = {};
  options.max_concurrent_gathers = -1;
  EXPECT_THAT(refused(Streams(), options), HasSubstr("max_concurrent"));
  options = {};
  options.batch_size = 0;
  refused(Streams(), options);
  options = {};
  options.mode = static_cast<SamplerMode>(9);
  refused(Streams(), options);
}

TEST_F(DataLoaderTest, AGatherErrorIsReturnedByItsStepAndTheNextStepFollows) {
  // Sequential batches of 4 over 10000 records: step s starts at 4 s.
  constexpr uint64_t kBroken = 9;
  IndexStream healthy(10000);
  IndexStream broken(10000, [](absl::Span<const uint64_t> indices) {
    return indices[0] == 4 * kBroken ? absl::DataLossError("broken record")
                                     : absl::OkStatus();
  });
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<DataLoader> loader,
      DataLoader::Create(
          {{"healthy", Unowned(healthy)}, {"broken", Unowned(broken)}},
          OptionsFor(SamplerMode::kSequential, 4)));
  for (uint64_t s = 0; s < 20; ++s) {
    absl::StatusOr<std::shared_ptr<Batch>> batch = loader->Next();
    if (s == kBroken) {
      EXPECT_STATUS_CODE(batch, absl::StatusCode::kDataLoss);
      EXPECT_THAT(batch.status().message(),
                  HasSubstr("step 9, stream 'broken': broken record"));
    } else {
      ASSERT_OK(batch);
      EXPECT_EQ((*batch)->step(), s);
      EXPECT_EQ((*batch)->indices()[0], 4 * s);
    }
    EXPECT_EQ(loader->step(), s + 1);
  }
  // Seeking back meets the error again: it belongs to the step.
  ASSERT_OK(loader->Seek(kBroken));
  EXPECT_STATUS_CODE(loader->Next(), absl::StatusCode::kDataLoss);
  ASSERT_OK(loader->Next());
}

TEST_F(DataLoaderTest, ALastingErrorFailsEveryStepThatMeetsIt) {
  IndexStream failing(1000, [](absl::Span<const uint64_t> indices) {
    return indices[0] >= 40 ? absl::UnavailableError("disk gone")
                            : absl::OkStatus();
  });
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<DataLoader> loader,
                       DataLoader::Create({{"x", Unowned(failing)}},
                                          OptionsFor(SamplerMode::kSequential,
                                                     /*batch_size=*/4)));
  for (uint64_t s = 0; s < 10; ++s) ASSERT_OK(loader->Next());
  for (uint64_t s = 10; s < 30; ++s) {
    EXPECT_STATUS_CODE(loader->Next(), absl::StatusCode::kUnavailable);
  }
  EXPECT_EQ(loader->step(), 30u);
}

TEST(DataLoaderFaultTest, AFailedReadOfAStoreFailsOneStepOnly) {
  FaultVfs vfs(CreateVfs("memory").value());
  ASSERT_OK(vfs.CreateDirectory("/data"));
  StoreOptions raw;
  raw.codec = "raw";
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<DenseStore> store,
      DenseStore::Create(vfs, "/data/x", TypeIdentity{DType::Simple("<u4"), {}},
                         raw));
  std::string data;
  for (uint64_t i = 0; i < 256; ++i) data += EncodedRecord(i, 1);
  ASSERT_OK(store->Append(data));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<LoaderStream> stream,
                       DenseStoreStream(*store));
  // The 30th read from now fails, whichever gather makes it.
  vfs.FailOnCall(VfsOp::kReadAt, 30, absl::UnavailableError("flaky disk"));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<DataLoader> loader,
                       DataLoader::Create({{"x", Unowned(*stream)}},
                                          OptionsFor(SamplerMode::kCyclic)));
  const auto expected = SamplerSteps(256, 8, SamplerMode::kCyclic, 7, 0, 40);
  int failures = 0;
  for (uint64_t s = 0; s < 40; ++s) {
    absl::StatusOr<std::shared_ptr<Batch>> batch = loader->Next();
    if (!batch.ok()) {
      ++failures;
      EXPECT_STATUS_CODE(batch, absl::StatusCode::kUnavailable);
      EXPECT_THAT(batch.status().message(), HasSubstr("flaky disk"));
      EXPECT_THAT(batch.status().message(), HasSubstr("stream 'x'"));
      continue;
    }
    for (size_t r = 0; r < 8; ++r) {
      EXPECT_EQ(LoadLittle<uint32_t>((*batch)->stream(0).record(r).data()),
                EncodedValue(expected[s][r], 0));
    }
  }
  EXPECT_EQ(failures, 1);
}

TEST_F(DataLoaderTest, HeldBatchesAreNeverOverwrittenAndOutliveTheLoader) {
  std::unique_ptr<DataLoader> loader =
      MakeLoader(OptionsFor(SamplerMode::kCyclic));
  ASSERT_NE(loader, nullptr);
  const auto expected =
      SamplerSteps(kRecords, 8, SamplerMode::kCyclic, 7, 0, 60);
  // Three times the prefetch depth held at once, then more steps.
  std::vector<std::shared_ptr<Batch>> held;
  for (uint64_t s = 0; s < 12; ++s) {
    ASSERT_OK_AND_ASSIGN(held.emplace_back(), loader->Next());
  }
  for (uint64_t s = 12; s < 60; ++s) ASSERT_OK(loader->Next());
  loader.reset();
  for (uint64_t s = 0; s < 12; ++s) {
    ASSERT_TRUE(HoldsRecords(*held[s], expected[s]));
  }
}

TEST_F(DataLoaderTest, TheRingsBuffersAreReusedOverThousandsOfSteps) {
  std::unique_ptr<DataLoader> loader =
      MakeLoader(OptionsFor(SamplerMode::kIid));
  ASSERT_NE(loader, nullptr);
  const int prefetch = loader->options().prefetch;
  const auto expected =
      SamplerSteps(kRecords, 8, SamplerMode::kIid, 7, 0, 3000);
  std::set<const char*> dense_buffers;
  std::set<const char*> ragged_buffers;
  std::shared_ptr<Batch> batch;
  DataLoaderStats warm;
  for (uint64_t s = 0; s < 3000; ++s) {
    // Assigning releases the previous batch back to the ring.
    ASSERT_OK_AND_ASSIGN(batch, loader->Next());
    ASSERT_TRUE(HoldsRecords(*batch, expected[s]));
    dense_buffers.insert(batch->Find("dense")->data());
    ragged_buffers.insert(batch->Find("ragged")->data());
    if (s == 20) warm = loader->stats();
  }
  const DataLoaderStats end = loader->stats();
  EXPECT_EQ(end.batches_created, warm.batches_created);
  EXPECT_EQ(end.buffer_allocations, warm.buffer_allocations);
  // The prefetched steps, the batch held, one spare.
  EXPECT_LE(end.batches_created, static_cast<uint64_t>(prefetch) + 2);
  EXPECT_LE(dense_buffers.size(), end.batches_created);
  EXPECT_LE(ragged_buffers.size(), end.batches_created);
  EXPECT_GE(end.gathers_completed, 3000u);
}

TEST_F(DataLoaderTest, AClosedLoaderRefusesEveryCall) {
  std::unique_ptr<DataLoader> loader =
      MakeLoader(OptionsFor(SamplerMode::kCyclic));
  ASSERT_NE(loader, nullptr);
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<Batch> batch, loader->Next());
  loader->Close();
  loader->Close();  // Idempotent.
  EXPECT_STATUS_CODE(loader->Next(), absl::StatusCode::kFailedPrecondition);
  EXPECT_STATUS_CODE(loader->Seek(3), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(loader->step(), 1u);
  // What was handed out before stays readable.
  EXPECT_TRUE(HoldsRecords(
      *batch, SamplerSteps(kRecords, 8, SamplerMode::kCyclic, 7, 0, 1)[0]));
}

}  // namespace
}  // namespace loaderx
