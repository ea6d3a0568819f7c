// The "posix" VFS: the real filesystem through positional system calls.
//
// - Reads and writes are `pread`/`pwrite`/`pwritev`, looped over short
//   transfers and retried on `EINTR`; a `pwritev` request is split into
//   batches of at most `IOV_MAX` pieces.
// - `SyncData` is `fdatasync`, `Sync` is `fsync`, `SyncDirectory` is `fsync`
//   on the directory.
// - `TryLock` is `flock(LOCK_EX | LOCK_NB)`, `TryLockShared` is
//   `flock(LOCK_SH | LOCK_NB)`. `flock` locks belong to the open file
//   description, so they exclude a second handle in the same process as well
//   as other processes (an `fcntl` lock would not), they work on read-only
//   descriptors, and they are released when the descriptor is closed.
// - `MapReadOnly` is `mmap(PROT_READ, MAP_SHARED)` of the page-aligned range
//   covering the request, after checking the file is long enough (touching a
//   mapped page past the end of a file raises SIGBUS). A range that spans a
//   transparent huge page (2 MiB on x86-64) is placed at an address that
//   lies as far into a huge page as its file offset does (`PlaceMapping`),
//   so the kernel can map the file's huge page-cache folios whole.
// - Every descriptor is opened `O_CLOEXEC`, and `O_NONBLOCK` until `fstat`
//   has shown it is a regular file: opening a FIFO must not wait for a
//   writer.

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "loaderx/spi/path.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"

namespace loaderx {
namespace {

// An error naming the operation, the path and the OS's reason.
absl::Status PosixError(absl::string_view operation, absl::string_view path,
                        int error_number) {
  // A symlink loop (or a chain too long to follow) is a path naming the
  // wrong kind of object, not an unknown failure (vfs.h's table).
  if (error_number == ELOOP) {
    return absl::FailedPreconditionError(absl::StrCat(
        operation, " ", path, ": too many levels of symbolic links"));
  }
  return absl::ErrnoToStatus(error_number, absl::StrCat(operation, " ", path));
}

// Rejects ranges whose end does not fit in `off_t`.
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

class PosixFile final : public VfsFile {
 public:
  PosixFile(std::string path, int fd, bool writable)
      : path_(std::move(path)), fd_(fd), writable_(writable) {}
  ~PosixFile() override { ::close(fd_); }

  const std::string& path() const override { return path_; }

  absl::Status ReadAt(uint64_t offset, absl::Span<char> dst) const override {
    LOADERX_RETURN_IF_ERROR(CheckRange("read", path_, offset, dst.size()));
    size_t done = 0;
    while (done < dst.size()) {
      ssize_t n = ::pread(fd_, dst.data() + done, dst.size() - done,
                          static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return PosixError("read", path_, errno);
      }
      if (n == 0) {
        return ReadPastEndError(path_, offset, dst.size(), done);
      }
      done += static_cast<size_t>(n);
    }
    return absl::OkStatus();
  }

  absl::Status WriteAt(uint64_t offset, absl::string_view data) override {
    LOADERX_RETURN_IF_ERROR(CheckWrite(offset, data.size()));
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::pwrite(fd_, data.data() + done, data.size() - done,
                           static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return PosixError("write", path_, errno);
      }
      if (n == 0) return NoProgressError("write", offset + done);
      done += static_cast<size_t>(n);
    }
    return absl::OkStatus();
  }

