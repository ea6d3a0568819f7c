#include "loaderx/zstd_dictionary.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "loaderx/codec_registry.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

std::vector<std::string> Samples(int count, size_t pad) {
  std::vector<std::string> samples;
  for (int i = 0; i < count; ++i) {
    samples.push_back(absl::StrCat(
        "{\"id\": ", i * 7919 % 1000, ", \"label\": \"class_", i % 13,
        "\", \"split\": \"train\"}", std::string(pad, 'a' + i % 3)));
  }
  return samples;
}

size_t Compressed(const Codec& codec, const std::vector<std::string>& records) {
  auto context = codec.NewCompressionContext();
  EXPECT_TRUE(context.ok()) << context.status();
  size_t total = 0;
  for (const std::string& record : records) {
    std::string frame(codec.CompressBound(record.size()), '\0');
    total += (*context)->Compress(record, absl::MakeSpan(frame)).value_or(0);
  }
  return total;
}

TEST(ZstdDictionaryTest, TrainedDictionaryHelpsAndLoads) {
  const std::vector<std::string> samples = Samples(2000, 20);
  std::vector<absl::string_view> views(samples.begin(), samples.end());
  ASSERT_OK_AND_ASSIGN(std::string dictionary,
                       TrainZstdDictionary(views, 8 << 10));
  EXPECT_GT(dictionary.size(), 0u);
  EXPECT_LE(dictionary.size(), 8u << 10);
  ASSERT_OK_AND_ASSIGN(auto with, CreateCodec("zstd_dict", {dictionary}));
  ASSERT_OK_AND_ASSIGN(auto without, CreateCodec("zstd"));
  const std::vector<std::string> records = Samples(300, 20);
  EXPECT_LT(Compressed(*with, records) * 2, Compressed(*without, records));
}

TEST(ZstdDictionaryTest, LargeSamplesAreCutIntoPieces) {
  // Four 1 MiB samples become 32 pieces: enough for the trainer.
  std::vector<std::string> samples;
  for (int i = 0; i < 4; ++i) {
    std::string sample;
    while (sample.size() < (1 << 20)) {
      sample +=
          absl::StrCat("row ", sample.size() % 977, " of sample ", i, "; ");
    }
    samples.push_back(sample);
  }
  std::vector<absl::string_view> views(samples.begin(), samples.end());
  EXPECT_OK(TrainZstdDictionary(views, 16 << 10));
}

TEST(ZstdDictionaryTest, TooLittleToTrainOnIsInvalidArgument) {
  std::vector<absl::string_view> few = {"a", "b"};
  EXPECT_STATUS_CODE(TrainZstdDictionary(few, 4096),
                     absl::StatusCode::kInvalidArgument);
  const std::vector<std::string> samples = Samples(100, 10);
  std::vector<absl::string_view> views(samples.begin(), samples.end());
  EXPECT_STATUS_CODE(TrainZstdDictionary(views, 100),
                     absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace loaderx
