// File operations of the damage catalogue on the real filesystem: copying
// a store directory with its files' modification times, and in-place edits
// that keep them (so an edit looks like damage, not like another program
// writing the store). Each returns an error naming the path.

#ifndef LOADERX_TESTS_DAMAGE_FILE_EDITS_H_
#define LOADERX_TESTS_DAMAGE_FILE_EDITS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace loaderx::damage {

// A new, empty directory for a catalogue's stores: under
// $LOADERX_DAMAGE_DIR if set, else under /dev/shm when it is a writable
// tmpfs (the cases sync often, and a sync there costs nothing, which makes
// the catalogue 15 times faster than on a busy disk), else under
// `fallback`.
absl::StatusOr<std::string> MakeWorkDirectory(const std::string& fallback);

// Copies directory `from` (regular files only) to `to`, which must not
// exist, keeping every file's modification time.
absl::Status CopyStoreDirectory(const std::string& from, const std::string& to);

// Removes `path` and everything under it, restoring write and search
// permission first where a case took it away.
absl::Status RemoveTree(const std::string& path);

absl::StatusOr<std::string> ReadBytes(const std::string& path);

// Writes `bytes` to `path`, creating or replacing the file.
absl::Status WriteBytes(const std::string& path, absl::string_view bytes);

// Replaces the contents of `path` with `bytes`, keeping its times.
absl::Status RewriteKeepingTimes(const std::string& path,
                                 absl::string_view bytes);

// Extends `path` to `size` bytes with a hole (no disk space used), its
// bytes kept in front, keeping its times.
absl::Status GrowSparseKeepingTimes(const std::string& path, uint64_t size);

}  // namespace loaderx::damage

#endif  // LOADERX_TESTS_DAMAGE_FILE_EDITS_H_
