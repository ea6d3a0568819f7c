// `Vfs` is the filesystem the engine runs on. Everything a store does to
// storage goes through a `Vfs` and the `VfsFile` handles it opens: positional
// reads and writes of whole byte ranges, a vectored positional write for the
// raw flush path, size/truncate/sync, a lifetime lock (exclusive for a
// writer, shared for readers), an optional read-only memory mapping, and the
// few directory operations a store needs (and whether syncs may overlap). The
// engine never touches the OS directly, so a test swaps in the in-memory or
// fault-injecting VFS and a user registers their own (see `vfs_registry.h`).
//
// Paths are plain strings handed to the implementation unchanged; the engine
// builds them with `/` as the separator. Every fallible method returns an
// `absl::Status` whose message names the operation and the path, and whose
// code follows one table for every implementation:
//
// clang-format off
//   NotFound            the file or directory does not exist
//   AlreadyExists       `kCreateExclusive` or `CreateDirectory` on a path
//                       that exists
//   OutOfRange          `ReadAt` past the end of the file
//   Unavailable + busy  `TryLock`/`TryLockShared` on a file another handle
//                       holds in a conflicting mode (`IsBusy`)
//   InvalidArgument     a malformed request (offset + size overflows)
//   FailedPrecondition  the wrong kind of object: a directory, FIFO, device
//                       or socket opened as a file (refused without
//                       blocking), a directory removed or renamed as a
//                       file, a file used as a directory anywhere in a path,
//                       a non-empty directory removed; a symlink loop in
//                       a path; a write through a
//                       read-only handle; a lock of the other mode asked of
//                       a handle that already holds one
//   Unimplemented       an optional capability this VFS does not have
//                       (`MapReadOnly`, `TryLockShared`,
//                       `ModificationStamp`, `AvailableBytes`)
//   PermissionDenied    the OS refused access
//   ResourceExhausted   the device is full (ENOSPC) or the user's quota
//                       is used up (EDQUOT)
//   DataLoss, Internal, Unknown
//                       the device or the OS failed otherwise
// clang-format on

#ifndef LOADERX_VFS_H_
#define LOADERX_VFS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace loaderx {

// How `Vfs::Open` treats an existing or missing file.
enum class OpenMode {
  kReadOnly,         // Must exist; writes fail with FailedPrecondition.
  kReadWrite,        // Must exist.
  kCreate,           // Read-write; created empty if missing.
  kCreateExclusive,  // Read-write; AlreadyExists if the path exists.
};

// A read-only view of a byte range of a file, made by
// `VfsFile::MapReadOnly`. `data()` stays valid and unchanged in size for the
// region's whole lifetime, also after the file handle that made it is
// closed. Bytes of the range that are written after the region was made may
// or may not show through it (a POSIX mapping shows them, the memory VFS's
// copy-on-write snapshot does not), so callers map only bytes they will not
// change while mapped. Destroying the region unmaps it. Thread-safe to read.
class MappedRegion {
 public:
  MappedRegion() = default;
  MappedRegion(const MappedRegion&) = delete;
  MappedRegion& operator=(const MappedRegion&) = delete;
  virtual ~MappedRegion() = default;

  // The mapped bytes: exactly the range that was asked for.
  virtual absl::string_view data() const = 0;
};

// An open file. All offsets are absolute; there is no file position, so one
// handle may be shared by many threads: concurrent `ReadAt` calls are always
// safe, and concurrent writes to disjoint ranges are safe. Ordering between
// overlapping concurrent writes, or a read overlapping a concurrent write, is
// unspecified (as with `pread`/`pwrite`). Destroying the handle closes the
// file and releases its lock; it must outlive every call made through it.
class VfsFile {
 public:
  VfsFile() = default;
  VfsFile(const VfsFile&) = delete;
  VfsFile& operator=(const VfsFile&) = delete;
  virtual ~VfsFile() = default;

  // The path this handle was opened with.
  virtual const std::string& path() const = 0;

  // Fills all of `dst` with the bytes at `[offset, offset + dst.size())`.
  // Returns OutOfRange, naming how many bytes were available, when the file
  // ends before the range does; `dst` is then unspecified. An empty `dst`
  // succeeds at any offset.
  ABSL_MUST_USE_RESULT virtual absl::Status ReadAt(
      uint64_t offset, absl::Span<char> dst) const = 0;

