// The record-table checks and scans: every kind of bad entry is refused
// with DataLoss naming the record, and scans read the same entries through
// a mapping as through blocks of reads.

#include "src/record_table.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/codec_registry.h"
#include "loaderx/vfs_registry.h"
#include "tests/status_testing.h"
#include "vfs/fault/fault_vfs.h"

namespace loaderx {
namespace {

using store_format::RecordLoc;
using ::testing::HasSubstr;

TableBounds Bounds(const Codec& codec) {
  TableBounds bounds;
  bounds.directory = "/s";
  bounds.tail_chunk = 1;
  bounds.tail_offset = 500;
  bounds.chunk_sizes = {1000, 600};
  bounds.codec = &codec;
  return bounds;
}

void ExpectRefused(const RecordLoc& loc, const TableBounds& bounds,
                   absl::string_view why) {
  absl::Status status = CheckRecordLoc(7, loc, bounds);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  EXPECT_THAT(status.message(), HasSubstr("/s: "));
  EXPECT_THAT(status.message(), HasSubstr("entry 7 ("));
  EXPECT_THAT(status.message(), HasSubstr(why));
}

TEST(RecordTableTest, RawEntriesMustFitTheirChunkAndTheFrontier) {
  ASSERT_OK_AND_ASSIGN(auto raw, CreateCodec("raw", {}));
  const TableBounds bounds = Bounds(*raw);
  EXPECT_OK(CheckRecordLoc(7, {990, 10, 10, 0}, bounds));
  EXPECT_OK(CheckRecordLoc(7, {0, 500, 500, 1}, bounds));
  ExpectRefused({0, 0, 0, 0}, bounds, "stores no bytes");
  ExpectRefused({995, 10, 10, 0}, bounds, "end of its chunk file");
  ExpectRefused({0, 10, 10, 2}, bounds, "missing chunk");
  ExpectRefused({495, 10, 10, 1}, bounds, "committed frontier");
  ExpectRefused({0, 10, 11, 0}, bounds, "decodes to more");
  ExpectRefused({4294967290u, 10, 10, 0}, bounds, "range");
}

TEST(RecordTableTest, CompressedEntriesCannotClaimMoreThanAFrameHolds) {
  ASSERT_OK_AND_ASSIGN(auto zstd, CreateCodec("zstd", {}));
  const TableBounds bounds = Bounds(*zstd);
  EXPECT_OK(CheckRecordLoc(7, {0, 100, 100000, 0}, bounds));
  ExpectRefused({0, 5, 1, 0}, bounds, "decodes to more");
  ExpectRefused({0, 100, 1u << 30, 0}, bounds, "decodes to more");
  ExpectRefused({0, 100, (1u << 31) + 1, 0}, bounds, "impossible size");
}

class ScanTest : public testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(memory_, CreateVfs("memory"));
    vfs_ = std::make_unique<FaultVfs>(memory_.get());
    vfs_->set_mapping(GetParam());
  }
  std::unique_ptr<Vfs> memory_;
  std::unique_ptr<FaultVfs> vfs_;
};

INSTANTIATE_TEST_SUITE_P(MappedOrRead, ScanTest, testing::Bool());

TEST_P(ScanTest, VisitsEveryEntryWithoutASystemCallEach) {
  const uint64_t n = 200000;  // More than one 1 MiB block.
  std::string bytes(n * 16, '\0');
  for (uint64_t i = 0; i < n; ++i) {
    store_format::EncodeRecordLoc(
        {static_cast<uint32_t>(i), 1, 1, static_cast<uint32_t>(i % 3)},
        &bytes[i * 16]);
  }
  ASSERT_OK(WriteStringToFile(*vfs_, "/0.loc", bytes));
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open("/0.loc", OpenMode::kReadOnly));
  const int64_t reads = vfs_->CallCount(VfsOp::kReadAt);
  uint64_t seen = 0;
  ASSERT_OK(ScanSegment(*file, 5, n - 5, [&](uint64_t i, const RecordLoc& loc) {
    EXPECT_EQ(loc.offset, i);
    EXPECT_EQ(loc.chunk_id, i % 3);
    ++seen;
    return absl::OkStatus();
  }));
  EXPECT_EQ(seen, n - 5);
  EXPECT_LE(vfs_->CallCount(VfsOp::kReadAt) - reads, 4);
  // A visitor's error stops the scan.
  EXPECT_STATUS_CODE(ScanSegment(*file, 0, n,
                                 [](uint64_t i, const RecordLoc&) {
                                   return i == 3 ? absl::DataLossError("x")
                                                 : absl::OkStatus();
                                 }),
                     absl::StatusCode::kDataLoss);
  // A table shorter than the header says is DataLoss naming the file.
  absl::Status short_table =
      ScanSegment(*file, 0, n + 1,
                  [](uint64_t, const RecordLoc&) { return absl::OkStatus(); });
  EXPECT_EQ(short_table.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(short_table.message(), HasSubstr("/0.loc is too short"));
}

}  // namespace
}  // namespace loaderx
