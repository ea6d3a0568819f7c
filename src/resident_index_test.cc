// The resident index: which records get an entry, and how `StoreMappings`
// grows it with the mapped files, keeps what earlier views read, and drops
// it. The gathers through it are tested against the files' path in
// tests/integrity_test.cc and tests/gather_path_differential_test.cc.

#include "src/resident_index.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "src/checksum.h"
#include "src/integrity_format.h"
#include "src/store_format.h"
#include "src/store_mappings.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

using store_format::RecordLoc;

constexpr uint64_t kWidth = 64;

// The stored bytes of record `index` (they are not read: only their hash).
std::string BytesOf(uint64_t index) {
  return std::string(kWidth, static_cast<char>('a' + index % 26));
}

RecordLoc LocOf(uint64_t index) {
  return RecordLoc{static_cast<uint32_t>(index * kWidth), kWidth, kWidth,
                   static_cast<uint32_t>(index % 3)};
}

// A table segment and a checksums.lx holding the entries of `count`
// records, each as an append writes it.
struct Files {
  explicit Files(uint64_t count) { Grow(count); }

  void Grow(uint64_t count) {
    const uint64_t first = segment.size() / store_format::kRecordLocBytes;
    segment.resize(count * store_format::kRecordLocBytes);
    checksums.resize(integrity_format::EntryOffset(count));
    for (uint64_t index = first; index < count; ++index) {
      const RecordLoc loc = LocOf(index);
      store_format::EncodeRecordLoc(
          loc, segment.data() + store_format::OffsetInSegment(index));
      integrity_format::EncodeEntry(
          integrity_format::EntryFor(BytesOf(index), loc, /*epoch=*/1),
          checksums.data() + integrity_format::EntryOffset(index));
    }
  }

  std::string segment;
  std::string checksums;
};

std::vector<ResidentEntry> Make(const Files& files, uint64_t first,
                                uint64_t end, uint64_t width = kWidth) {
  std::vector<ResidentEntry> entries(end - first);
  MakeResidentEntries(files.segment, files.checksums, first, end, width,
                      entries.data());
  return entries;
}

TEST(ResidentIndexTest, AnEntryHoldsTheRecordsLocationAndChecksum) {
  const Files files(5);
  const std::vector<ResidentEntry> entries = Make(files, 1, 5);
  for (uint64_t index = 1; index < 5; ++index) {
    const ResidentEntry& entry = entries[index - 1];
    EXPECT_EQ(entry.offset, LocOf(index).offset);
    EXPECT_EQ(entry.chunk_id, LocOf(index).chunk_id);
    EXPECT_EQ(entry.checksum, Checksum(BytesOf(index)));
  }
}

TEST(ResidentIndexTest, RecordsTheIndexCannotVouchForGetNoEntry) {
  Files files(4);
  // Record 0: of another width than the index's.
  RecordLoc wide = LocOf(0);
  wide.phys_length = wide.logic_length = 2 * kWidth;
  store_format::EncodeRecordLoc(wide, files.segment.data());
  integrity_format::EncodeEntry(
      integrity_format::EntryFor(BytesOf(0), wide, 1),
      files.checksums.data() + integrity_format::EntryOffset(0));
  // Record 1: no checksum (appended by a program that keeps none).
  integrity_format::EncodeEntry(
      integrity_format::ChecksumEntry{},
      files.checksums.data() + integrity_format::EntryOffset(1));
  // Record 2: its table entry is not the one its checksum was made with.
  files.segment[store_format::OffsetInSegment(2)] ^= 1;
  const std::vector<ResidentEntry> entries = Make(files, 0, 4);
  EXPECT_EQ(entries[0].chunk_id, kNotResident);
  EXPECT_EQ(entries[1].chunk_id, kNotResident);
  EXPECT_EQ(entries[2].chunk_id, kNotResident);
  EXPECT_EQ(entries[3].chunk_id, LocOf(3).chunk_id);
  // Made for 128-byte records, record 0 is the one that qualifies.
  EXPECT_EQ(Make(files, 0, 4, 2 * kWidth)[0].chunk_id, wide.chunk_id);
  EXPECT_EQ(Make(files, 0, 4, 2 * kWidth)[3].chunk_id, kNotResident);
}

TEST(ResidentIndexTest, TheCoverableRecordsHaveBothEntries) {
  Files files(10);
  EXPECT_EQ(ResidentCoverable(files.segment, files.checksums), 10u);
  EXPECT_EQ(
      ResidentCoverable(files.segment.substr(0, 16 * 7 + 3), files.checksums),
      7u);
  // Record 3's checksum entry is one byte short.
  const std::string short_checksums =
      files.checksums.substr(0, integrity_format::EntryOffset(4) - 1);
  EXPECT_EQ(ResidentCoverable(files.segment, short_checksums), 3u);
  EXPECT_EQ(ResidentCoverable(files.segment, ""), 0u);
}

