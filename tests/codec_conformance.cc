#include "tests/codec_conformance.h"

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/codec_registry.h"
#include "loaderx/spi/status_macros.h"
#include "tests/concurrency.h"
#include "tests/status_testing.h"

namespace loaderx {

std::string CodecName(const testing::TestParamInfo<CodecUnderTest>& info) {
  return info.param.label;
}

std::string CodecRecordSizeName(
    const testing::TestParamInfo<std::tuple<CodecUnderTest, size_t>>& info) {
  return absl::StrCat(std::get<0>(info.param).label, "_",
                      std::get<1>(info.param), "B");
}

namespace {

std::unique_ptr<Codec> MakeCodec(const CodecUnderTest& under_test) {
  absl::StatusOr<std::unique_ptr<Codec>> codec =
      CreateCodec(under_test.name, under_test.options);
  EXPECT_TRUE(codec.ok()) << codec.status();
  return codec.ok() ? *std::move(codec) : nullptr;
}

// The contents a record of `size` bytes is tested with: all zeros (maximally
// compressible), pseudo-random (incompressible) and structured text-like
// bytes (what real records look like).
std::vector<std::string> Records(size_t size) {
  std::mt19937_64 random(size);
  std::string zeros(size, '\0');
  std::string noise(size, '\0');
  for (char& c : noise) c = static_cast<char>(random());
  std::string structured(size, '\0');
  for (size_t i = 0; i < size; ++i) {
    structured[i] =
        static_cast<char>("loaderx record "[i % 15] + (i / 997) % 3);
  }
  return {zeros, noise, structured};
}

// Compresses `record` into a slot of exactly the codec's bound.
std::string Compress(const Codec& codec, CompressionContext& context,
                     const std::string& record) {
  std::string slot(codec.CompressBound(record.size()), '\0');
  absl::StatusOr<size_t> size = context.Compress(record, absl::MakeSpan(slot));
  EXPECT_TRUE(size.ok()) << size.status();
  slot.resize(size.value_or(0));
  return slot;
}

}  // namespace

void CodecConformanceTest::SetUp() {
  codec_ = MakeCodec(std::get<0>(GetParam()));
  ASSERT_NE(codec_, nullptr);
  size_ = std::get<1>(GetParam());
}

void CodecContractTest::SetUp() {
  codec_ = MakeCodec(GetParam());
  ASSERT_NE(codec_, nullptr);
}

namespace {

TEST_P(CodecConformanceTest, RoundTripsIntoAnExactlySizedDestination) {
  ASSERT_OK_AND_ASSIGN(auto compressor, codec_->NewCompressionContext());
  ASSERT_OK_AND_ASSIGN(auto decompressor, codec_->NewDecompressionContext());
  for (const std::string& record : Records(size_)) {
    const std::string frame = Compress(*codec_, *compressor, record);
    EXPECT_LE(frame.size(), codec_->CompressBound(size_));
    // Guard bytes after the destination catch a write past its end.
    constexpr size_t kGuard = 64;
    std::string destination(size_ + kGuard, '\x5a');
    ASSERT_OK(decompressor->Decompress(
        frame, absl::MakeSpan(destination.data(), size_)));
    EXPECT_TRUE(destination.compare(0, size_, record) == 0);
    EXPECT_EQ(destination.substr(size_), std::string(kGuard, '\x5a'));
  }
}

TEST_P(CodecConformanceTest, DestinationOfTheWrongSizeIsDataLoss) {
  ASSERT_OK_AND_ASSIGN(auto compressor, codec_->NewCompressionContext());
  ASSERT_OK_AND_ASSIGN(auto decompressor, codec_->NewDecompressionContext());
  const std::string record = Records(size_)[2];
  const std::string frame = Compress(*codec_, *compressor, record);
  std::string larger(size_ + 1, '\0');
  EXPECT_STATUS_CODE(decompressor->Decompress(frame, absl::MakeSpan(larger)),
                     absl::StatusCode::kDataLoss);
  if (size_ > 0) {
    std::string smaller(size_ - 1, '\0');
    EXPECT_STATUS_CODE(decompressor->Decompress(frame, absl::MakeSpan(smaller)),
                       absl::StatusCode::kDataLoss);
  }
}

TEST_P(CodecConformanceTest, TruncatedFrameIsDataLoss) {
  ASSERT_OK_AND_ASSIGN(auto compressor, codec_->NewCompressionContext());
  ASSERT_OK_AND_ASSIGN(auto decompressor, codec_->NewDecompressionContext());
  const std::string frame = Compress(*codec_, *compressor, Records(size_)[1]);
  if (frame.empty()) GTEST_SKIP() << "an empty frame cannot be truncated";
  std::string destination(size_, '\0');
  EXPECT_STATUS_CODE(decompressor->Decompress(
                         absl::string_view(frame).substr(0, frame.size() / 2),
                         absl::MakeSpan(destination)),
                     absl::StatusCode::kDataLoss);
}

TEST_P(CodecConformanceTest, SlotSmallerThanTheBoundIsRejected) {
  if (codec_->CompressBound(size_) == 0) {
    GTEST_SKIP() << "no slot is smaller than an empty bound";
  }
  ASSERT_OK_AND_ASSIGN(auto compressor, codec_->NewCompressionContext());
  std::string slot(codec_->CompressBound(size_) - 1, '\0');
  EXPECT_STATUS_CODE(
      compressor->Compress(Records(size_)[0], absl::MakeSpan(slot)),
      absl::StatusCode::kInvalidArgument);
}

TEST_P(CodecContractTest, NameAndTagMatchTheRegistry) {
  EXPECT_EQ(codec_->name(), GetParam().name);
  ASSERT_OK_AND_ASSIGN(auto by_tag,
                       CreateCodecByTag(codec_->tag(), GetParam().options));
  EXPECT_EQ(by_tag->name(), codec_->name());
  EXPECT_EQ(codec_->uses_dictionary(), !GetParam().options.dictionary.empty());
}

TEST_P(CodecContractTest, AVerbatimCodecStoresTheRecordsOwnBytes) {
  // The engine skips a verbatim codec entirely, so the promise must hold
  // exactly; a compressing codec must not make it.
  ASSERT_OK_AND_ASSIGN(auto compressor, codec_->NewCompressionContext());
  const std::string record = Records(4096).front();
  const std::string frame = Compress(*codec_, *compressor, record);
  EXPECT_EQ(codec_->stores_verbatim(), frame == record);
}

TEST_P(CodecContractTest, OneContextServesManyRecords) {
  ASSERT_OK_AND_ASSIGN(auto compressor, codec_->NewCompressionContext());
  ASSERT_OK_AND_ASSIGN(auto decompressor, codec_->NewDecompressionContext());
  std::vector<std::string> records;
  for (size_t size : {100, 0, 5000, 1, 70000, 100}) {
    for (std::string& record : Records(size)) records.push_back(record);
  }
  std::vector<std::string> frames;
  for (const std::string& record : records) {
    frames.push_back(Compress(*codec_, *compressor, record));
  }
  // Decode in reverse, so no state from the previous record can help.
  for (size_t i = records.size(); i-- > 0;) {
    std::string destination(records[i].size(), '\0');
    ASSERT_OK(decompressor->Decompress(frames[i], absl::MakeSpan(destination)));
    EXPECT_EQ(destination, records[i]) << "record " << i;
  }
}

TEST_P(CodecContractTest, ContextsOnManyThreadsShareOneCodec) {
  auto round_trips = [&](int t) -> absl::Status {
    LOADERX_ASSIGN_OR_RETURN(auto compressor, codec_->NewCompressionContext());
    LOADERX_ASSIGN_OR_RETURN(auto decompressor,
                             codec_->NewDecompressionContext());
    for (size_t size = 1; size < 20000; size = size * 3 + t) {
      for (const std::string& record : Records(size)) {
        std::string slot(codec_->CompressBound(size), '\0');
        LOADERX_ASSIGN_OR_RETURN(
            size_t n, compressor->Compress(record, absl::MakeSpan(slot)));
        std::string back(size, '\0');
        LOADERX_RETURN_IF_ERROR(decompressor->Decompress(
            absl::string_view(slot.data(), n), absl::MakeSpan(back)));
        if (back != record)
          return absl::DataLossError("record read back wrong");
      }
    }
    return absl::OkStatus();
  };
  for (const absl::Status& status : RunOnThreads(4, round_trips)) {
    EXPECT_OK(status);
  }
}

}  // namespace
}  // namespace loaderx
