// Prints the damage catalogue's table (markdown) for every kind x codec,
// and lists any failing case; exits non-zero if there is one.
//
//   bazel run -c opt //tests/damage:damage_table [-- --out=FILE] [--verbose]

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "tests/damage/damage_catalogue.h"
#include "tests/damage/file_edits.h"

int main(int argc, char** argv) {
  using namespace loaderx::damage;
  std::string out;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (absl::StartsWith(arg, "--out=")) out = arg.substr(6);
    if (arg == "--verbose") verbose = true;
  }
  const char* tmp = std::getenv("TMPDIR");
  const absl::StatusOr<std::string> made =
      MakeWorkDirectory(tmp != nullptr ? tmp : "/tmp");
  if (!made.ok()) {
    std::fprintf(stderr, "%s\n", made.status().ToString().c_str());
    return 2;
  }
  const std::string work = *made;
  std::vector<CatalogueResult> results;
  int failures = 0;
  for (const SampleKind& sample : AllSamples()) {
    absl::StatusOr<CatalogueResult> result =
        RunCatalogue(sample, work, CatalogueLimits{});
    if (!result.ok()) {
      std::fprintf(stderr, "%s\n", result.status().ToString().c_str());
      return 2;
    }
    for (const CaseResult& c : result->cases) {
      if (verbose || IsFailure(c.probe.outcome)) {
        std::printf("%s: %-12s %-56s %s  %s\n", sample.Name().c_str(),
                    c.group.c_str(), c.name.c_str(),
                    OutcomeName(c.probe.outcome), c.probe.detail.c_str());
      }
    }
    failures += result->failures();
    results.push_back(*std::move(result));
  }
  (void)RemoveTree(work);
  const std::string table = MarkdownTable(results);
  std::printf("%s", table.c_str());
  if (!out.empty()) std::ofstream(out) << table;
  return failures == 0 ? 0 : 1;
}
