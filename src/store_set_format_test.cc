// The store-set manifest's bytes: a round trip, the documented layout at
// fixed offsets, and every kind of damage refused as DataLoss.

#include "src/store_set_format.h"

#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_testing.h"

namespace loaderx::store_set_format {
namespace {

using ::testing::HasSubstr;

Manifest TwoMembers() {
  Manifest manifest;
  manifest.identity = 0x1122334455667788;
  manifest.members = {{"a", 3, 0xAAAA}, {"shards/b", 5, 0xBBBB}};
  return manifest;
}

TEST(StoreSetFormatTest, RoundTripsAndFollowsTheDocumentedLayout) {
  ASSERT_OK_AND_ASSIGN(const std::string bytes, EncodeManifest(TwoMembers()));
  // 32 header + (20 + 1) + (20 + 8) + 8 checksum.
  ASSERT_EQ(bytes.size(), 32u + 21 + 28 + 8);
  EXPECT_EQ(bytes.substr(0, 4), "LXSS");
  EXPECT_EQ(bytes[4], 1);
  EXPECT_EQ(bytes.substr(5, 3), std::string(3, '\0'));
  EXPECT_EQ(bytes[8], 2);                            // Members.
  EXPECT_EQ(bytes[16], 8);                           // Records: 3 + 5.
  EXPECT_EQ(static_cast<uint8_t>(bytes[24]), 0x88);  // Identity, LE.
  EXPECT_EQ(bytes[32], 3);                           // Member 0's records.
  EXPECT_EQ(static_cast<uint8_t>(bytes[40]), 0xAA);
  EXPECT_EQ(bytes[48], 1);  // Its path's length.
  EXPECT_EQ(bytes[52], 'a');
  EXPECT_EQ(bytes.substr(73, 8), "shards/b");
  ASSERT_OK_AND_ASSIGN(const Manifest decoded, DecodeManifest(bytes, "m"));
  EXPECT_EQ(decoded, TwoMembers());
  EXPECT_EQ(decoded.records(), 8u);
}

TEST(StoreSetFormatTest, EveryFlippedByteIsRefused) {
  ASSERT_OK_AND_ASSIGN(const std::string bytes, EncodeManifest(TwoMembers()));
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] ^= 0x01;
    SCOPED_TRACE(i);
    absl::StatusOr<Manifest> decoded = DecodeManifest(damaged, "set.lxs");
    EXPECT_STATUS_CODE(decoded, absl::StatusCode::kDataLoss);
    EXPECT_THAT(decoded.status().message(), HasSubstr("set.lxs"));
  }
  for (size_t size = 0; size < bytes.size(); ++size) {
    SCOPED_TRACE(size);
    EXPECT_STATUS_CODE(DecodeManifest(bytes.substr(0, size), "m"),
                       absl::StatusCode::kDataLoss);
  }
  EXPECT_STATUS_CODE(DecodeManifest(bytes + "x", "m"),
                     absl::StatusCode::kDataLoss);
}

TEST(StoreSetFormatTest, BadManifestsAreNotWritten) {
  Manifest manifest = TwoMembers();
  manifest.members.clear();
  EXPECT_STATUS_CODE(EncodeManifest(manifest),
                     absl::StatusCode::kInvalidArgument);
  for (const std::string& path :
       {std::string(), std::string("/abs"), std::string("a\0b", 3),
        std::string(kMaxPathBytes + 1, 'x')}) {
    manifest = TwoMembers();
    manifest.members[1].path = path;
    EXPECT_STATUS_CODE(EncodeManifest(manifest),
                       absl::StatusCode::kInvalidArgument);
  }
  manifest = TwoMembers();
  manifest.members[0].records = UINT64_MAX;
  EXPECT_STATUS_CODE(EncodeManifest(manifest),
                     absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace loaderx::store_set_format