// `StoreMappings` over a memory VFS holding `Files`.
class ResideTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(vfs_, CreateVfs("memory"));
    ASSERT_OK(vfs_->CreateDirectory("/s"));
  }

  // Writes `files` and maps them.
  void Publish(const Files& files) {
    ASSERT_OK(Write("/s/0.loc", files.segment));
    ASSERT_OK(Write("/s/checksums.lx", files.checksums));
    ASSERT_OK_AND_ASSIGN(auto segment,
                         vfs_->Open("/s/0.loc", OpenMode::kReadOnly));
    ASSERT_OK_AND_ASSIGN(auto checksums,
                         vfs_->Open("/s/checksums.lx", OpenMode::kReadOnly));
    ASSERT_OK(
        mappings_
            .Extend(MappedFileKind::kSegment, 0, *segment, files.segment.size())
            .status());
    ASSERT_OK(mappings_
                  .Extend(MappedFileKind::kChecksums, 0, *checksums,
                          files.checksums.size())
                  .status());
  }

  absl::Status Write(const std::string& path, const std::string& bytes) {
    LOADERX_ASSIGN_OR_RETURN(auto file, vfs_->Open(path, OpenMode::kCreate));
    return file->WriteAt(0, bytes);
  }

  std::unique_ptr<Vfs> vfs_;
  StoreMappings mappings_;
};

TEST_F(ResideTest, TheIndexFollowsTheMappedFilesAndKeepsWhatViewsRead) {
  Files files(100);
  Publish(files);
  std::shared_ptr<const MappedView> early = mappings_.Reside(kWidth, 40);
  ASSERT_EQ(early->resident_count(), 40u);
  EXPECT_EQ(early->resident_width(), kWidth);
  // Only as far as the mapped entries reach.
  std::shared_ptr<const MappedView> full = mappings_.Reside(kWidth, 1000);
  EXPECT_EQ(full->resident_count(), 100u);
  // The store grows: the index with it, past a block's first capacity.
  files.Grow(5000);
  Publish(files);
  std::shared_ptr<const MappedView> grown = mappings_.Reside(kWidth, 5000);
  ASSERT_EQ(grown->resident_count(), 5000u);
  const std::vector<ResidentEntry> expected = Make(files, 0, 5000);
  for (uint64_t index = 0; index < 5000; ++index) {
    ASSERT_EQ(grown->resident()[index].checksum, expected[index].checksum);
    ASSERT_EQ(grown->resident()[index].offset, expected[index].offset);
    ASSERT_EQ(grown->resident()[index].chunk_id, expected[index].chunk_id);
    if (index < 40) {  // The earlier view still reads its own entries.
      ASSERT_EQ(early->resident()[index].checksum, expected[index].checksum);
    }
  }
  // Another width leaves the index as it is.
  EXPECT_EQ(mappings_.Reside(2 * kWidth, 5000)->resident_width(), kWidth);
}

TEST_F(ResideTest, OneCallMakesAtMostAGathersShareOfTheIndex) {
  const uint64_t count = kResidentRecordsPerGather + 100;
  Files files(count);
  Publish(files);
  EXPECT_EQ(mappings_.Reside(kWidth, count)->resident_count(),
            kResidentRecordsPerGather);
  std::shared_ptr<const MappedView> view = mappings_.Reside(kWidth, count);
  ASSERT_EQ(view->resident_count(), count);
  const ResidentEntry& last = view->resident()[count - 1];
  EXPECT_EQ(last.offset, LocOf(count - 1).offset);
  EXPECT_EQ(last.checksum, Checksum(BytesOf(count - 1)));
}

TEST_F(ResideTest, InvalidatingDropsTheIndexAndItIsMadeAfresh) {
  Files files(50);
  Publish(files);
  ASSERT_EQ(mappings_.Reside(kWidth, 50)->resident_count(), 50u);
  mappings_.Invalidate();
  EXPECT_EQ(mappings_.Current()->resident_count(), 0u);
  // Nothing mapped yet: nothing to make it from.
  EXPECT_EQ(mappings_.Reside(2 * kWidth, 50)->resident_count(), 0u);
  Publish(files);
  std::shared_ptr<const MappedView> remade = mappings_.Reside(2 * kWidth, 50);
  EXPECT_EQ(remade->resident_count(), 50u);
  EXPECT_EQ(remade->resident_width(), 2 * kWidth);
  EXPECT_EQ(remade->resident()[7].chunk_id, kNotResident);  // 64 B records.
}

}  // namespace
}  // namespace loaderx
