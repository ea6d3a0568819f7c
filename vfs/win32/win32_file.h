// `Win32File`: a `VfsFile` over a Win32 file handle, and the one place that
// says how such handles are opened and locked.
//
// - Handles are asynchronous (`FILE_FLAG_OVERLAPPED`): every read and write
//   names its offset in an `OVERLAPPED` and waits for its own completion, so
//   calls from many threads on one handle run in parallel (Windows
//   serialises all I/O on a synchronous handle) and no file pointer is
//   shared. Short transfers are continued; requests are issued in pieces of
//   at most 1 GiB (a transfer's length is 32-bit).
// - Every handle shares reading, writing and deletion with every other
//   handle, as POSIX descriptors do: excluding another store is the lock's
//   job, and a file can be removed or renamed while open.
// - `TryLock` and `TryLockShared` take an exclusive or a shared `LockFileEx`
//   lock on one byte at `kLockByte`, far past any data. Windows byte-range
//   locks are mandatory (a locked range cannot be read or written through
//   other handles), so a lock on the data itself would break readers; a
//   byte no I/O touches excludes lockers only. Shared locks on it coexist
//   and exclude the exclusive one. A lock belongs to the handle: a second
//   handle in the same process is refused like another process.
// - `MapReadOnly` maps a view (`CreateFileMappingW(PAGE_READONLY)` +
//   `MapViewOfFile`) of the range rounded out to the allocation
//   granularity; the view keeps the mapping alive after the handle closes.
//   While a view is mapped Windows refuses to truncate the file below it.
// - `SyncData` and `Sync` are both `FlushFileBuffers`, which writes data
//   and metadata (Win32 has no data-only flush).
// - Handles are not inherited by child processes.

#ifndef LOADERX_VFS_WIN32_WIN32_FILE_H_
#define LOADERX_VFS_WIN32_WIN32_FILE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loaderx/vfs.h"
#include "vfs/win32/windows_include.h"

namespace loaderx {

// How a handle is opened for an `OpenMode`: the access it asks for, what
// happens when the file exists or not (`CreateFileW`'s creation
// disposition), and whether writes are allowed through it.
struct Win32OpenFlags {
  DWORD access;
  DWORD creation;
  bool writable;
};
Win32OpenFlags OpenFlagsFor(OpenMode mode);

// Shared by every handle the VFS opens, files and directories alike.
inline constexpr DWORD kShareAll =
    FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;
inline constexpr DWORD kFileFlags =
    FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OVERLAPPED;

// The byte `TryLock` locks: the last one a signed 64-bit offset can name,
// where no file's data ever is.
inline constexpr uint64_t kLockByte = (uint64_t{1} << 63) - 2;

class Win32File final : public VfsFile {
 public:
  // Takes ownership of `handle`, opened with `kFileFlags`.
  Win32File(std::string path, HANDLE handle, bool writable);
  ~Win32File() override;

  const std::string& path() const override { return path_; }
  absl::Status ReadAt(uint64_t offset, absl::Span<char> dst) const override;
  absl::Status WriteAt(uint64_t offset, absl::string_view data) override;
  absl::Status WriteVectorAt(
      uint64_t offset, absl::Span<const absl::string_view> pieces) override;
  absl::StatusOr<uint64_t> Size() const override;
  absl::Status Truncate(uint64_t size) override;
  absl::Status SyncData() override { return Flush(); }
  absl::Status Sync() override { return Flush(); }
  absl::Status TryLock() override { return Lock(/*shared=*/false); }
  absl::Status TryLockShared() override { return Lock(/*shared=*/true); }
  absl::StatusOr<std::unique_ptr<MappedRegion>> MapReadOnly(
      uint64_t offset, uint64_t length) const override;

 private:
  enum class Held { kNone, kShared, kExclusive };

  absl::Status CheckWrite(uint64_t offset, uint64_t size) const;
  absl::Status WriteAll(uint64_t offset, absl::string_view data);
  absl::Status Flush();
  absl::Status Lock(bool shared);

  const std::string path_;
  const HANDLE handle_;
  const bool writable_;

  std::mutex lock_mu_;
  Held held_ ABSL_GUARDED_BY(lock_mu_) = Held::kNone;
};

}  // namespace loaderx

#endif  // LOADERX_VFS_WIN32_WIN32_FILE_H_
