// Stores written by the published loaderx 1.7.7 (tests/data/reference_1_7_7,
// see tests/oracle/make_store_fixture.py for how and with which records)
// open and read through the C++ API, values checked. The fixture is copied
// to a scratch directory first: opening a store takes its lock read-write.

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/dense_store.h"
#include "loaderx/ragged_store.h"
#include "loaderx/vfs_registry.h"
#include "tests/status_testing.h"
#include "tests/temp_dir.h"

namespace loaderx {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class ReferenceFixtureTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(vfs_, CreateVfs("posix"));
    root_ = TestTempDir() + "/reference_1_7_7";
    std::filesystem::remove_all(root_);
    std::filesystem::copy("tests/data/reference_1_7_7", root_,
                          std::filesystem::copy_options::recursive);
  }

  std::string Path(const std::string& name) const { return root_ + "/" + name; }

  std::unique_ptr<Vfs> vfs_;
  std::string root_;
};

TEST_F(ReferenceFixtureTest, DenseZstd) {
  ASSERT_OK_AND_ASSIGN(auto store, DenseStore::Open(*vfs_, Path("dense_zstd")));
  EXPECT_EQ(store->identity().dtype, DType::Simple("<f4"));
  EXPECT_THAT(store->identity().item_shape, ElementsAre(2, 3));
  EXPECT_EQ(store->codec(), "zstd");
  ASSERT_EQ(store->size(), 10u);
  std::vector<float> out(10 * 6);
  std::vector<uint64_t> all = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  ASSERT_OK(
      store->Gather(all, absl::MakeSpan(reinterpret_cast<char*>(out.data()),
                                        out.size() * sizeof(float))));
  for (int i = 0; i < 10; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(out[i * 6 + j * 3 + k], i * 10 + j * 3 + k);
      }
    }
  }
  ASSERT_OK_AND_ASSIGN(StoreStats stats, store->Stats());
  EXPECT_EQ(stats.records, 10u);
  EXPECT_EQ(stats.reclaimable, 0u);
}

TEST_F(ReferenceFixtureTest, DenseStructuredRaw) {
  ASSERT_OK_AND_ASSIGN(auto store,
                       DenseStore::Open(*vfs_, Path("dense_struct_raw")));
  const DType& dtype = store->identity().dtype;
  ASSERT_TRUE(dtype.structured);
  ASSERT_EQ(dtype.fields.size(), 2u);
  EXPECT_EQ(dtype.fields[0].name, "id");
  EXPECT_EQ(dtype.fields[0].type, DType::Simple("<i4"));
  EXPECT_EQ(dtype.fields[1].name, "x");
  EXPECT_EQ(dtype.fields[1].type, DType::Simple("<f4"));
  EXPECT_THAT(dtype.fields[1].shape, ElementsAre(2));
  EXPECT_THAT(store->identity().item_shape, IsEmpty());
  ASSERT_EQ(store->record_bytes(), 12u);
  ASSERT_EQ(store->size(), 6u);
  std::string out(6 * 12, '\0');
  ASSERT_OK(store->Gather({0, 1, 2, 3, 4, 5}, absl::MakeSpan(out)));
  for (int i = 0; i < 6; ++i) {
    int32_t id;
    float x[2];
    std::memcpy(&id, &out[i * 12], 4);
    std::memcpy(x, &out[i * 12 + 4], 8);
    EXPECT_EQ(id, 100 + i);
    EXPECT_EQ(x[0], i / 2.0f);
    EXPECT_EQ(x[1], -static_cast<float>(i));
  }
}

TEST_F(ReferenceFixtureTest, RaggedRaw) {
  ASSERT_OK_AND_ASSIGN(auto store,
                       RaggedStore::Open(*vfs_, Path("ragged_raw")));
  EXPECT_EQ(store->dtype(), DType::Simple("|u1"));
  EXPECT_EQ(store->codec(), "raw");
  ASSERT_EQ(store->size(), 5u);
  const std::vector<std::vector<uint64_t>> shapes = {
      {3}, {2, 2}, {}, {5}, {1, 1, 2}};
  std::string buffer;
  ASSERT_OK_AND_ASSIGN(
      RaggedBatch batch, store->Read({0, 1, 2, 3, 4}, [&](uint64_t bytes) {
        buffer.resize(bytes);
        return absl::StatusOr<absl::Span<char>>(absl::MakeSpan(buffer));
      }));
  EXPECT_EQ(batch.shapes.ToVectors(), shapes);
  for (uint64_t record = 0; record < 5; ++record) {
    const uint64_t end =
        record + 1 < 5 ? batch.offsets[record + 1] : batch.total_bytes;
    for (uint64_t n = 0; n < end - batch.offsets[record]; ++n) {
      EXPECT_EQ(static_cast<uint8_t>(buffer[batch.offsets[record] + n]),
                (7 * record + n) % 256)
          << "record " << record << " element " << n;
    }
  }
  ASSERT_OK_AND_ASSIGN(StoreStats stats, store->Stats());
  // Payloads of 3 + 4 + 1 + 5 + 2 bytes and shape records of 16 + 24 + 8 +
  // 16 + 32: the reference's count.
  EXPECT_EQ(stats.live_bytes, 15u + 96u);
}

TEST_F(ReferenceFixtureTest, ItsStoresTakeAppendsAndStayReadable) {
  {
    ASSERT_OK_AND_ASSIGN(auto store,
                         RaggedStore::Open(*vfs_, Path("ragged_raw")));
    std::vector<RaggedRecord> more = {{"xyz", {3}}};
    ASSERT_OK_AND_ASSIGN(uint64_t first, store->Append(more));
    EXPECT_EQ(first, 5u);
    ASSERT_OK(store->Delete({0, 0}));
    ASSERT_OK(store->Compact());
  }
  ASSERT_OK_AND_ASSIGN(auto store,
                       RaggedStore::Open(*vfs_, Path("ragged_raw")));
  ASSERT_OK_AND_ASSIGN(auto shapes, store->Shapes({0}));
  EXPECT_THAT(shapes, ElementsAre(ElementsAre(3)));  // "xyz" moved to 0.
}

}  // namespace
}  // namespace loaderx
