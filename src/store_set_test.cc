// StoreSet over real stores on the in-memory VFS: a set of dense members
// (some empty) and one of ragged members read exactly as the concatenated
// stores, by random gathers and through a loader; stats and verify summed
// over members; a member changed after the set was written, a member of
// another type, an existing manifest and an out-of-range index refused
// with errors naming what is wrong.

#include "loaderx/store_set.h"

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/data_loader.h"
#include "loaderx/dense_store.h"
#include "loaderx/ragged_store.h"
#include "loaderx/spi/little_endian.h"
#include "loaderx/store_streams.h"
#include "loaderx/vfs_registry.h"
#include "src/store_set_format.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

using ::testing::HasSubstr;

// Dense members' record counts: empty members at the ends and inside.
constexpr uint64_t kDenseCounts[] = {0, 7, 1, 0, 30, 12, 0};

std::string Record(uint64_t value) {
  std::string bytes(8, '\0');
  StoreLittle<uint64_t>(bytes.data(), value);
  return bytes;
}

class StoreSetTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(vfs_, CreateVfs("memory"));
    ASSERT_OK(vfs_->CreateDirectory("/data"));
    uint64_t next = 0;
    for (size_t m = 0; m < std::size(kDenseCounts); ++m) {
      const std::string path = "/data/dense" + std::to_string(m);
      ASSERT_OK_AND_ASSIGN(
          std::unique_ptr<DenseStore> store,
          DenseStore::Create(*vfs_, path,
                             TypeIdentity{DType::Simple("<u8"), {}}));
      std::string data;
      for (uint64_t i = 0; i < kDenseCounts[m]; ++i) data += Record(next++);
      if (!data.empty()) ASSERT_OK(store->Append(data));
      dense_paths_.push_back(path);
    }
    dense_total_ = next;
    for (size_t m = 0; m < 3; ++m) {
      const std::string path = "/data/ragged" + std::to_string(m);
      ASSERT_OK_AND_ASSIGN(
          std::unique_ptr<RaggedStore> store,
          RaggedStore::Create(*vfs_, path, DType::Simple("<u8")));
      std::vector<std::string> payloads;
      std::vector<RaggedRecord> records;
      for (uint64_t i = 0; i < 5 + 4 * m; ++i) {
        const uint64_t id = ragged_ids_.size();
        ragged_ids_.push_back(id);
        std::string payload;
        for (uint64_t k = 0; k <= id % 4; ++k) payload += Record(id);
        payloads.push_back(payload);
      }
      for (size_t i = 0; i < payloads.size(); ++i) {
        records.push_back(RaggedRecord{payloads[i], {payloads[i].size() / 8}});
      }
      ASSERT_OK(store->Append(records));
      ragged_paths_.push_back(path);
    }
  }

  std::unique_ptr<Vfs> vfs_;
  std::vector<std::string> dense_paths_;
  std::vector<std::string> ragged_paths_;
  uint64_t dense_total_ = 0;
  std::vector<uint64_t> ragged_ids_;
};

TEST_F(StoreSetTest, DenseSetReadsAsTheConcatenatedStores) {
  ASSERT_OK(StoreSet::Create(*vfs_, "/data/dense.lxset", dense_paths_));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<StoreSet> set,
                       StoreSet::Open(*vfs_, "/data/dense.lxset"));
  EXPECT_EQ(set->size(), dense_total_);
  EXPECT_EQ(set->num_members(), std::size(kDenseCounts));
  EXPECT_EQ(set->member_path(1), "/data/dense1");
  EXPECT_TRUE(set->member(1).read_only());
  std::mt19937_64 random(3);
  for (int round = 0; round < 50; ++round) {
    std::vector<uint64_t> indices(1 + random() % 64);
    for (uint64_t& index : indices) index = random() % dense_total_;
    std::string out(8 * indices.size(), '\0');
    ASSERT_OK(set->GatherFixed(indices, absl::MakeSpan(out)));
    for (size_t i = 0; i < indices.size(); ++i) {
      ASSERT_EQ(LoadLittle<uint64_t>(out.data() + 8 * i), indices[i]);
    }
  }
  ASSERT_OK_AND_ASSIGN(StoreStats stats, set->Stats());
  EXPECT_EQ(stats.records, dense_total_);
  ASSERT_OK_AND_ASSIGN(VerifyReport report, set->Verify());
  EXPECT_EQ(report.records, dense_total_);
  EXPECT_TRUE(report.ok());
  std::string out(8, '\0');
  absl::Status past = set->GatherFixed({dense_total_}, absl::MakeSpan(out));
  EXPECT_STATUS_CODE(past, absl::StatusCode::kOutOfRange);
  EXPECT_THAT(past.message(), HasSubstr("index 50"));
}

TEST_F(StoreSetTest, LargeBatchesReadTheMembersInParallel) {
  // 64 KiB records in 4 members: a batch of 32 is 2 MiB, over the
  // threshold from which members are gathered on the pool.
  constexpr uint64_t kWidth = 64 << 10;
  std::vector<std::string> paths;
  for (uint64_t m = 0; m < 4; ++m) {
    const std::string path = "/data/wide" + std::to_string(m);
    ASSERT_OK_AND_ASSIGN(
        std::unique_ptr<DenseStore> store,
        DenseStore::Create(*vfs_, path,
                           TypeIdentity{DType::Simple("|u1"), {kWidth}}));
    std::string data;
    for (uint64_t i = 0; i < 8; ++i)
      data += std::string(kWidth, 'a' + 8 * m + i);
    ASSERT_OK(store->Append(data));
    paths.push_back(path);
  }
  ASSERT_OK(StoreSet::Create(*vfs_, "/data/wide.lxset", paths));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<StoreSet> set,
                       StoreSet::Open(*vfs_, "/data/wide.lxset"));
  std::vector<uint64_t> indices;
  for (uint64_t i = 0; i < 32; ++i) indices.push_back((i * 13) % 32);
  std::string out(32 * kWidth, '\0');
  ASSERT_OK(set->GatherFixed(indices, absl::MakeSpan(out)));
  for (size_t i = 0; i < indices.size(); ++i) {
    ASSERT_EQ(out.substr(i * kWidth, kWidth),
              std::string(kWidth, static_cast<char>('a' + indices[i])))
        << "position " << i;
  }
}

