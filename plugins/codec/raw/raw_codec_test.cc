#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "loaderx/codec_registry.h"
#include "tests/codec_conformance.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

INSTANTIATE_TEST_SUITE_P(
    Raw, CodecConformanceTest,
    testing::Combine(testing::Values(CodecUnderTest{"raw"}),
                     testing::ValuesIn(kConformanceRecordSizes)),
    CodecRecordSizeName);

INSTANTIATE_TEST_SUITE_P(Raw, CodecContractTest,
                         testing::Values(CodecUnderTest{"raw"}), CodecName);

TEST(RawCodecTest, HasTagZero) {
  ASSERT_OK_AND_ASSIGN(auto codec, CreateCodecByTag(0));
  EXPECT_EQ(codec->name(), "raw");
  EXPECT_EQ(codec->tag(), static_cast<uint8_t>(CodecTag::kRaw));
}

TEST(RawCodecTest, RejectsADictionary) {
  CodecOptions options;
  options.dictionary = "a dictionary a raw store has no use for";
  EXPECT_STATUS_CODE(CreateCodec("raw", options),
                     absl::StatusCode::kInvalidArgument);
}

TEST(RawCodecTest, StoresTheRecordVerbatim) {
  ASSERT_OK_AND_ASSIGN(auto codec, CreateCodec("raw"));
  ASSERT_OK_AND_ASSIGN(auto context, codec->NewCompressionContext());
  std::string slot(5, '\0');
  ASSERT_OK_AND_ASSIGN(size_t n,
                       context->Compress("bytes", absl::MakeSpan(slot)));
  EXPECT_EQ(n, 5u);
  EXPECT_EQ(slot, "bytes");
}

}  // namespace
}  // namespace loaderx
