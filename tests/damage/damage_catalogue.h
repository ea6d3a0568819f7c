// The damage catalogue: for one sample store (kind x codec), creates it,
// then for every case of `DamageCases` damages a fresh copy and probes it
// (`ProbeStore`) in a subprocess of its own, under a time cap (alarm) and
// a memory cap (RLIMIT_AS; not under AddressSanitizer or ThreadSanitizer,
// whose shadow memory needs the address space), without
// CAP_DAC_OVERRIDE. A signal is `kCrash` (SIGALRM: `kTimeout`), an
// allocation failure `kMemoryCap`.
//
// The process that runs a catalogue must not have started loaderx's thread
// pool: every child is a fork of it, and starts its own.

#ifndef LOADERX_TESTS_DAMAGE_DAMAGE_CATALOGUE_H_
#define LOADERX_TESTS_DAMAGE_DAMAGE_CATALOGUE_H_

#include <array>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/damage/sample_store.h"
#include "tests/damage/store_probe.h"

namespace loaderx::damage {

struct CaseResult {
  std::string group;
  std::string name;
  ProbeResult probe;
};

struct CatalogueResult {
  SampleKind sample;
  std::vector<CaseResult> cases;
  std::array<int, kOutcomeCount> counts{};

  int failures() const;
};

struct CatalogueLimits {
  int seconds = 20;  // per case
  // RLIMIT_AS per case: 1 GiB, so that reading a 1 GiB metadata file whole
  // (the "huge" group) is a MEMORY CAP, not a success.
  uint64_t address_space = 1ull << 30;
  // Run only cases i with i % parts == part (the undamaged store always),
  // so one sample's cases can be spread over test shards.
  int part = 0;
  int parts = 1;
  // Of those, run only every `every`-th (ThreadSanitizer makes each fork
  // slow, and the catalogue's cases are single-threaded).
  int every = 1;
};

// Runs every case for `sample` in directories under `work_dir` (removed
// after each case). A failure to set up (create the sample, copy it, apply
// a case) is an error status.
absl::StatusOr<CatalogueResult> RunCatalogue(const SampleKind& sample,
                                             const std::string& work_dir,
                                             const CatalogueLimits& limits);

// The markdown table of `results`: one row per kind x codec, a column per
// outcome, and the total.
std::string MarkdownTable(const std::vector<CatalogueResult>& results);

// The samples: dense and ragged, each in raw, zstd and zstd_dict.
std::vector<SampleKind> AllSamples();

}  // namespace loaderx::damage

#endif  // LOADERX_TESTS_DAMAGE_DAMAGE_CATALOGUE_H_
