// The damage catalogue as a test: for each kind x codec, every case must
// end in a clean error or correct data (see damage_catalogue.h). Prints the
// table row, every failing case, and, with LOADERX_DAMAGE_VERBOSE=1, every
// case's outcome. `//tests/damage:damage_table` prints the whole table.

#include "tests/damage/damage_catalogue.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>

#include "gtest/gtest.h"
#include "tests/damage/file_edits.h"
#include "tests/temp_dir.h"

namespace loaderx::damage {
namespace {

// Each sample's cases in `kParts` parts, so that shards stay short under
// the sanitizers.
constexpr int kParts = 2;

// Under ThreadSanitizer, whose forks take a second each, a tenth of the
// cases (the catalogue's cases are single-threaded; the other passes run
// them all).
#if defined(__SANITIZE_THREAD__)
constexpr int kEvery = 10;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr int kEvery = 10;
#else
constexpr int kEvery = 1;
#endif
#else
constexpr int kEvery = 1;
#endif

class DamageCatalogueTest
    : public testing::TestWithParam<std::tuple<SampleKind, int>> {};

TEST_P(DamageCatalogueTest, EveryCaseEndsCleanly) {
  const SampleKind& sample = std::get<0>(GetParam());
  const char* verbose = std::getenv("LOADERX_DAMAGE_VERBOSE");
  CatalogueLimits limits;
  limits.part = std::get<1>(GetParam());
  limits.parts = kParts;
  limits.every = kEvery;
  absl::StatusOr<std::string> work = MakeWorkDirectory(TestTempDir());
  ASSERT_TRUE(work.ok()) << work.status();
  absl::StatusOr<CatalogueResult> result = RunCatalogue(sample, *work, limits);
  ASSERT_TRUE(RemoveTree(*work).ok());
  ASSERT_TRUE(result.ok()) << result.status();
  std::printf("%s", MarkdownTable({*result}).c_str());
  for (const CaseResult& c : result->cases) {
    if (IsFailure(c.probe.outcome)) {
      ADD_FAILURE() << sample.Name() << ": " << c.name << ": "
                    << OutcomeName(c.probe.outcome) << ": " << c.probe.detail;
    } else if (verbose != nullptr && std::string(verbose) == "1") {
      std::printf("%-12s %-60s %s  %s\n", c.group.c_str(), c.name.c_str(),
                  OutcomeName(c.probe.outcome), c.probe.detail.c_str());
    }
  }
  // The catalogue is not empty, and damage is noticed: some cases must be
  // refused or reported, not all read as correct.
  EXPECT_GT(result->cases.size(), 200u / kEvery);
  EXPECT_GT(result->counts[static_cast<int>(Outcome::kOpenRefused)], 0);
  EXPECT_GT(result->counts[static_cast<int>(Outcome::kDamageReported)], 0);
}

INSTANTIATE_TEST_SUITE_P(
    Samples, DamageCatalogueTest,
    testing::Combine(testing::ValuesIn(AllSamples()),
                     testing::Range(0, kParts)),
    [](const testing::TestParamInfo<std::tuple<SampleKind, int>>& info) {
      const SampleKind& sample = std::get<0>(info.param);
      return sample.kind + "_" + sample.codec + "_part" +
             std::to_string(std::get<1>(info.param));
    });

}  // namespace
}  // namespace loaderx::damage
