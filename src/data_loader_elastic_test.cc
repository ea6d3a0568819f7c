// Elastic, rank-sharded loading over real dense and ragged stores: a run
// with world 4 for steps [0, k), resumed from its saved state with world 2
// for [k, m), then with world 8, returns per step, ranks concatenated, the
// single-process run's batch (indices and record bytes), in sequential,
// IID and cyclic modes. Refused: a world that does not divide the batch,
// and a state from another data set, another batch size or a store that
// changed since.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/data_loader.h"
#include "loaderx/dense_store.h"
#include "loaderx/loader_state.h"
#include "loaderx/ragged_store.h"
#include "loaderx/spi/little_endian.h"
#include "loaderx/store_streams.h"
#include "loaderx/vfs_registry.h"
#include "tests/loader_testing.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

using ::testing::HasSubstr;

// Not a multiple of the batch: every mode meets its remainder rule.
constexpr uint64_t kRecords = 203;
constexpr uint64_t kBatch = 24;

std::string EncodedRecord(uint64_t i, uint64_t elements) {
  std::string bytes(4 * elements, '\0');
  for (uint64_t e = 0; e < elements; ++e) {
    StoreLittle<uint32_t>(&bytes[4 * e], EncodedValue(i, e));
  }
  return bytes;
}

// One step as the ranks (or one process) saw it: indices, then per stream
// every record's shape and bytes, in batch order.
struct StepView {
  std::vector<uint64_t> indices;
  std::vector<std::vector<uint64_t>> shapes;
  std::vector<std::string> records;

  void Append(const Batch& batch) {
    indices.insert(indices.end(), batch.indices().begin(),
                   batch.indices().end());
    for (size_t s = 0; s < batch.num_streams(); ++s) {
      const StreamBatch& stream = batch.stream(s);
      for (size_t r = 0; r < stream.size(); ++r) {
        shapes.emplace_back(stream.shape(r).begin(), stream.shape(r).end());
        records.emplace_back(stream.record(r).begin(), stream.record(r).end());
      }
    }
  }
  friend bool operator==(const StepView&, const StepView&) = default;
};

class DataLoaderElasticTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(vfs_, CreateVfs("memory"));
    ASSERT_OK(vfs_->CreateDirectory("/data"));
    ASSERT_OK_AND_ASSIGN(
        dense_, DenseStore::Create(*vfs_, "/data/dense",
                                   TypeIdentity{DType::Simple("<u4"), {3}}));
    std::string dense_data;
    for (uint64_t i = 0; i < kRecords; ++i) dense_data += EncodedRecord(i, 3);
    ASSERT_OK(dense_->Append(dense_data));
    ASSERT_OK_AND_ASSIGN(ragged_, RaggedStore::Create(*vfs_, "/data/ragged",
                                                      DType::Simple("<u4")));
    std::vector<std::string> payloads;
    for (uint64_t i = 0; i < kRecords; ++i) {
      payloads.push_back(EncodedRecord(i, 2 * (1 + i % 5)));
    }
    std::vector<RaggedRecord> records;
    for (uint64_t i = 0; i < kRecords; ++i) {
      records.push_back(RaggedRecord{payloads[i], RaggedShapeFor(i)});
    }
    ASSERT_OK(ragged_->Append(records));
  }

  // A loader of rank `rank` in `world` over the dense or the ragged store.
  std::unique_ptr<DataLoader> Loader(bool ragged, SamplerMode mode,
                                     uint64_t rank, uint64_t world,
                                     uint64_t batch = kBatch) const {
    absl::StatusOr<std::unique_ptr<LoaderStream>> stream =
        ragged ? RaggedStoreStream(*ragged_) : DenseStoreStream(*dense_);
    EXPECT_OK(stream);
    DataLoaderOptions options;
    options.batch_size = batch;
    options.mode = mode;
    options.seed = 5;
    options.rank = rank;
    options.world_size = world;
    absl::StatusOr<std::unique_ptr<DataLoader>> loader = DataLoader::Create(
        {{"records", std::shared_ptr<const LoaderStream>(*std::move(stream))}},
        options);
    EXPECT_OK(loader);
    return loader.ok() ? *std::move(loader) : nullptr;
  }

  // `world` ranks, each restored from `saved` (nullptr: from the start),
  // run `steps` steps; returns the steps and the state every rank would
  // save at the end (they must agree).
  std::vector<StepView> RunRanks(bool ragged, SamplerMode mode, uint64_t world,
                                 const LoaderState* saved, uint64_t steps,
                                 LoaderState& end) const {
    std::vector<StepView> views(steps);
    for (uint64_t rank = 0; rank < world; ++rank) {
      std::unique_ptr<DataLoader> loader = Loader(ragged, mode, rank, world);
      if (loader == nullptr) return {};
      if (saved != nullptr) EXPECT_OK(loader->Restore(*saved));
      for (uint64_t s = 0; s < steps; ++s) {
        absl::StatusOr<std::shared_ptr<Batch>> batch = loader->Next();
        EXPECT_OK(batch);
        if (!batch.ok()) return {};
        EXPECT_LE((*batch)->size(), kBatch / world);
        views[s].Append(**batch);
      }
      if (rank == 0) {
        end = loader->state();
      } else {
        EXPECT_EQ(loader->state(), end) << "rank " << rank;
      }
    }
    return views;
  }

  std::unique_ptr<Vfs> vfs_;
  std::unique_ptr<DenseStore> dense_;
  std::unique_ptr<RaggedStore> ragged_;
};

