#include "vfs/win32/win32_file.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "loaderx/vfs.h"
#include "vfs/win32/win32_error.h"
#include "vfs/win32/windows_include.h"

namespace loaderx {
namespace {

// The most one `ReadFile`/`WriteFile` call is asked to move.
constexpr DWORD kMaxTransfer = DWORD{1} << 30;

// `WriteVectorAt` copies small pieces into a buffer of this size and writes
// it in one call, as `pwritev` would; larger pieces are written directly.
constexpr size_t kStagingBytes = size_t{1} << 20;

// Rejects ranges whose end does not fit in a signed 64-bit offset. Besides
// matching POSIX, this keeps every transfer clear of `kLockByte` and of
// the all-ones offset, which `WriteFile` reads as "append".
absl::Status CheckRange(absl::string_view operation, absl::string_view path,
                        uint64_t offset, uint64_t size) {
  constexpr uint64_t kMaxOffset = static_cast<uint64_t>(INT64_MAX);
  if (offset > kMaxOffset || size > kMaxOffset - offset) {
    return absl::InvalidArgumentError(
        absl::StrCat(operation, " ", path, ": range [", offset, ", +", size,
                     ") exceeds the largest file offset"));
  }
  return absl::OkStatus();
}

// A manual-reset event per thread, on which the thread waits for its own
// overlapped calls; made on first use, closed when the thread exits.
HANDLE ThreadEvent() {
  struct Event {
    HANDLE handle = ::CreateEventW(nullptr, TRUE, FALSE, nullptr);
    ~Event() {
      if (handle != nullptr) ::CloseHandle(handle);
    }
  };
  thread_local Event event;
  return event.handle;
}

OVERLAPPED OverlappedAt(uint64_t offset) {
  OVERLAPPED overlapped = {};
  overlapped.Offset = static_cast<DWORD>(offset);
  overlapped.OffsetHigh = static_cast<DWORD>(offset >> 32);
  overlapped.hEvent = ThreadEvent();
  return overlapped;
}

// Waits for an overlapped call that returned `started`; the error code, or
// ERROR_SUCCESS with the bytes moved in `*bytes`.
DWORD Complete(HANDLE handle, OVERLAPPED& overlapped, BOOL started,
               DWORD* bytes) {
  if (!started) {
    const DWORD error = ::GetLastError();
    if (error != ERROR_IO_PENDING) return error;
  }
  if (!::GetOverlappedResult(handle, &overlapped, bytes, TRUE)) {
    return ::GetLastError();
  }
  return ERROR_SUCCESS;
}

// One positional read or write of at most `kMaxTransfer` bytes.
DWORD TransferAt(HANDLE handle, bool write, uint64_t offset, char* data,
                 DWORD size, DWORD* bytes) {
  *bytes = 0;
  OVERLAPPED overlapped = OverlappedAt(offset);
  if (overlapped.hEvent == nullptr) return ::GetLastError();
  const BOOL started =
      write ? ::WriteFile(handle, data, size, nullptr, &overlapped)
            : ::ReadFile(handle, data, size, nullptr, &overlapped);
  return Complete(handle, overlapped, started, bytes);
}

DWORD Chunk(uint64_t remaining) {
  return static_cast<DWORD>(std::min<uint64_t>(remaining, kMaxTransfer));
}

}  // namespace

Win32OpenFlags OpenFlagsFor(OpenMode mode) {
  constexpr DWORD kReadWrite = GENERIC_READ | GENERIC_WRITE;
  switch (mode) {
    case OpenMode::kReadOnly:
      return {GENERIC_READ, OPEN_EXISTING, false};
    case OpenMode::kReadWrite:
      return {kReadWrite, OPEN_EXISTING, true};
    case OpenMode::kCreate:
      return {kReadWrite, OPEN_ALWAYS, true};
    case OpenMode::kCreateExclusive:
      return {kReadWrite, CREATE_NEW, true};
  }
  return {GENERIC_READ, OPEN_EXISTING, false};
}

Win32File::Win32File(std::string path, HANDLE handle, bool writable)
    : path_(std::move(path)), handle_(handle), writable_(writable) {}

Win32File::~Win32File() {
  {
    std::lock_guard<std::mutex> guard(lock_mu_);
    // Closing releases the lock too, but Windows may do that lazily;
    // unlocking first frees the store for the next opener at once.
    if (held_ != Held::kNone) {
      OVERLAPPED overlapped = OverlappedAt(kLockByte);
      ::UnlockFileEx(handle_, 0, 1, 0, &overlapped);
    }
  }
  ::CloseHandle(handle_);
}

absl::Status Win32File::ReadAt(uint64_t offset, absl::Span<char> dst) const {
  if (absl::Status s = CheckRange("read", path_, offset, dst.size()); !s.ok()) {
    return s;
  }
  size_t done = 0;
  while (done < dst.size()) {
    DWORD bytes = 0;
    const DWORD error =
        TransferAt(handle_, /*write=*/false, offset + done, dst.data() + done,
                   Chunk(dst.size() - done), &bytes);
    if (error == ERROR_HANDLE_EOF || (error == ERROR_SUCCESS && bytes == 0)) {
      return ReadPastEndError(path_, offset, dst.size(), done);
    }
    if (error != ERROR_SUCCESS) return Win32Error("read", path_, error);
    done += bytes;
  }
  return absl::OkStatus();
}

absl::Status Win32File::WriteAt(uint64_t offset, absl::string_view data) {
  if (absl::Status s = CheckWrite(offset, data.size()); !s.ok()) return s;
  return WriteAll(offset, data);
}

absl::Status Win32File::WriteAll(uint64_t offset, absl::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    DWORD bytes = 0;
    const DWORD error = TransferAt(handle_, /*write=*/true, offset + done,
                                   const_cast<char*>(data.data()) + done,
                                   Chunk(data.size() - done), &bytes);
    if (error != ERROR_SUCCESS) return Win32Error("write", path_, error);
    if (bytes == 0) {
      // Success without progress would loop forever.
      return absl::DataLossError(absl::StrCat(
          "write ", path_, ": no bytes written at offset ", offset + done));
    }
    done += bytes;
  }
  return absl::OkStatus();
}

