// The zstd codecs run the codec conformance suite (plain at its default and
// extreme levels; with a raw-content and a trained dictionary), plus what is
// particular to them: option validation, the dictionary's effect, and a
// frame meeting the wrong dictionary.

#include <zdict.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "loaderx/codec_registry.h"
#include "tests/codec_conformance.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

// Small, similar records: what a dictionary is for (token rows, tiles).
std::vector<std::string> SimilarRecords(int count, uint64_t seed) {
  std::vector<std::string> records;
  uint64_t state = seed;
  for (int i = 0; i < count; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    records.push_back(
        absl::StrCat("{\"image\": \"tile_", state % 1000,
                     ".png\", \"label\": ", (state >> 20) % 10,
                     ", \"split\": \"train\", \"width\": 256, "
                     "\"height\": 256, \"channels\": 3, \"source\": \"camera-",
                     (state >> 40) % 4, "\"}"));
  }
  return records;
}

std::string TrainDictionary(size_t capacity) {
  const std::vector<std::string> samples = SimilarRecords(2000, 7);
  std::string concatenated;
  std::vector<size_t> sizes;
  for (const std::string& sample : samples) {
    concatenated += sample;
    sizes.push_back(sample.size());
  }
  std::string dictionary(capacity, '\0');
  const size_t size = ZDICT_trainFromBuffer(
      dictionary.data(), dictionary.size(), concatenated.data(), sizes.data(),
      static_cast<unsigned>(sizes.size()));
  EXPECT_FALSE(ZDICT_isError(size)) << ZDICT_getErrorName(size);
  dictionary.resize(ZDICT_isError(size) ? 0 : size);
  return dictionary;
}

const std::string& TrainedDictionary() {
  static const std::string* dictionary = new std::string(TrainDictionary(4096));
  return *dictionary;
}

// Raw-content dictionaries need no training: zstd uses the bytes as history.
std::string RawContentDictionary() {
  std::string dictionary;
  for (const std::string& record : SimilarRecords(40, 3)) dictionary += record;
  return dictionary;
}

std::vector<CodecUnderTest> Codecs() {
  return {
      {"zstd", "zstd"},
      {"zstd", "zstd_level1", {"", 1}},
      {"zstd", "zstd_level19", {"", 19}},
      {"zstd_dict", "zstd_dict_raw_content", {RawContentDictionary()}},
      {"zstd_dict", "zstd_dict_trained", {TrainedDictionary()}},
  };
}

INSTANTIATE_TEST_SUITE_P(
    Zstd, CodecConformanceTest,
    testing::Combine(testing::ValuesIn(Codecs()),
                     testing::ValuesIn(kConformanceRecordSizes)),
    CodecRecordSizeName);

INSTANTIATE_TEST_SUITE_P(Zstd, CodecContractTest, testing::ValuesIn(Codecs()),
                         CodecName);

TEST(ZstdCodecTest, TagsFollowTheFormat) {
  ASSERT_OK_AND_ASSIGN(auto zstd, CreateCodecByTag(1));
  EXPECT_EQ(zstd->name(), "zstd");
  CodecOptions with_dictionary;
  with_dictionary.dictionary = TrainedDictionary();
  ASSERT_OK_AND_ASSIGN(auto dict, CreateCodecByTag(2, with_dictionary));
  EXPECT_EQ(dict->name(), "zstd_dict");
}

TEST(ZstdCodecTest, PlainZstdRejectsADictionary) {
  CodecOptions options;
  options.dictionary = TrainedDictionary();
  EXPECT_STATUS_CODE(CreateCodec("zstd", options),
                     absl::StatusCode::kInvalidArgument);
}

TEST(ZstdCodecTest, ZstdDictRequiresADictionary) {
  absl::Status status = CreateCodec("zstd_dict").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("dictionary is required"),
            absl::string_view::npos);
}

TEST(ZstdCodecTest, LevelsOutsideZstdsRangeAreRejected) {
  EXPECT_STATUS_CODE(CreateCodec("zstd", {"", 23}),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(CreateCodec("zstd_dict", {TrainedDictionary(), 99}),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_OK(CreateCodec("zstd", {"", -1}));  // Fast negative levels are fine.
}

// Total frame bytes of `records` through `codec`.
size_t CompressedSize(const Codec& codec,
                      const std::vector<std::string>& records) {
  auto context = codec.NewCompressionContext();
  EXPECT_TRUE(context.ok()) << context.status();
  size_t total = 0;
  for (const std::string& record : records) {
    std::string slot(codec.CompressBound(record.size()), '\0');
    absl::StatusOr<size_t> n =
        (*context)->Compress(record, absl::MakeSpan(slot));
    EXPECT_TRUE(n.ok()) << n.status();
    total += n.value_or(0);
  }
  return total;
}

TEST(ZstdCodecTest, DictionaryShrinksSmallSimilarRecords) {
  const std::vector<std::string> records = SimilarRecords(500, 99);
  size_t raw = 0;
  for (const std::string& record : records) raw += record.size();
  ASSERT_OK_AND_ASSIGN(auto plain, CreateCodec("zstd"));
  ASSERT_OK_AND_ASSIGN(auto dict,
                       CreateCodec("zstd_dict", {TrainedDictionary()}));
  const size_t plain_size = CompressedSize(*plain, records);
  const size_t dict_size = CompressedSize(*dict, records);
  // Records of ~150 bytes barely compress alone; against the dictionary
  // they shrink severalfold.
  EXPECT_LT(dict_size * 2, plain_size)
      << "raw " << raw << ", zstd " << plain_size << ", zstd_dict "
      << dict_size;
}

TEST(ZstdCodecTest, FrameFromAnotherDictionaryIsDataLoss) {
  ASSERT_OK_AND_ASSIGN(auto writer,
                       CreateCodec("zstd_dict", {TrainedDictionary()}));
  ASSERT_OK_AND_ASSIGN(auto reader,
                       CreateCodec("zstd_dict", {TrainDictionary(2048)}));
  const std::string record = SimilarRecords(1, 5)[0];
  ASSERT_OK_AND_ASSIGN(auto compressor, writer->NewCompressionContext());
  std::string frame(writer->CompressBound(record.size()), '\0');
  ASSERT_OK_AND_ASSIGN(size_t n,
                       compressor->Compress(record, absl::MakeSpan(frame)));
  frame.resize(n);
  ASSERT_OK_AND_ASSIGN(auto decompressor, reader->NewDecompressionContext());
  std::string destination(record.size(), '\0');
  EXPECT_STATUS_CODE(
      decompressor->Decompress(frame, absl::MakeSpan(destination)),
      absl::StatusCode::kDataLoss);
}

TEST(ZstdCodecTest, GarbageIsDataLoss) {
  ASSERT_OK_AND_ASSIGN(auto codec, CreateCodec("zstd"));
  ASSERT_OK_AND_ASSIGN(auto decompressor, codec->NewDecompressionContext());
  std::string destination(16, '\0');
  EXPECT_STATUS_CODE(decompressor->Decompress("definitely not zstd",
                                              absl::MakeSpan(destination)),
                     absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace loaderx
