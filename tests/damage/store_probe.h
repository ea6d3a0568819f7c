// What the damage catalogue does with a damaged sample store, and how it
// judges what it saw. Runs inside the case's subprocess (see
// `damage_runner.h`), through the public API only.
//
// 1. A read-only open (`TypedStore::OpenAny`); if it fails, the outcome is
//    `kOpenRefused`. Otherwise `Stats`, every record read alone and all of
//    them in one batch, and `Verify`.
// 2. A writable open of the same directory, the same reads, then an append,
//    a delete of record 0 and a compaction (each may fail cleanly), and a
//    read-only reopen whose records are checked again.
//
// A read that returns a status is fine; a read that returns bytes must
// return exactly the sample record of its index (before maintenance) or
// some sample record not returned twice (after). `Verify` must name every
// record whose read failed. After maintenance, no record that read back
// before may be missing unless a read now fails. Anything else is a
// `kWrongData` failure, with a line saying what.

#ifndef LOADERX_TESTS_DAMAGE_STORE_PROBE_H_
#define LOADERX_TESTS_DAMAGE_STORE_PROBE_H_

#include <string>

#include "tests/damage/sample_store.h"

namespace loaderx::damage {

enum class Outcome {
  // Clean: a status at open.
  kOpenRefused,
  // Clean: opened; every damaged record's read fails and `Verify` names it;
  // every other record reads back exactly.
  kDamageReported,
  // Clean: fewer records than the store had, every one read back exactly,
  // and `Verify` lists the missing ones as removed past the length (a
  // shortened meta.zr: another writer's delete, or damage).
  kShrinkReported,
  // Clean: every record reads back exactly and `Verify` finds nothing.
  kCorrectData,
  // As `kCorrectData`, but some records lost their checksum's authority
  // (`Verify` counts them unverified).
  kCorrectUnverified,
  // Failures.
  kWrongData,  // a silently wrong value, a lost record, a missed damage
  kCrash,      // a signal other than the time cap's
  kTimeout,    // the time cap
  kMemoryCap,  // an allocation past the memory cap
};
inline constexpr int kOutcomeCount = 9;

const char* OutcomeName(Outcome outcome);
bool IsFailure(Outcome outcome);

struct ProbeResult {
  Outcome outcome = Outcome::kCorrectData;
  std::string detail;  // the first status or mismatch seen
};

// Probes the store at `path` (a sample store of `kind`, maybe damaged).
ProbeResult ProbeStore(const std::string& kind, const std::string& path);

}  // namespace loaderx::damage

#endif  // LOADERX_TESTS_DAMAGE_STORE_PROBE_H_