TEST_F(StoreSetTest, RaggedSetReadsThroughALoader) {
  ASSERT_OK(StoreSet::Create(*vfs_, "/data/ragged.lxset", ragged_paths_));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<StoreSet> opened,
                       StoreSet::Open(*vfs_, "/data/ragged.lxset"));
  std::shared_ptr<const StoreSet> set = std::move(opened);
  ASSERT_EQ(set->size(), ragged_ids_.size());
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<LoaderStream> stream,
                       StoreSetStream(set));
  EXPECT_EQ(stream->type().kind, StreamKind::kRagged);
  DataLoaderOptions options;
  options.batch_size = 6;
  options.mode = SamplerMode::kIid;
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<DataLoader> loader,
      DataLoader::Create(
          {{"tokens", std::shared_ptr<const LoaderStream>(std::move(stream))}},
          options));
  for (int step = 0; step < 40; ++step) {
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<Batch> batch, loader->Next());
    const StreamBatch& tokens = batch->stream(0);
    for (size_t r = 0; r < batch->size(); ++r) {
      const uint64_t id = batch->indices()[r];
      ASSERT_EQ(tokens.shape(r)[0], id % 4 + 1);
      for (uint64_t k = 0; k <= id % 4; ++k) {
        ASSERT_EQ(LoadLittle<uint64_t>(tokens.record(r).data() + 8 * k), id);
      }
    }
  }
}

TEST_F(StoreSetTest, AMemberChangedAfterTheSetWasWrittenIsNamed) {
  ASSERT_OK(StoreSet::Create(*vfs_, "/data/dense.lxset", dense_paths_));
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<DenseStore> store,
                         DenseStore::Open(*vfs_, "/data/dense4"));
    ASSERT_OK(store->Append(Record(999)));
  }
  absl::StatusOr<std::unique_ptr<StoreSet>> set =
      StoreSet::Open(*vfs_, "/data/dense.lxset");
  EXPECT_STATUS_CODE(set, absl::StatusCode::kDataLoss);
  EXPECT_THAT(set.status().message(),
              HasSubstr("member 4 (/data/dense4): changed after the set"));
  // Deleting one record and appending another keeps the count only.
  ASSERT_OK(vfs_->Remove("/data/dense.lxset"));
  ASSERT_OK(StoreSet::Create(*vfs_, "/data/dense.lxset", dense_paths_));
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<DenseStore> store,
                         DenseStore::Open(*vfs_, "/data/dense5"));
    ASSERT_OK(store->Delete({3}));
    ASSERT_OK(store->Append(Record(12345)));
  }
  set = StoreSet::Open(*vfs_, "/data/dense.lxset");
  EXPECT_STATUS_CODE(set, absl::StatusCode::kDataLoss);
  EXPECT_THAT(set.status().message(), HasSubstr("member 5 (/data/dense5)"));
}

TEST_F(StoreSetTest, BadCreationsAreRefusedAndWriteNothing) {
  std::vector<std::string> mixed = {dense_paths_[1], ragged_paths_[0]};
  absl::Status status = StoreSet::Create(*vfs_, "/data/mixed.lxset", mixed);
  EXPECT_STATUS_CODE(status, absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("member 1 (/data/ragged0)"));
  EXPECT_FALSE(vfs_->Exists("/data/mixed.lxset").value());
  EXPECT_STATUS_CODE(StoreSet::Create(*vfs_, "/data/none.lxset", {}),
                     absl::StatusCode::kInvalidArgument);
  status = StoreSet::Create(*vfs_, "/data/missing.lxset", {"/data/nothing"});
  EXPECT_THAT(status.message(), HasSubstr("member 0 (/data/nothing)"));
  ASSERT_OK(StoreSet::Create(*vfs_, "/data/dense.lxset", dense_paths_));
  EXPECT_STATUS_CODE(StoreSet::Create(*vfs_, "/data/dense.lxset", dense_paths_),
                     absl::StatusCode::kAlreadyExists);
  EXPECT_STATUS_CODE(
      StoreSet::Create(*vfs_, "/data/rel.lxset", {"data/dense1"}),
      absl::StatusCode::kInvalidArgument);
}

TEST_F(StoreSetTest, MemberPathsAreRelativeToTheManifest) {
  ASSERT_OK(vfs_->CreateDirectory("/data/sets"));
  ASSERT_OK(StoreSet::Create(*vfs_, "/data/sets/s.lxset",
                             {dense_paths_[1], dense_paths_[4]}));
  ASSERT_OK_AND_ASSIGN(std::string bytes,
                       ReadFileToString(*vfs_, "/data/sets/s.lxset"));
  ASSERT_OK_AND_ASSIGN(store_set_format::Manifest manifest,
                       store_set_format::DecodeManifest(bytes, "s"));
  EXPECT_EQ(manifest.members[0].path, "../dense1");
  EXPECT_EQ(manifest.members[1].path, "../dense4");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<StoreSet> set,
                       StoreSet::Open(*vfs_, "/data/sets/s.lxset"));
  EXPECT_EQ(set->size(), 37u);
  EXPECT_EQ(set->member_start(1), 7u);
}

}  // namespace
}  // namespace loaderx
