#include "loaderx/zstd_dictionary.h"

#include <zdict.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "loaderx/codec_registry.h"
#include "loaderx/error_code.h"
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

TEST(ZstdDictionaryTest, SamplesGoToTheTrainerAsGiven) {
  // As the reference: the samples, whatever their size, are the trainer's
  // samples with its default parameters, so the result is its result.
  std::vector<std::string> samples = Samples(300, 20);
  samples.push_back(std::string(300 << 10, 'x'));  // Larger than 128 KiB.
  std::vector<absl::string_view> views(samples.begin(), samples.end());
  ASSERT_OK_AND_ASSIGN(std::string dictionary,
                       TrainZstdDictionary(views, 16 << 10));
  std::string concatenated;
  std::vector<size_t> sizes;
  for (const std::string& sample : samples) {
    concatenated += sample;
    sizes.push_back(sample.size());
  }
  std::string direct(16 << 10, '\0');
  const size_t size =
      ZDICT_trainFromBuffer(direct.data(), direct.size(), concatenated.data(),
                            sizes.data(), static_cast<unsigned>(sizes.size()));
  ASSERT_FALSE(ZDICT_isError(size)) << ZDICT_getErrorName(size);
  direct.resize(size);
  EXPECT_EQ(dictionary, direct);
}

TEST(ZstdDictionaryTest, TooLittleToTrainOnIsInvalidArgument) {
  std::vector<absl::string_view> few = {"a", "b"};
  const absl::Status status = TrainZstdDictionary(few, 4096).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ErrorCodeOf(status), ErrorCode::kDictTrainingFailed);
  const std::vector<std::string> samples = Samples(100, 10);
  std::vector<absl::string_view> views(samples.begin(), samples.end());
  EXPECT_STATUS_CODE(TrainZstdDictionary(views, 100),
                     absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace loaderx
