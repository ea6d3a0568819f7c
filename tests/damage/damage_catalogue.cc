#include "tests/damage/damage_catalogue.h"

#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "tests/damage/capped_subprocess.h"
#include "tests/damage/damage_cases.h"
#include "tests/damage/file_edits.h"

namespace loaderx::damage {

int CatalogueResult::failures() const {
  int failures = 0;
  for (int i = 0; i < kOutcomeCount; ++i) {
    if (IsFailure(static_cast<Outcome>(i))) failures += counts[i];
  }
  return failures;
}

std::vector<SampleKind> AllSamples() {
  std::vector<SampleKind> samples;
  for (const char* kind : {"dense", "ragged"}) {
    for (const char* codec : {"raw", "zstd", "zstd_dict"}) {
      samples.push_back({kind, codec});
    }
  }
  return samples;
}

absl::StatusOr<CatalogueResult> RunCatalogue(const SampleKind& sample,
                                             const std::string& work_dir,
                                             const CatalogueLimits& limits) {
  const std::string base = absl::StrCat(
      work_dir, "/", absl::StrReplaceAll(sample.Name(), {{"/", "-"}}));
  if (absl::Status removed = RemoveTree(base); !removed.ok()) return removed;
  std::filesystem::create_directories(base);
  const std::string pristine = base + "/pristine";
  // The sample is written in a child, so this process starts no threads.
  const ProbeResult created = RunCapped(
      [&] {
        absl::Status status = CreateSampleStore(sample, pristine);
        return ProbeResult{
            status.ok() ? Outcome::kCorrectData : Outcome::kCrash,
            status.ToString()};
      },
      limits.seconds, limits.address_space);
  if (created.outcome != Outcome::kCorrectData) {
    return absl::InternalError(absl::StrCat("creating the ", sample.Name(),
                                            " sample: ", created.detail));
  }

  CatalogueResult result;
  result.sample = sample;
  const std::string store = base + "/store";
  const std::string scratch = base + "/scratch";
  const std::vector<DamageCase> cases = DamageCases(sample.kind, pristine);
  // The undamaged store first: the probe must find it correct.
  std::vector<DamageCase> all = {{"none", "undamaged", nullptr}};
  all.insert(all.end(), cases.begin(), cases.end());
  for (size_t i = 0; i < all.size(); ++i) {
    const DamageCase& damage = all[i];
    if (i > 0 && ((i - 1) % limits.parts != static_cast<size_t>(limits.part) ||
                  (i - 1) / limits.parts % limits.every != 0)) {
      continue;
    }
    if (absl::Status s = RemoveTree(store); !s.ok()) return s;
    if (absl::Status s = RemoveTree(scratch); !s.ok()) return s;
    std::filesystem::create_directories(scratch);
    if (absl::Status s = CopyStoreDirectory(pristine, store); !s.ok()) {
      return s;
    }
    if (damage.apply) {
      if (absl::Status s = damage.apply(store, scratch); !s.ok()) {
        return absl::InternalError(
            absl::StrCat("applying '", damage.name, "': ", s.ToString()));
      }
    }
    ProbeResult probe =
        RunCapped([&] { return ProbeStore(sample.kind, store); },
                  limits.seconds, limits.address_space);
    if (damage.group == "none" && probe.outcome != Outcome::kCorrectData) {
      return absl::InternalError(
          absl::StrCat("the undamaged ", sample.Name(), " sample probes as ",
                       OutcomeName(probe.outcome), ": ", probe.detail));
    }
    ++result.counts[static_cast<int>(probe.outcome)];
    result.cases.push_back({damage.group, damage.name, std::move(probe)});
  }
  if (absl::Status s = RemoveTree(base); !s.ok()) return s;
  return result;
}

std::string MarkdownTable(const std::vector<CatalogueResult>& results) {
  std::string table = "| store | cases";
  std::string rule = "|---|---:";
  for (int i = 0; i < kOutcomeCount; ++i) {
    absl::StrAppend(&table, " | ", OutcomeName(static_cast<Outcome>(i)));
    rule += "|---:";
  }
  absl::StrAppend(&table, " |\n", rule, "|\n");
  std::array<int, kOutcomeCount> totals{};
  size_t cases = 0;
  for (const CatalogueResult& result : results) {
    absl::StrAppend(&table, "| ", result.sample.Name(), " | ",
                    result.cases.size());
    for (int i = 0; i < kOutcomeCount; ++i) {
      absl::StrAppend(&table, " | ", result.counts[i]);
      totals[i] += result.counts[i];
    }
    cases += result.cases.size();
    table += " |\n";
  }
  absl::StrAppend(&table, "| **all** | **", cases, "**");
  for (int total : totals) absl::StrAppend(&table, " | **", total, "**");
  table += " |\n";
  return table;
}

}  // namespace loaderx::damage
