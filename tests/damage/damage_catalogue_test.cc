// The damage catalogue as a test: for each kind x codec, every case must
// end in a clean error or correct data (see damage_catalogue.h). Prints the
// table row, every failing case, and, with LOADERX_DAMAGE_VERBOSE=1, every
// case's outcome. `//tests/damage:damage_table` prints the whole table.

#include "tests/damage/damage_catalogue.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "tests/damage/file_edits.h"
#include "tests/temp_dir.h"

namespace loaderx::damage {
namespace {

class DamageCatalogueTest : public testing::TestWithParam<SampleKind> {};

TEST_P(DamageCatalogueTest, EveryCaseEndsCleanly) {
  const char* verbose = std::getenv("LOADERX_DAMAGE_VERBOSE");
  CatalogueLimits limits;
  absl::StatusOr<std::string> work = MakeWorkDirectory(TestTempDir());
  ASSERT_TRUE(work.ok()) << work.status();
  absl::StatusOr<CatalogueResult> result =
      RunCatalogue(GetParam(), *work, limits);
  ASSERT_TRUE(RemoveTree(*work).ok());
  ASSERT_TRUE(result.ok()) << result.status();
  std::printf("%s", MarkdownTable({*result}).c_str());
  for (const CaseResult& c : result->cases) {
    if (IsFailure(c.probe.outcome)) {
      ADD_FAILURE() << GetParam().Name() << ": " << c.name << ": "
                    << OutcomeName(c.probe.outcome) << ": " << c.probe.detail;
    } else if (verbose != nullptr && std::string(verbose) == "1") {
      std::printf("%-12s %-60s %s  %s\n", c.group.c_str(), c.name.c_str(),
                  OutcomeName(c.probe.outcome), c.probe.detail.c_str());
    }
  }
  // The catalogue is not empty, and damage is noticed: some cases must be
  // refused or reported, not all read as correct.
  EXPECT_GT(result->cases.size(), 100u);
  EXPECT_GT(result->counts[static_cast<int>(Outcome::kOpenRefused)], 0);
  EXPECT_GT(result->counts[static_cast<int>(Outcome::kDamageReported)], 0);
}

INSTANTIATE_TEST_SUITE_P(Samples, DamageCatalogueTest,
                         testing::ValuesIn(AllSamples()),
                         [](const testing::TestParamInfo<SampleKind>& info) {
                           return info.param.kind + "_" + info.param.codec;
                         });

}  // namespace
}  // namespace loaderx::damage