  // Writes all of `data` at `offset`, extending the file if needed (a gap
  // between the old end and `offset` reads back as zeros). Loops over short
  // writes; on error some prefix of the range may have been written.
  ABSL_MUST_USE_RESULT virtual absl::Status WriteAt(uint64_t offset,
                                                    absl::string_view data) = 0;

  // Writes `pieces` back to back starting at `offset`, as one logical write
  // (`pwritev`). Any number of pieces is accepted: implementations split the
  // request into batches their OS allows (`IOV_MAX`). Empty pieces are fine.
  ABSL_MUST_USE_RESULT virtual absl::Status WriteVectorAt(
      uint64_t offset, absl::Span<const absl::string_view> pieces) = 0;

  // The file's current size in bytes.
  virtual absl::StatusOr<uint64_t> Size() const = 0;

  // Sets the size to `size`, dropping bytes past it or zero-extending.
  ABSL_MUST_USE_RESULT virtual absl::Status Truncate(uint64_t size) = 0;

  // Makes the file at least `bytes` long with its blocks allocated, so
  // that later writes inside them need no free space (`posix_fallocate`):
  // ResourceExhausted if the device cannot hold them. Never shrinks the
  // file; the new bytes read as zeros. The default extends the size with
  // `Truncate`, which on a sparse filesystem reserves nothing.
  ABSL_MUST_USE_RESULT virtual absl::Status Allocate(uint64_t bytes);

  // Makes every completed write durable: `SyncData` covers the contents and
  // the size (`fdatasync`), `Sync` additionally the rest of the metadata
  // (`fsync`). Neither makes the file's directory entry durable; see
  // `Vfs::SyncDirectory`.
  ABSL_MUST_USE_RESULT virtual absl::Status SyncData() = 0;
  ABSL_MUST_USE_RESULT virtual absl::Status Sync() = 0;

  // Takes an exclusive advisory lock on the file without blocking. The lock
  // is held until this handle is destroyed and excludes every other handle,
  // in this process or another, that asks for a lock of either mode. Returns
  // an `IsBusy` status if another handle holds a lock; calling it again on a
  // handle that already holds the exclusive lock succeeds, on one that holds
  // the shared lock is FailedPrecondition (locks are never converted). Works
  // on handles of every `OpenMode`.
  ABSL_MUST_USE_RESULT virtual absl::Status TryLock() = 0;

  // Takes a shared advisory lock without blocking: any number of handles may
  // hold it at once, and it excludes the exclusive lock (the readers of a
  // store against its writer). `IsBusy` if another handle holds the
  // exclusive lock; again on a handle holding the shared lock succeeds, on
  // one holding the exclusive lock is FailedPrecondition. Works on
  // `kReadOnly` handles, so readers need no write access. A VFS without
  // shared locks returns Unimplemented (the default).
  ABSL_MUST_USE_RESULT virtual absl::Status TryLockShared();

  // Maps `[offset, offset + length)` for reading (see `MappedRegion`).
  // OutOfRange if the range runs past the end of the file; an empty range
  // gives an empty region. A VFS that cannot map returns Unimplemented (the
  // default), and callers fall back to `ReadAt`.
  virtual absl::StatusOr<std::unique_ptr<MappedRegion>> MapReadOnly(
      uint64_t offset, uint64_t length) const;

  // When the file's contents last changed, through any handle or process:
  // a value that a later write or truncation never makes smaller and makes
  // larger unless both land within one tick of a coarse filesystem clock
  // (POSIX: the modification time in nanoseconds). Copying a file without
  // keeping its times gives it a larger value. The store uses it to notice
  // that another program wrote meta.zr since this library last did. A VFS
  // without such a clock returns Unimplemented (the default).
  virtual absl::StatusOr<uint64_t> ModificationStamp() const;
};

// A filesystem. Implementations are thread-safe: every method may be called
// concurrently from any thread, and a `Vfs` must outlive every `VfsFile` it
// opened.
class Vfs {
 public:
  Vfs() = default;
  Vfs(const Vfs&) = delete;
  Vfs& operator=(const Vfs&) = delete;
  virtual ~Vfs() = default;