  absl::Status WriteVectorAt(
      uint64_t offset, absl::Span<const absl::string_view> pieces) override {
    uint64_t total = 0;
    for (absl::string_view piece : pieces) total += piece.size();
    LOADERX_RETURN_IF_ERROR(CheckWrite(offset, total));

    // `iov` holds the pieces not yet fully written, the first one advanced
    // past whatever a short write already covered.
    std::vector<iovec> iov;
    iov.reserve(pieces.size());
    for (absl::string_view piece : pieces) {
      if (!piece.empty()) {
        iov.push_back({const_cast<char*>(piece.data()), piece.size()});
      }
    }
    size_t first = 0;
    while (first < iov.size()) {
      const int count =
          static_cast<int>(std::min<size_t>(iov.size() - first, IOV_MAX));
      ssize_t n =
          ::pwritev(fd_, &iov[first], count, static_cast<off_t>(offset));
      if (n < 0) {
        if (errno == EINTR) continue;
        return PosixError("vectored write", path_, errno);
      }
      if (n == 0) return NoProgressError("vectored write", offset);
      offset += static_cast<uint64_t>(n);
      size_t advanced = static_cast<size_t>(n);
      while (advanced > 0 && advanced >= iov[first].iov_len) {
        advanced -= iov[first].iov_len;
        ++first;
      }
      if (advanced > 0) {
        iov[first].iov_base =
            static_cast<char*>(iov[first].iov_base) + advanced;
        iov[first].iov_len -= advanced;
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<uint64_t> Size() const override {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return PosixError("stat", path_, errno);
    return static_cast<uint64_t>(st.st_size);
  }

  absl::StatusOr<uint64_t> ModificationStamp() const override {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return PosixError("stat", path_, errno);
    return static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000u +
           static_cast<uint64_t>(st.st_mtim.tv_nsec);
  }

  absl::Status Truncate(uint64_t size) override {
    LOADERX_RETURN_IF_ERROR(CheckWrite(size, 0));
    while (::ftruncate(fd_, static_cast<off_t>(size)) != 0) {
      if (errno != EINTR) return PosixError("truncate", path_, errno);
    }
    return absl::OkStatus();
  }

  absl::Status Allocate(uint64_t bytes) override {
    LOADERX_RETURN_IF_ERROR(CheckWrite(bytes, 0));
#if defined(__linux__)
    LOADERX_ASSIGN_OR_RETURN(const uint64_t size, Size());
    if (size >= bytes) return absl::OkStatus();
    int error;
    do {
      error = ::posix_fallocate(fd_, static_cast<off_t>(size),
                                static_cast<off_t>(bytes - size));
    } while (error == EINTR);
    // A filesystem without allocation gets a plain extension.
    if (error == EOPNOTSUPP || error == EINVAL) return VfsFile::Allocate(bytes);
    if (error != 0) return PosixError("allocate", path_, error);
    return absl::OkStatus();
#else
    return VfsFile::Allocate(bytes);
#endif
  }

  absl::Status SyncData() override {
    while (::fdatasync(fd_) != 0) {
      if (errno != EINTR) return PosixError("fdatasync", path_, errno);
    }
    return absl::OkStatus();
  }

  absl::Status Sync() override {
    while (::fsync(fd_) != 0) {
      if (errno != EINTR) return PosixError("fsync", path_, errno);
    }
    return absl::OkStatus();
  }

  absl::Status TryLock() override { return Lock(/*shared=*/false); }
  absl::Status TryLockShared() override { return Lock(/*shared=*/true); }

  absl::StatusOr<std::unique_ptr<MappedRegion>> MapReadOnly(
      uint64_t offset, uint64_t length) const override;

 private:
  // A write that reports success but transfers nothing would loop forever.
  absl::Status NoProgressError(absl::string_view operation,
                               uint64_t offset) const {
    return absl::DataLossError(absl::StrCat(
        operation, " ", path_, ": no bytes written at offset ", offset));
  }

  absl::Status CheckWrite(uint64_t offset, uint64_t size) const {
    if (!writable_) return ReadOnlyHandleError(path_);
    return CheckRange("write", path_, offset, size);
  }

  absl::Status Lock(bool shared) {
    std::lock_guard guard(lock_mu_);
    if (held_ != Held::kNone) {
      if ((held_ == Held::kShared) == shared) return absl::OkStatus();
      return LockModeConflictError(path_, held_ == Held::kShared);
    }
    while (::flock(fd_, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
      if (errno == EWOULDBLOCK) return BusyError(path_);
      if (errno != EINTR) return PosixError("lock", path_, errno);
    }
    held_ = shared ? Held::kShared : Held::kExclusive;
    return absl::OkStatus();
  }

  enum class Held { kNone, kShared, kExclusive };

  const std::string path_;
  const int fd_;
  const bool writable_;
  std::mutex lock_mu_;
  Held held_ = Held::kNone;  // Guarded by `lock_mu_`.
};

// The transparent huge page size (the kernel's PMD mapping size), or 0 when
// the kernel does not say.
uint64_t HugePageBytes() {
  static const uint64_t bytes = [] {
    const int fd = ::open("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
                          O_RDONLY | O_CLOEXEC);
    if (fd < 0) return uint64_t{0};
    char text[32] = {};
    const ssize_t got = ::read(fd, text, sizeof(text) - 1);
    ::close(fd);
    if (got <= 0) return uint64_t{0};
    const uint64_t value = std::strtoull(text, nullptr, 10);
    // A power of two of sane size, or nothing.
    return value >= (64 << 10) && value <= (1 << 30) &&
                   (value & (value - 1)) == 0
               ? value
               : uint64_t{0};
  }();
  return bytes;
}

// An address range reserved (`PROT_NONE`, backing nothing) for a mapping
// that must start at `at`; empty (`at` null) where the kernel may choose.
struct Placement {
  uintptr_t at = 0;
  uintptr_t reserved_end = 0;
};

// Where to map `mapped` bytes of a file from page-aligned `file_offset`:
// anywhere for a range shorter than a huge page, else at an address inside
// a fresh reservation that is congruent to `file_offset` modulo the huge
// page size (the head of the reservation before it is released). Linux 6.x
// (ext4's and XFS's large folios) maps a 2 MiB page-cache folio with one
// page-table entry only where the address and the file offset agree that
// way, and with 512 elsewhere, where a random 4 KiB record costs a TLB miss
// and a page walk. If the reservation cannot be made, the kernel chooses.
Placement PlaceMapping(size_t mapped, uint64_t file_offset) {
  const uint64_t huge = HugePageBytes();
  if (huge == 0 || mapped < huge) return {};
  const size_t reserved = mapped + static_cast<size_t>(huge);
  void* reservation =
      ::mmap(nullptr, reserved, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reservation == MAP_FAILED) return {};
  const uintptr_t begin = reinterpret_cast<uintptr_t>(reservation);
  Placement placement;
  placement.at = begin + ((file_offset % huge) + huge - begin % huge) % huge;
  placement.reserved_end = begin + reserved;
  if (placement.at > begin) ::munmap(reservation, placement.at - begin);
  return placement;
}

// Releases what a mapping of `mapped` bytes at `placement.at` left of the
// reservation: the tail past its last page, or all of it if `mapped` is 0
// (the mapping failed).
void ReleaseReservation(const Placement& placement, size_t mapped,
                        uint64_t page) {
  if (placement.at == 0) return;
  const uintptr_t used = placement.at + (mapped + page - 1) / page * page;
  if (placement.reserved_end > used) {
    ::munmap(reinterpret_cast<void*>(used), placement.reserved_end - used);
  }
}

// An `mmap` of the page-aligned range around the bytes asked for.
class PosixMapping final : public MappedRegion {
 public:
  PosixMapping(void* base, size_t mapped, absl::string_view data)
      : base_(base), mapped_(mapped), data_(data) {}
  ~PosixMapping() override {
    if (base_ != nullptr) ::munmap(base_, mapped_);
  }
  absl::string_view data() const override { return data_; }

 private:
  void* const base_;  // Null for an empty region.
  const size_t mapped_;
  const absl::string_view data_;
};

absl::StatusOr<std::unique_ptr<MappedRegion>> PosixFile::MapReadOnly(
    uint64_t offset, uint64_t length) const {
  LOADERX_RETURN_IF_ERROR(CheckRange("map", path_, offset, length));
  LOADERX_ASSIGN_OR_RETURN(const uint64_t size, Size());
  if (offset > size || length > size - offset) {
    return absl::OutOfRangeError(absl::StrCat(
        "map ", path_, ": wanted ", length, " bytes at offset ", offset,
        " but the file ends after ", offset > size ? 0 : size - offset));
  }
  if (length == 0) {
    return std::make_unique<PosixMapping>(nullptr, 0, absl::string_view());
  }
  static const uint64_t kPage = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t start = offset / kPage * kPage;
  const size_t mapped = static_cast<size_t>(offset - start + length);
  const Placement placement = PlaceMapping(mapped, start);
  void* base = ::mmap(reinterpret_cast<void*>(placement.at), mapped, PROT_READ,
                      MAP_SHARED | (placement.at != 0 ? MAP_FIXED : 0), fd_,
                      static_cast<off_t>(start));
  const int map_error = errno;
  ReleaseReservation(placement, base == MAP_FAILED ? 0 : mapped, kPage);
  if (base == MAP_FAILED) return PosixError("map", path_, map_error);
  return std::make_unique<PosixMapping>(
      base, mapped,
      absl::string_view(static_cast<const char*>(base) + (offset - start),
                        static_cast<size_t>(length)));
}

class PosixVfs final : public Vfs {
 public:
  static constexpr char kName[] = "posix";

  absl::StatusOr<uint64_t> AvailableBytes(absl::string_view path) override {
    const std::string p(path);
    struct statvfs fs;
    int result;
    do {
      result = ::statvfs(p.c_str(), &fs);
    } while (result != 0 && errno == EINTR);
    if (result != 0) return PosixError("statvfs", p, errno);
    return static_cast<uint64_t>(fs.f_bavail) *
           static_cast<uint64_t>(fs.f_frsize);
  }

  absl::StatusOr<std::unique_ptr<VfsFile>> Open(absl::string_view path,
                                                OpenMode mode) override {
    LOADERX_RETURN_IF_ERROR(ValidatePath(path));
    std::string p(path);
    int flags = O_CLOEXEC | O_NONBLOCK;
    switch (mode) {
      case OpenMode::kReadOnly:
        flags |= O_RDONLY;
        break;
      case OpenMode::kReadWrite:
        flags |= O_RDWR;
        break;
      case OpenMode::kCreate:
        flags |= O_RDWR | O_CREAT;
        break;
      case OpenMode::kCreateExclusive:
        flags |= O_RDWR | O_CREAT | O_EXCL;
        break;
    }
    int fd;
    do {
      fd = ::open(p.c_str(), flags, 0644);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return PosixError("open", p, errno);

    // `open(O_RDONLY)` succeeds on a directory; a file handle on one is a
    // caller's mistake, reported before any read can return garbage.
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      const int error = errno;
      ::close(fd);
      return PosixError("stat", p, error);
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      return absl::FailedPreconditionError(
          absl::StrCat("open ", p, ": not a regular file"));
    }
    // O_NONBLOCK only kept a FIFO from blocking the open; regular files
    // ignore it, but clear it so the descriptor is plain.
    const int status_flags = ::fcntl(fd, F_GETFL);
    if (status_flags < 0 ||
        ::fcntl(fd, F_SETFL, status_flags & ~O_NONBLOCK) != 0) {
      const int error = errno;
      ::close(fd);
      return PosixError("fcntl", p, error);
    }
    return std::make_unique<PosixFile>(std::move(p), fd,
                                       mode != OpenMode::kReadOnly);
  }

  absl::Status Remove(absl::string_view path) override {
    LOADERX_RETURN_IF_ERROR(ValidatePath(path));
    std::string p(path);
    struct stat st;
    if (::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      return absl::FailedPreconditionError(
          absl::StrCat("remove ", p, ": is a directory (use RemoveDirectory)"));
    }
    if (::unlink(p.c_str()) != 0) return PosixError("remove", p, errno);
    return absl::OkStatus();
  }

  absl::Status Rename(absl::string_view from, absl::string_view to) override {
    LOADERX_RETURN_IF_ERROR(ValidatePath(from));
    LOADERX_RETURN_IF_ERROR(ValidatePath(to));
    std::string f(from), t(to);
    struct stat st;
    if (::lstat(f.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "rename ", f, " -> ", t, ": directories cannot be renamed"));
    }
    if (::rename(f.c_str(), t.c_str()) != 0) {
      return PosixError("rename", absl::StrCat(f, " -> ", t), errno);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<std::string>> List(
      absl::string_view path) override {
    LOADERX_RETURN_IF_ERROR(ValidatePath(path));
    std::string p(path);
    DIR* dir = ::opendir(p.c_str());
    if (dir == nullptr) return PosixError("list", p, errno);
    std::vector<std::string> names;
    errno = 0;
    while (struct dirent* entry = ::readdir(dir)) {
      absl::string_view name = entry->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
    }
    const int error = errno;
    ::closedir(dir);
    if (error != 0) return PosixError("list", p, error);
    std::sort(names.begin(), names.end());
    return names;
  }

  absl::Status CreateDirectory(absl::string_view path) override {
    LOADERX_RETURN_IF_ERROR(ValidatePath(path));
    std::string p(path);
    if (::mkdir(p.c_str(), 0755) != 0) {
      return PosixError("create directory", p, errno);
    }
    return absl::OkStatus();
  }

  absl::Status RemoveDirectory(absl::string_view path) override {
    LOADERX_RETURN_IF_ERROR(ValidatePath(path));
    std::string p(path);
    if (::rmdir(p.c_str()) != 0) {
      const int error = errno;
      // POSIX allows EEXIST for a non-empty directory; report both alike.
      if (error == ENOTEMPTY || error == EEXIST) {
        return absl::FailedPreconditionError(
            absl::StrCat("remove directory ", p, ": not empty"));
      }
      return PosixError("remove directory", p, error);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<bool> Exists(absl::string_view path) override {
    LOADERX_RETURN_IF_ERROR(ValidatePath(path));
    std::string p(path);
    struct stat st;
    if (::stat(p.c_str(), &st) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return PosixError("stat", p, errno);
  }

  absl::Status SyncDirectory(absl::string_view path) override {
    LOADERX_RETURN_IF_ERROR(ValidatePath(path));
    std::string p(path);
    int fd;
    do {
      fd = ::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return PosixError("open directory", p, errno);
    int result;
    do {
      result = ::fsync(fd);
    } while (result != 0 && errno == EINTR);
    const int error = errno;
    ::close(fd);
    if (result != 0) return PosixError("fsync directory", p, error);
    return absl::OkStatus();
  }
};

const VfsRegistration kRegistration(PosixVfs::kName, []() {
  return absl::StatusOr<std::unique_ptr<Vfs>>(std::make_unique<PosixVfs>());
});

}  // namespace
}  // namespace loaderx
