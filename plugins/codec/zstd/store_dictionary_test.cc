#include "loaderx/store_dictionary.h"

#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/error_code.h"
#include "loaderx/typed_store.h"
#include "loaderx/vfs_registry.h"
#include "loaderx/zstd_dictionary.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

using ::testing::ElementsAre;

TEST(StoreDictionaryTest, TiersAreTheReferences) {
  ASSERT_OK_AND_ASSIGN(DictionaryTier fast, FindDictionaryTier("fast"));
  EXPECT_EQ(fast.capacity, 32u << 10);
  EXPECT_EQ(fast.sample_budget, 4u << 20);
  ASSERT_OK_AND_ASSIGN(DictionaryTier fallback, FindDictionaryTier(""));
  EXPECT_EQ(fallback.name, "balanced");
  EXPECT_EQ(fallback.capacity, 128u << 10);
  ASSERT_OK_AND_ASSIGN(DictionaryTier max, FindDictionaryTier("max"));
  EXPECT_EQ(max.sample_budget, 64u << 20);
  absl::StatusOr<DictionaryTier> unknown = FindDictionaryTier("small");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("fast, balanced, max"),
            std::string::npos);
}

// The expected values are numpy's
// `unique(linspace(0, n - 1, k).astype(int64))`.
TEST(StoreDictionaryTest, StridedIndicesAreNumpysLinspace) {
  // budget / item_bytes gives k.
  EXPECT_THAT(StridedSampleIndices(10, 1, 3), ElementsAre(0, 4, 9));
  EXPECT_THAT(StridedSampleIndices(1000, 10, 70),
              ElementsAre(0, 166, 333, 499, 666, 832, 999));
  EXPECT_THAT(StridedSampleIndices(7, 2, 12), ElementsAre(0, 1, 2, 3, 4, 6));
  // k capped at the count, and at least 1.
  EXPECT_THAT(StridedSampleIndices(5, 1, 1000), ElementsAre(0, 1, 2, 3, 4));
  EXPECT_THAT(StridedSampleIndices(100, 1000, 10), ElementsAre(0));
  EXPECT_THAT(StridedSampleIndices(100, 0, 0), ElementsAre(0));
  EXPECT_TRUE(StridedSampleIndices(0, 1, 10).empty());

  const std::vector<uint64_t> large = StridedSampleIndices(1000003, 1, 4097);
  ASSERT_EQ(large.size(), 4097u);
  EXPECT_THAT(std::vector<uint64_t>(large.begin(), large.begin() + 5),
              ElementsAre(0, 244, 488, 732, 976));
  EXPECT_THAT(std::vector<uint64_t>(large.end() - 3, large.end()),
              ElementsAre(999513, 999757, 1000002));
  EXPECT_EQ(std::accumulate(large.begin(), large.end(), uint64_t{0}),
            uint64_t{2048502050});
}

std::string Record(int i, size_t pad) {
  return absl::StrCat("{\"id\": ", i * 7919 % 1000, ", \"label\": \"class_",
                      i % 13, "\"}", std::string(pad, 'a' + i % 3));
}

TEST(StoreDictionaryTest, TrainsOnTheStridedRecordsOfARaggedStore) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Vfs> vfs, CreateVfs("memory"));
  StoreOptions options;
  options.codec = "raw";
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<TypedStore> store,
      TypedStore::Create(*vfs, "dict/ragged", "ragged",
                         TypeIdentity{DType::Simple("|u1"), {}}, options));
  std::vector<std::string> payloads;
  for (int i = 0; i < 3000; ++i) payloads.push_back(Record(i, 10 + i % 40));
  std::vector<ShapedRecord> records;
  for (const std::string& payload : payloads) {
    records.push_back({payload, {payload.size()}});
  }
  ASSERT_OK(store->Append(records).status());

  ASSERT_OK_AND_ASSIGN(DictionaryTier fast, FindDictionaryTier("fast"));
  ASSERT_OK_AND_ASSIGN(std::string trained,
                       TrainDictionaryOnStore(*store, fast));

  // The same samples by hand: the mean of the first 32 payloads sizes them.
  uint64_t total = 0;
  for (int i = 0; i < 32; ++i) total += payloads[i].size();
  std::vector<absl::string_view> samples;
  for (uint64_t index :
       StridedSampleIndices(payloads.size(), total / 32, fast.sample_budget)) {
    samples.push_back(payloads[index]);
  }
  ASSERT_OK_AND_ASSIGN(std::string expected,
                       TrainZstdDictionary(samples, fast.capacity));
  EXPECT_EQ(trained, expected);
}

TEST(StoreDictionaryTest, AnEmptyStoreIsRefused) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Vfs> vfs, CreateVfs("memory"));
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<TypedStore> store,
      TypedStore::Create(*vfs, "dict/empty", "dense",
                         TypeIdentity{DType::Simple("<f4"), {4}}));
  absl::StatusOr<std::string> trained =
      TrainDictionaryOnStore(*store, *FindDictionaryTier(""));
  EXPECT_EQ(trained.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace loaderx
