// What a directory holds, as far as creating a store in it goes: nothing
// (create afresh), an unfinished creation (take it over), or anything else
// (a store, a damaged store, files that are not a store's), which refuses
// the creation with AlreadyExists (the reference's -12) and is left as it
// is.
//
// A creation's commit point is store.zr, written last and synced (every
// 1.7.7 store has one), under a temporary name (store.zr.new) and renamed
// into place, so that it is whole or absent. Before it, a creation may
// leave meta.zr, 0.chunk, dict.zr, checksums.lx, journal.lx, store.zr.new
// (any part of it), and a store.zr that is not one: shorter than 32 bytes
// or not starting "LXST", what a creation that wrote store.zr in place
// (1.7.7, earlier builds) leaves when killed between creating the file and
// writing it. A store.zr that is one means a store, whatever else the
// directory holds. meta.zr may be:
//   - empty, or the header of no records (also what an empty engine with
//     no store.zr is; journal.lx may then be there too): unfinished;
//   - bytes that are not a header at all (no "ZREC" magic), where a power
//     cut garbled its unsynced write. A damaged header looks the same, so
//     this counts as unfinished only when the rest of the directory shows
//     that no record was ever committed there and that what was being made
//     was a typed store: no journal.lx, an empty 0.chunk (or none), no
//     more than 32 bytes of meta.zr, and a checksums.lx that is absent or
//     holds no record checksums, whose intact state (if any) is the one a
//     typed creation writes first (epoch 1, the checksum of a store.zr to
//     come, the header of no records) and whose intact seal names only
//     headers of no records.
// A meta.zr that starts with the magic but does not decode (another
// version, a torn header) is a header this build cannot read: refused.
// docs/design.md ("Unfinished creations") has the reasons.

#ifndef LOADERX_SRC_CREATION_SITE_H_
#define LOADERX_SRC_CREATION_SITE_H_

#include <string>

#include "absl/status/statusor.h"
#include "loaderx/vfs.h"

namespace loaderx {

enum class CreationSite {
  kEmpty,       // An empty directory: create afresh.
  kUnfinished,  // A creation that never reached store.zr: take it over.
};

// What `dir`/store.zr is, from its size and first bytes.
enum class TypedHeaderFile {
  kMissing,   // No store.zr (or no directory).
  kLeftover,  // Shorter than a typed header, or not starting as one.
  kPresent,   // Starts as a typed header (it may still be damaged).
};

// Reads at most 4 bytes of `dir`/store.zr. NotFound and FailedPrecondition
// (`dir` missing or a file) are kMissing; other VFS errors are returned.
absl::StatusOr<TypedHeaderFile> InspectTypedHeaderFile(Vfs& vfs,
                                                       const std::string& dir);

// Inspects `dir` (which exists) through `vfs`, reading and never writing.
// AlreadyExists naming the directory and the evidence for anything that is
// neither an empty directory nor an unfinished creation; the VFS's errors
// for failed reads.
absl::StatusOr<CreationSite> InspectCreationSite(Vfs& vfs,
                                                 const std::string& dir);

}  // namespace loaderx

#endif  // LOADERX_SRC_CREATION_SITE_H_
