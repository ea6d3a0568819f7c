#include "src/store_format.h"

#include <array>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_testing.h"

namespace loaderx::store_format {
namespace {

using ::testing::HasSubstr;

TEST(StoreFormatTest, HeaderBytesFollowTheLayout) {
  PhysicalHeader header{/*codec=*/2, /*tail_chunk=*/0x01020304,
                        /*tail_offset=*/0x0A0B0C0D,
                        /*length=*/0x1122334455667788ULL};
  const std::array<char, kHeaderBytes> bytes = EncodeHeader(header);
  const std::string expected(
      "ZREC"                              // magic
      "\x04"                              // version
      "\x02"                              // codec
      "\x04\x03\x02\x01"                  // tail_chunk, little-endian
      "\x0D\x0C\x0B\x0A"                  // tail_offset
      "\x88\x77\x66\x55\x44\x33\x22\x11"  // length
      "\0\0\0\0\0\0\0\0\0\0",             // reserved
      kHeaderBytes);
  EXPECT_EQ(std::string(bytes.data(), bytes.size()), expected);
  ASSERT_OK_AND_ASSIGN(PhysicalHeader back, DecodeHeader(expected, "meta.zr"));
  EXPECT_EQ(back, header);
}

TEST(StoreFormatTest, ForeignOrDamagedHeadersAreDataLoss) {
  std::array<char, kHeaderBytes> good = EncodeHeader(PhysicalHeader{});
  std::string bytes(good.data(), good.size());

  absl::Status short_file =
      DecodeHeader(bytes.substr(0, 31), "x/meta.zr").status();
  EXPECT_EQ(short_file.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(short_file.message(), HasSubstr("x/meta.zr"));

  std::string foreign = bytes;
  foreign.replace(0, 4, "PK\x03\x04");
  absl::Status not_ours = DecodeHeader(foreign, "meta.zr").status();
  EXPECT_EQ(not_ours.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(not_ours.message(), HasSubstr("not a loaderx store"));

  // The reference's own test: a version-3 header must be rejected.
  for (int version : {1, 3, 5}) {
    std::string other = bytes;
    other[4] = static_cast<char>(version);
    EXPECT_THAT(DecodeHeader(other, "meta.zr").status().message(),
                HasSubstr(absl::StrCat("version ", version)));
  }

  std::string reserved = bytes;
  reserved[31] = 1;
  EXPECT_STATUS_CODE(DecodeHeader(reserved, "meta.zr"),
                     absl::StatusCode::kDataLoss);
}

TEST(StoreFormatTest, RecordLocBytesFollowTheLayout) {
  const RecordLoc loc{0x11223344, 0x55667788, 0x99AABBCC, 0x00000007};
  char bytes[kRecordLocBytes];
  EncodeRecordLoc(loc, bytes);
  EXPECT_EQ(std::string(bytes, kRecordLocBytes),
            std::string("\x44\x33\x22\x11\x88\x77\x66\x55"
                        "\xCC\xBB\xAA\x99\x07\x00\x00\x00",
                        kRecordLocBytes));
  EXPECT_EQ(DecodeRecordLoc(bytes), loc);
}

// FACTS: a raw dense store holding 100 records of 16 bytes.
TEST(StoreFormatTest, HeaderMatchesTheReferencesExample) {
  const std::array<char, kHeaderBytes> bytes =
      EncodeHeader(PhysicalHeader{0, 0, 1600, 100});
  EXPECT_EQ(absl::BytesToHexString(absl::string_view(bytes.data(), 32)),
            "5a524543"
            "04"
            "00"
            "00000000"
            "40060000"
            "6400000000000000"
            "00000000000000000000");
}

TEST(StoreFormatTest, RecordLocsAreCheckedAsTheReferenceDoes) {
  const PhysicalHeader header{1, /*tail_chunk=*/1, /*tail_offset=*/100, 10};
  EXPECT_OK(CheckRecordLoc({0, 50, 80, 0}, 0, header, 2));
  EXPECT_OK(CheckRecordLoc({50, 50, 1u << 31, 1}, 0, header, 2));
  const struct {
    RecordLoc loc;
    const char* why;
  } bad[] = {
      {{0, 10, 10, 2}, "missing chunk"},
      {{0, 0, 10, 0}, "stores no bytes"},
      {{0, 10, 0, 0}, "impossible size"},
      {{0, 10, (1u << 31) + 1, 0}, "impossible size"},
      {{0xFFFFFFF0u, 0x20, 10, 0}, "past its chunk's range"},
      {{60, 50, 50, 1}, "past the committed frontier"},
  };
  for (const auto& c : bad) {
    absl::Status status = CheckRecordLoc(c.loc, 7, header, 2);
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << c.why;
    EXPECT_THAT(status.message(), HasSubstr(c.why));
    EXPECT_THAT(status.message(), HasSubstr("entry 7"));
  }
}

TEST(StoreFormatTest, SegmentArithmetic) {
  EXPECT_EQ(SegmentOf(0), 0u);
  EXPECT_EQ(SegmentOf(kEntriesPerSegment - 1), 0u);
  EXPECT_EQ(SegmentOf(kEntriesPerSegment), 1u);
  EXPECT_EQ(OffsetInSegment(3), 48u);
  EXPECT_EQ(OffsetInSegment(kEntriesPerSegment + 2), 32u);
  EXPECT_EQ(SegmentFileName(1), "1.loc");
  EXPECT_EQ(ChunkFileName(12), "12.chunk");
}

}  // namespace
}  // namespace loaderx::store_format