absl::Status Win32File::WriteVectorAt(
    uint64_t offset, absl::Span<const absl::string_view> pieces) {
  uint64_t total = 0;
  for (absl::string_view piece : pieces) total += piece.size();
  if (absl::Status s = CheckWrite(offset, total); !s.ok()) return s;

  // Win32's gathering write (`WriteFileGather`) needs unbuffered,
  // page-aligned I/O, so pieces are written positionally, small ones
  // coalesced first. `staging` holds the bytes that end at `next`.
  std::string staging;
  uint64_t next = offset;
  auto flush_staging = [&]() -> absl::Status {
    if (staging.empty()) return absl::OkStatus();
    absl::Status status = WriteAll(next - staging.size(), staging);
    staging.clear();
    return status;
  };
  for (absl::string_view piece : pieces) {
    if (staging.size() + piece.size() > kStagingBytes) {
      if (absl::Status s = flush_staging(); !s.ok()) return s;
    }
    if (piece.size() >= kStagingBytes) {
      if (absl::Status s = WriteAll(next, piece); !s.ok()) return s;
    } else {
      if (staging.capacity() == 0) {
        staging.reserve(std::min<uint64_t>(total, kStagingBytes));
      }
      staging.append(piece.data(), piece.size());
    }
    next += piece.size();
  }
  return flush_staging();
}

absl::StatusOr<uint64_t> Win32File::Size() const {
  LARGE_INTEGER size;
  if (!::GetFileSizeEx(handle_, &size)) {
    return Win32Error("stat", path_, ::GetLastError());
  }
  return static_cast<uint64_t>(size.QuadPart);
}

absl::Status Win32File::Truncate(uint64_t size) {
  if (absl::Status s = CheckWrite(size, 0); !s.ok()) return s;
  // Positional, unlike `SetEndOfFile`, which would move the shared file
  // pointer.
  FILE_END_OF_FILE_INFO end_of_file;
  end_of_file.EndOfFile.QuadPart = static_cast<LONGLONG>(size);
  if (!::SetFileInformationByHandle(handle_, FileEndOfFileInfo, &end_of_file,
                                    sizeof(end_of_file))) {
    return Win32Error("truncate", path_, ::GetLastError());
  }
  return absl::OkStatus();
}

absl::Status Win32File::Flush() {
  if (writable_) {
    if (!::FlushFileBuffers(handle_)) {
      return Win32Error("flush", path_, ::GetLastError());
    }
    return absl::OkStatus();
  }
  // `FlushFileBuffers` needs write access; a write handle reopened from
  // this one flushes the same file (what `fsync` on a read-only descriptor
  // does on POSIX).
  HANDLE writer = ::ReOpenFile(handle_, GENERIC_WRITE, kShareAll, 0);
  if (writer == INVALID_HANDLE_VALUE) {
    return Win32Error("flush", path_, ::GetLastError());
  }
  const BOOL flushed = ::FlushFileBuffers(writer);
  const DWORD error = ::GetLastError();
  ::CloseHandle(writer);
  if (!flushed) return Win32Error("flush", path_, error);
  return absl::OkStatus();
}

