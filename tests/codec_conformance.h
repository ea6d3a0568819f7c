// The codec conformance suite: every codec plugin runs the same tests, over a
// grid of record sizes (ArrayRecord's parameterized codec tests). A codec
// joins by instantiating both suites with a `CodecUnderTest`:
//
//   INSTANTIATE_TEST_SUITE_P(Raw, CodecConformanceTest,
//       testing::Combine(testing::Values(CodecUnderTest{"raw"}),
//                        testing::ValuesIn(kConformanceRecordSizes)),
//       CodecRecordSizeName);
//   INSTANTIATE_TEST_SUITE_P(Raw, CodecContractTest,
//       testing::Values(CodecUnderTest{"raw"}), CodecName);

#ifndef LOADERX_TESTS_CODEC_CONFORMANCE_H_
#define LOADERX_TESTS_CODEC_CONFORMANCE_H_

#include <cstddef>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "loaderx/codec.h"

namespace loaderx {

struct CodecUnderTest {
  // The registered name, and a label for test output (letters, digits, _).
  std::string name;
  std::string label = name;
  // What to create it with (e.g. a dictionary for zstd_dict).
  CodecOptions options = {};
};

// Record sizes every codec round-trips: empty, tiny, around common block
// sizes, and a few MiB.
inline const std::vector<size_t> kConformanceRecordSizes = {
    0, 1, 7, 255, 4096, 65537, 1 << 20, (3 << 20) + 5};

std::string CodecName(const testing::TestParamInfo<CodecUnderTest>& info);
std::string CodecRecordSizeName(
    const testing::TestParamInfo<std::tuple<CodecUnderTest, size_t>>& info);

// Tests that depend on the record size.
class CodecConformanceTest
    : public testing::TestWithParam<std::tuple<CodecUnderTest, size_t>> {
 protected:
  void SetUp() override;
  std::unique_ptr<Codec> codec_;
  size_t size_ = 0;
};

// Tests of the codec's contract that do not depend on the record size.
class CodecContractTest : public testing::TestWithParam<CodecUnderTest> {
 protected:
  void SetUp() override;
  std::unique_ptr<Codec> codec_;
};

}  // namespace loaderx

#endif  // LOADERX_TESTS_CODEC_CONFORMANCE_H_
