#include "src/metadata_file.h"

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "loaderx/vfs_registry.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

TEST(MetadataFileTest, ReadsAFileUpToItsBound) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Vfs> vfs, CreateVfs("memory"));
  ASSERT_OK(WriteStringToFile(*vfs, "/f", "0123456789"));
  ASSERT_OK_AND_ASSIGN(std::string whole, ReadMetadataFile(*vfs, "/f", 10));
  EXPECT_EQ(whole, "0123456789");
  ASSERT_OK_AND_ASSIGN(std::string empty_file_bound,
                       ReadMetadataFile(*vfs, "/f", 1000));
  EXPECT_EQ(empty_file_bound, "0123456789");
}

TEST(MetadataFileTest, AFileOverItsBoundIsDataLossNamingFileAndLimit) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Vfs> vfs, CreateVfs("memory"));
  ASSERT_OK(WriteStringToFile(*vfs, "/dir.zr", "0123456789"));
  const absl::Status status = ReadMetadataFile(*vfs, "/dir.zr", 9).status();
  EXPECT_TRUE(absl::IsDataLoss(status)) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "/dir.zr has 10 bytes"))
      << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "at most 9 bytes")) << status;
}

TEST(MetadataFileTest, AMissingFileIsNotFound) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Vfs> vfs, CreateVfs("memory"));
  EXPECT_STATUS_CODE(ReadMetadataFile(*vfs, "/none", 9),
                     absl::StatusCode::kNotFound);
}

TEST(MetadataFileTest, TheBoundsHoldWhatTheirWritersWrite) {
  // A journal step of the most entries a step may move fits its bound.
  EXPECT_LE(kJournalFixedBytes + kJournalEntryBytes * kMaxJournalEntries,
            kMaxJournalBytes);
  EXPECT_GT(kJournalFixedBytes + kJournalEntryBytes * (kMaxJournalEntries + 1),
            kMaxJournalBytes);
  EXPECT_EQ(kMaxTypedHeaderBytes, 32 + kMaxIdentityBytes);
}

}  // namespace
}  // namespace loaderx
