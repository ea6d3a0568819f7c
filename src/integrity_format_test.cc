// The integrity sidecar's and the journal's bytes: round trips, the layout,
// and that a torn or garbled record is never mistaken for an intact one.

#include "src/integrity_format.h"

#include <string>

#include "gtest/gtest.h"
#include "src/checksum.h"
#include "src/journal.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

using namespace integrity_format;  // NOLINT: the module under test.

MetaBytes Meta(char fill) {
  MetaBytes bytes;
  bytes.fill(fill);
  return bytes;
}

TEST(ChecksumTest, StreamingEqualsOneShot) {
  std::string data(100000, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  ChecksumStream stream;
  stream.Update(absl::string_view(data).substr(0, 3));
  stream.Update(absl::string_view(data).substr(3, 70000));
  stream.Update(absl::string_view(data).substr(70003));
  EXPECT_EQ(stream.Digest(), Checksum(data));
  EXPECT_NE(Checksum("a"), Checksum("b"));
  // XXH3-64 of the empty input, the published test vector.
  EXPECT_EQ(Checksum(""), 0x2D06800538D394C2u);
}

TEST(IntegrityFormatTest, SlotRoundTripsAndRejectsAnyDamage) {
  StateSlot slot;
  slot.sequence = 9;
  slot.epoch = 3;
  slot.meta = Meta('m');
  slot.meta_stamp = 12345;
  slot.typed_header_checksum = 77;
  const std::string bytes = EncodeSlot(slot);
  ASSERT_EQ(bytes.size(), kSlotBytes);
  EXPECT_EQ(bytes.substr(0, 4), "LXCS");
  auto decoded = DecodeSlot(bytes);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->sequence, 9u);
  EXPECT_EQ(decoded->epoch, 3u);
  EXPECT_EQ(decoded->meta, Meta('m'));
  EXPECT_EQ(decoded->meta_stamp, 12345u);
  EXPECT_EQ(decoded->typed_header_checksum, 77u);
  EXPECT_FALSE(decoded->dictionary_checksum.has_value());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string flipped = bytes;
    flipped[i] ^= 0x10;
    EXPECT_FALSE(DecodeSlot(flipped).has_value()) << "byte " << i;
  }
  EXPECT_FALSE(DecodeSlot(bytes.substr(0, 100)).has_value());
  EXPECT_FALSE(DecodeSlot(std::string(kSlotBytes, '\0')).has_value());
}

TEST(IntegrityFormatTest, SealRoundTripsAndRejectsDamage) {
  CommitSeal seal{true, Meta('n'), Meta('p'), 99};
  const std::string bytes = EncodeSeal(seal);
  ASSERT_EQ(bytes.size(), kSealBytes);
  auto decoded = DecodeSeal(bytes);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_TRUE(decoded->pending);
  EXPECT_EQ(decoded->meta, Meta('n'));
  EXPECT_EQ(decoded->previous, Meta('p'));
  EXPECT_EQ(decoded->meta_stamp, 99u);
  std::string torn = bytes;
  torn[50] ^= 1;
  EXPECT_FALSE(DecodeSeal(torn).has_value());
}

TEST(IntegrityFormatTest, EntriesBindToTheirTableEntry) {
  const store_format::RecordLoc loc{64, 10, 20, 1};
  const ChecksumEntry entry = EntryFor("0123456789", loc, 4);
  EXPECT_EQ(entry.checksum, Checksum("0123456789"));
  EXPECT_EQ(entry.binding, BindingOf(loc));
  EXPECT_NE(BindingOf(loc), BindingOf({65, 10, 20, 1}));
  char bytes[kEntryBytes];
  EncodeEntry(entry, bytes);
  EXPECT_EQ(DecodeEntry(bytes), entry);
  EXPECT_TRUE(ChecksumEntry{}.empty());
  EXPECT_EQ(EntryOffset(2), kEntriesOffset + 2 * kEntryBytes);
}

TEST(JournalFormatTest, RoundTripsAndATornRecordIsNoRecord) {
  JournalRecord record;
  record.op = JournalOp::kCompactionStep;
  record.header.codec = 1;
  record.header.tail_chunk = 2;
  record.header.tail_offset = 300;
  record.header.length = 4;
  record.entries.push_back({3, {10, 5, 9, 2}, {1, 2, 3}});
  record.entries.push_back({1, {0, 5, 9, 0}, {}});
  const std::string bytes = EncodeJournal(record);
  EXPECT_EQ(bytes.size(), 48 + 2 * 48 + 8u);
  ASSERT_OK_AND_ASSIGN(auto decoded, DecodeJournal(bytes, "journal.lx"));
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->op, JournalOp::kCompactionStep);
  EXPECT_EQ(decoded->header, record.header);
  ASSERT_EQ(decoded->entries.size(), 2u);
  EXPECT_EQ(decoded->entries[0].index, 3u);
  EXPECT_EQ(decoded->entries[0].loc, (store_format::RecordLoc{10, 5, 9, 2}));
  EXPECT_EQ(decoded->entries[0].checksum, (ChecksumEntry{1, 2, 3}));
  // Trailing bytes (an older, longer record not yet truncated) are ignored.
  ASSERT_OK_AND_ASSIGN(auto longer,
                       DecodeJournal(bytes + "leftover", "journal.lx"));
  EXPECT_TRUE(longer.has_value());
  for (size_t cut : {size_t{0}, size_t{10}, bytes.size() - 1}) {
    ASSERT_OK_AND_ASSIGN(auto torn,
                         DecodeJournal(bytes.substr(0, cut), "journal.lx"));
    EXPECT_FALSE(torn.has_value()) << cut;
  }
  for (size_t i = 0; i < bytes.size(); i += 7) {
    std::string garbled = bytes;
    garbled[i] ^= 0x41;
    auto result = DecodeJournal(garbled, "journal.lx");
    EXPECT_TRUE(result.ok() && !result->has_value()) << "byte " << i;
  }
}

}  // namespace
}  // namespace loaderx