  // Opens `path` as described by `mode`. The parent directory must exist
  // (NotFound otherwise). Anything but a regular file (a directory, FIFO,
  // device or socket) fails with FailedPrecondition, without blocking.
  virtual absl::StatusOr<std::unique_ptr<VfsFile>> Open(absl::string_view path,
                                                        OpenMode mode) = 0;

  // Removes a file. Open handles to it stay usable until destroyed.
  ABSL_MUST_USE_RESULT virtual absl::Status Remove(absl::string_view path) = 0;

  // Atomically renames a file, replacing `to` if it is an existing file.
  // Renaming a directory, or onto one, is FailedPrecondition.
  ABSL_MUST_USE_RESULT virtual absl::Status Rename(absl::string_view from,
                                                   absl::string_view to) = 0;

  // The names (not paths) of the entries of directory `path`, files and
  // directories alike, sorted, without "." and "..".
  virtual absl::StatusOr<std::vector<std::string>> List(
      absl::string_view path) = 0;

  // Creates one directory; its parent must exist. AlreadyExists if `path`
  // exists (as a file or a directory).
  ABSL_MUST_USE_RESULT virtual absl::Status CreateDirectory(
      absl::string_view path) = 0;

  // Removes an empty directory (FailedPrecondition if it has entries).
  ABSL_MUST_USE_RESULT virtual absl::Status RemoveDirectory(
      absl::string_view path) = 0;

  // Whether a file or directory exists at `path`. An error means the answer
  // is unknown (e.g. PermissionDenied on a parent), not that it is absent.
  virtual absl::StatusOr<bool> Exists(absl::string_view path) = 0;

  // Makes the creation, removal and renaming of entries in directory `path`
  // durable (`fsync` on the directory).
  ABSL_MUST_USE_RESULT virtual absl::Status SyncDirectory(
      absl::string_view path) = 0;

  // The bytes an unprivileged writer may still put on the filesystem that
  // holds `path` (`statvfs`'s `f_bavail`; under a quota, the OS may refuse
  // sooner). An estimate: others write too. A VFS that cannot tell returns
  // Unimplemented (the default), and callers then assume there is room.
  virtual absl::StatusOr<uint64_t> AvailableBytes(absl::string_view path);

  // Whether the engine should issue syncs of different files and
  // directories from several threads at once when their order does not
  // matter, so that their device flushes overlap (each still returns only
  // when its own file is durable). True by default; false where overlapping
  // gains nothing (syncs that do nothing) or where every run must make its
  // calls in the same order (a VFS that counts calls to fail the n-th).
  virtual bool ConcurrentSyncs() const { return true; }
};

// The status `VfsFile::TryLock` returns when another handle holds the lock:
// code Unavailable, tagged so `IsBusy` recognises it.
absl::Status BusyError(absl::string_view path);

// Whether `status` says a lock is held elsewhere (a store held by another
// handle or process).
bool IsBusy(const absl::Status& status);

// The errors every implementation reports alike, so messages read the same
// whichever VFS is underneath: a read that runs past the end of the file
// (OutOfRange, naming how many bytes were available from `offset`) and a
// write through a handle opened `kReadOnly` (FailedPrecondition).
absl::Status ReadPastEndError(absl::string_view path, uint64_t offset,
                              uint64_t wanted, uint64_t available);
absl::Status ReadOnlyHandleError(absl::string_view path);

// The FailedPrecondition `TryLock`/`TryLockShared` return on a handle that
// already holds a lock of the other mode.
absl::Status LockModeConflictError(absl::string_view path, bool holds_shared);

// Reads the whole file at `path`. Convenience over `Open` + `Size` + `ReadAt`.
absl::StatusOr<std::string> ReadFileToString(Vfs& vfs, absl::string_view path);

// Creates or replaces the file at `path` with `contents`; with `sync`, also
// makes the contents durable (`Sync`) before returning.
ABSL_MUST_USE_RESULT absl::Status WriteStringToFile(Vfs& vfs,
                                                    absl::string_view path,
                                                    absl::string_view contents,
                                                    bool sync = false);

}  // namespace loaderx

#endif  // LOADERX_VFS_H_