absl::Status Win32File::Lock(bool shared) {
  std::lock_guard<std::mutex> guard(lock_mu_);
  // Windows refuses a second lock on a locked range even through the same
  // handle: the holder's repeated call is answered here.
  if (held_ != Held::kNone) {
    if ((held_ == Held::kShared) == shared) return absl::OkStatus();
    return LockModeConflictError(path_, held_ == Held::kShared);
  }
  OVERLAPPED overlapped = OverlappedAt(kLockByte);
  if (overlapped.hEvent == nullptr) {
    return Win32Error("lock", path_, ::GetLastError());
  }
  const DWORD flags =
      LOCKFILE_FAIL_IMMEDIATELY | (shared ? 0 : LOCKFILE_EXCLUSIVE_LOCK);
  DWORD unused = 0;
  const DWORD error =
      Complete(handle_, overlapped,
               ::LockFileEx(handle_, flags, 0, 1, 0, &overlapped), &unused);
  if (error == ERROR_LOCK_VIOLATION) return BusyError(path_);
  if (error != ERROR_SUCCESS) return Win32Error("lock", path_, error);
  held_ = shared ? Held::kShared : Held::kExclusive;
  return absl::OkStatus();
}

namespace {

// A view of the mapping around the bytes asked for.
class Win32Mapping final : public MappedRegion {
 public:
  Win32Mapping(const void* view, absl::string_view data)
      : view_(view), data_(data) {}
  ~Win32Mapping() override {
    if (view_ != nullptr) ::UnmapViewOfFile(view_);
  }
  absl::string_view data() const override { return data_; }

 private:
  const void* const view_;  // Null for an empty region.
  const absl::string_view data_;
};

uint64_t AllocationGranularity() {
  SYSTEM_INFO info;
  ::GetSystemInfo(&info);
  return info.dwAllocationGranularity;
}

}  // namespace

absl::StatusOr<std::unique_ptr<MappedRegion>> Win32File::MapReadOnly(
    uint64_t offset, uint64_t length) const {
  if (absl::Status s = CheckRange("map", path_, offset, length); !s.ok()) {
    return s;
  }
  absl::StatusOr<uint64_t> size = Size();
  if (!size.ok()) return size.status();
  if (offset > *size || length > *size - offset) {
    return absl::OutOfRangeError(absl::StrCat(
        "map ", path_, ": wanted ", length, " bytes at offset ", offset,
        " but the file ends after ", offset > *size ? 0 : *size - offset));
  }
  if (length == 0) {
    return std::make_unique<Win32Mapping>(nullptr, absl::string_view());
  }
  // Views start at a multiple of the allocation granularity (64 KiB).
  static const uint64_t kGranularity = AllocationGranularity();
  const uint64_t start = offset / kGranularity * kGranularity;
  const uint64_t mapped = offset - start + length;
  if (mapped > SIZE_MAX) {
    return absl::InvalidArgumentError(absl::StrCat(
        "map ", path_, ": ", length, " bytes do not fit in memory"));
  }
  // The mapping object spans the file as it is now; the view holds it
  // open, so it is closed at once.
  HANDLE mapping =
      ::CreateFileMappingW(handle_, nullptr, PAGE_READONLY, 0, 0, nullptr);
  if (mapping == nullptr) return Win32Error("map", path_, ::GetLastError());
  const void* view =
      ::MapViewOfFile(mapping, FILE_MAP_READ, static_cast<DWORD>(start >> 32),
                      static_cast<DWORD>(start), static_cast<SIZE_T>(mapped));
  const DWORD error = ::GetLastError();
  ::CloseHandle(mapping);
  if (view == nullptr) return Win32Error("map", path_, error);
  return std::make_unique<Win32Mapping>(
      view, absl::string_view(static_cast<const char*>(view) + (offset - start),
                              static_cast<size_t>(length)));
}

absl::Status Win32File::CheckWrite(uint64_t offset, uint64_t size) const {
  if (!writable_) return ReadOnlyHandleError(path_);
  return CheckRange("write", path_, offset, size);
}

}  // namespace loaderx
