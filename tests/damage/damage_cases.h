// The damage catalogue's cases: every way it damages a copy of a sample
// store's directory. `DamageCases` looks at the pristine store's files and
// lists, for each file (meta.zr, store.zr, dict.zr, checksums.lx,
// journal.lx, the table and the chunk):
//
//   field      every header field zeroed, maxed, low bit and high bit
//              flipped (the layouts of store_format.h, typed_header.h,
//              integrity_format.h, journal.h)
//   entry      every record-table entry's and checksum entry's fields, the
//              same four ways; adjacent entries swapped and duplicated
//   payload    every record's stored bytes: one byte flipped, all zeroed
//   journal    well-formed journal records that claim impossible steps
//   truncate   cut at 0, 1, the header's end, half, one short, and (the
//              chunk) at each record's start
//   extend     1 and 4096 bytes of garbage appended
//   file type  removed, replaced by a directory, a FIFO, a symlink to a
//              copy elsewhere, to /dev/zero, a dangling one, a loop
//   access     mode 000 and 0444 (the probe runs without
//              CAP_DAC_OVERRIDE, so this holds for root too)
//   directory  the store directory read-only, unreadable, a symlink to a
//              copy, replaced by a file
//   huge       store.zr, dict.zr, meta.zr and journal.lx grown to 1 GiB and
//              8 GiB (sparse, their bytes in front)
//
// In-place changes keep the file's modification time: damage, unlike a
// program writing the store, does not touch it.

#ifndef LOADERX_TESTS_DAMAGE_DAMAGE_CASES_H_
#define LOADERX_TESTS_DAMAGE_DAMAGE_CASES_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace loaderx::damage {

struct DamageCase {
  std::string group;  // "field", "entry", ... as above
  std::string name;   // e.g. "meta.zr length zeroed"
  // Damages the store directory `dir` (a copy of the pristine one);
  // `scratch` is a directory beside it for anything a case needs outside.
  std::function<absl::Status(const std::string& dir,
                             const std::string& scratch)>
      apply;
};

// Every case for the pristine store at `pristine` (a sample store of
// `kind`: "dense" or "ragged").
std::vector<DamageCase> DamageCases(const std::string& kind,
                                    const std::string& pristine);

}  // namespace loaderx::damage

#endif  // LOADERX_TESTS_DAMAGE_DAMAGE_CASES_H_