TEST_F(DataLoaderElasticTest, WorldsFourTwoEightConcatenateToTheSingleRun) {
  constexpr uint64_t kFirst = 5, kSecond = 7, kThird = 6;
  for (bool ragged : {false, true}) {
    for (SamplerMode mode : {SamplerMode::kSequential, SamplerMode::kIid,
                             SamplerMode::kCyclic, SamplerMode::kIidKeyed}) {
      SCOPED_TRACE(testing::Message() << (ragged ? "ragged" : "dense")
                                      << " mode " << static_cast<int>(mode));
      LoaderState unused;
      const std::vector<StepView> single =
          RunRanks(ragged, mode, 1, nullptr, kFirst + kSecond + kThird, unused);
      ASSERT_EQ(single.size(), kFirst + kSecond + kThird);

      LoaderState after_four, after_two, after_eight;
      std::vector<StepView> elastic =
          RunRanks(ragged, mode, 4, nullptr, kFirst, after_four);
      EXPECT_EQ(after_four.step, kFirst);
      for (StepView& view :
           RunRanks(ragged, mode, 2, &after_four, kSecond, after_two)) {
        elastic.push_back(std::move(view));
      }
      EXPECT_EQ(after_two.step, kFirst + kSecond);
      for (StepView& view :
           RunRanks(ragged, mode, 8, &after_two, kThird, after_eight)) {
        elastic.push_back(std::move(view));
      }
      ASSERT_EQ(elastic.size(), single.size());
      for (size_t s = 0; s < single.size(); ++s) {
        EXPECT_EQ(elastic[s], single[s]) << "step " << s;
        EXPECT_EQ(single[s].indices.size(), kBatch) << "step " << s;
      }
    }
  }
}

TEST_F(DataLoaderElasticTest, StateIsSixNumbersWithTheGlobalBatch) {
  std::unique_ptr<DataLoader> loader =
      Loader(false, SamplerMode::kCyclic, 1, 4);
  ASSERT_NE(loader, nullptr);
  ASSERT_OK(loader->Next());
  ASSERT_OK(loader->Next());
  const LoaderState state = loader->state();
  EXPECT_EQ(state.step, 2u);
  EXPECT_EQ(state.seed, 5u);
  EXPECT_EQ(state.mode, SamplerMode::kCyclic);
  EXPECT_EQ(state.batch_size, kBatch);
  EXPECT_EQ(state.length, kRecords);
  EXPECT_EQ(state.fingerprint, loader->fingerprint());
  // Another open of the same data has the same fingerprint.
  EXPECT_EQ(Loader(false, SamplerMode::kCyclic, 0, 1)->fingerprint(),
            state.fingerprint);
}

TEST_F(DataLoaderElasticTest, AWorldThatDoesNotDivideTheBatchIsRefused) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<LoaderStream> stream,
                       DenseStoreStream(*dense_));
  DataLoaderOptions options;
  options.batch_size = kBatch;
  options.world_size = 5;
  absl::StatusOr<std::unique_ptr<DataLoader>> loader = DataLoader::Create(
      {{"records", std::shared_ptr<const LoaderStream>(std::move(stream))}},
      options);
  EXPECT_STATUS_CODE(loader, absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(loader.status().message(),
              HasSubstr("world size (5) must divide the global batch size"));
}

TEST_F(DataLoaderElasticTest, AForeignStateIsRefusedAndChangesNothing) {
  std::unique_ptr<DataLoader> dense = Loader(false, SamplerMode::kCyclic, 0, 2);
  std::unique_ptr<DataLoader> ragged = Loader(true, SamplerMode::kCyclic, 0, 2);
  ASSERT_NE(dense, nullptr);
  ASSERT_NE(ragged, nullptr);
  ASSERT_OK(ragged->Next());
  LoaderState foreign = ragged->state();
  absl::Status status = dense->Restore(foreign);
  EXPECT_STATUS_CODE(status, absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("dataset fingerprint"));
  EXPECT_EQ(dense->step(), 0u);

  LoaderState other_batch = dense->state();
  other_batch.batch_size = 48;
  other_batch.step = 3;
  status = dense->Restore(other_batch);
  EXPECT_STATUS_CODE(status, absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("global batch size is 48"));
  EXPECT_EQ(dense->step(), 0u);

  // The same store, appended to after the state was saved.
  const LoaderState before = dense->state();
  ASSERT_OK(dense_->Append(EncodedRecord(kRecords, 3)));
  std::unique_ptr<DataLoader> grown = Loader(false, SamplerMode::kCyclic, 0, 2);
  ASSERT_NE(grown, nullptr);
  status = grown->Restore(before);
  EXPECT_STATUS_CODE(status, absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("changed since it was saved"));
}

}  // namespace
}  // namespace loaderx
