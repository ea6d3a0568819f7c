// Shape records are the reference's (u64 rank, u64 dims) and a reader
// refuses any that disagrees with its payload, before allocating anything.

#include "src/shape_record.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/error_code.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(ShapeRecordTest, BytesAreTheReferences) {
  EXPECT_EQ(absl::BytesToHexString(EncodeShapeRecord({})),
            "0000000000000000");  // a scalar
  EXPECT_EQ(absl::BytesToHexString(EncodeShapeRecord({3})),
            "01000000000000000300000000000000");
  EXPECT_EQ(absl::BytesToHexString(EncodeShapeRecord({2, 0x0102030405})),
            "020000000000000002000000000000000504030201000000");
}

TEST(ShapeRecordTest, DecodesShapesThatFitTheirPayload) {
  ASSERT_OK_AND_ASSIGN(auto scalar,
                       DecodeShapeRecord(EncodeShapeRecord({}), 4, 4, 0));
  EXPECT_THAT(scalar, IsEmpty());
  ASSERT_OK_AND_ASSIGN(
      auto image,
      DecodeShapeRecord(EncodeShapeRecord({3, 5, 7}), 2, 2 * 3 * 5 * 7, 0));
  EXPECT_THAT(image, ElementsAre(3, 5, 7));
}

TEST(ShapeRecordTest, AnythingElseIsACorruptRecord) {
  std::string rank_too_big = EncodeShapeRecord({3});
  rank_too_big[0] = 2;
  std::string huge_rank = EncodeShapeRecord({});
  huge_rank[7] = '\x01';
  const struct {
    std::string bytes;
    uint64_t payload;
  } cases[] = {
      {"", 4},
      {std::string(7, '\0'), 4},
      {EncodeShapeRecord({3}) + "x", 12},
      {rank_too_big, 12},
      {huge_rank, 4},
      {EncodeShapeRecord({3}), 16},    // 3 items of 4 bytes are 12
      {EncodeShapeRecord({0, 5}), 0},  // zero bytes
      {EncodeShapeRecord({~uint64_t{0}, ~uint64_t{0}}), 4},  // would overflow
      {EncodeShapeRecord({uint64_t{1} << 62, 4}), 0},
      {EncodeShapeRecord(std::vector<uint64_t>(65, 1)), 4},  // 65 dimensions
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(absl::BytesToHexString(c.bytes));
    absl::Status status = DecodeShapeRecord(c.bytes, 4, c.payload, 9).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
    EXPECT_EQ(ErrorCodeOf(status), ErrorCode::kCorruptRecord);
    EXPECT_THAT(status.message(), testing::HasSubstr("record 9"));
  }
}

TEST(ShapeRecordTest, ABatchsShapesAreAddedFlatAndKeptOnError) {
  BatchShapes shapes;
  ASSERT_OK(AppendShapeRecord(EncodeShapeRecord({2, 3}), 4, 24, 0, shapes));
  ASSERT_OK(AppendShapeRecord(EncodeShapeRecord({}), 4, 4, 1, shapes));
  // Disagrees with its payload: refused, the batch as it was.
  EXPECT_STATUS_CODE(
      AppendShapeRecord(EncodeShapeRecord({5}), 4, 24, 2, shapes),
      absl::StatusCode::kDataLoss);
  ASSERT_OK(AppendShapeRecord(EncodeShapeRecord({7}), 1, 7, 3, shapes));
  ASSERT_EQ(shapes.size(), 3u);
  EXPECT_THAT(shapes[0], ElementsAre(2, 3));
  EXPECT_THAT(shapes[1], IsEmpty());
  EXPECT_THAT(shapes[2], ElementsAre(7));
  EXPECT_EQ(shapes, BatchShapes::Of({{2, 3}, {}, {7}}));
  EXPECT_NE(shapes, BatchShapes::Of({{2}, {3}, {7}}));  // Same dims, split.
  EXPECT_EQ(shapes.ToVectors(),
            (std::vector<std::vector<uint64_t>>{{2, 3}, {}, {7}}));
  shapes.Clear();
  EXPECT_TRUE(shapes.empty());
}

}  // namespace
}  // namespace loaderx
