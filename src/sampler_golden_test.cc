// The sampler against sequences recorded from loaderx 1.7.7
// (`tests/data/sampler_golden.txt`; its header gives the format and how it
// is regenerated): every mode, lengths from 1 to 2^64 - 1, several batch
// sizes and seeds, consecutive calls and seeks across cycle boundaries.

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "loaderx/sampler.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

constexpr char kGoldenPath[] = "tests/data/sampler_golden.txt";

std::vector<uint64_t> ParseNumbers(const std::vector<std::string>& words,
                                   size_t first) {
  std::vector<uint64_t> numbers;
  for (size_t i = first; i < words.size(); ++i) {
    uint64_t value;
    EXPECT_TRUE(absl::SimpleAtoi(words[i], &value)) << words[i];
    numbers.push_back(value);
  }
  return numbers;
}

TEST(SamplerGoldenTest, ReproducesEveryRecordedSequence) {
  std::ifstream golden(kGoldenPath);
  ASSERT_TRUE(golden.is_open()) << "cannot open " << kGoldenPath;
  std::optional<Sampler> sampler;
  std::string description;
  int cases = 0, batches = 0, line_number = 0;
  std::string line;
  while (std::getline(golden, line)) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> words =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    const std::vector<uint64_t> numbers = ParseNumbers(words, 1);
    SCOPED_TRACE(
        absl::StrCat(kGoldenPath, ":", line_number, " (", description, ")"));
    if (words[0] == "sampler") {
      ASSERT_EQ(numbers.size(), 4u);
      absl::StatusOr<Sampler> created =
          Sampler::Create(numbers[1], numbers[2],
                          static_cast<SamplerMode>(numbers[0]), numbers[3]);
      ASSERT_OK(created);
      sampler = *created;
      description = line;
      ++cases;
    } else if (words[0] == "seek") {
      ASSERT_TRUE(sampler.has_value());
      ASSERT_EQ(numbers.size(), 1u);
      sampler->Seek(numbers[0]);
    } else if (words[0] == "next") {
      ASSERT_TRUE(sampler.has_value());
      std::vector<uint64_t> out(sampler->batch_length());
      ASSERT_OK_AND_ASSIGN(size_t count, sampler->Next(absl::MakeSpan(out)));
      out.resize(count);
      ASSERT_EQ(out, numbers);
      ++batches;
    } else {
      FAIL() << "unknown line: " << line;
    }
  }
  // The file covers the grid it was generated from.
  EXPECT_GT(cases, 200);
  EXPECT_GT(batches, 1500);
}

}  // namespace
}  // namespace loaderx
