// The "win32" VFS: the real filesystem through the wide-character Win32
// API, with the same contract and error codes as "posix" (loaderx/vfs.h).
//
// - Paths are UTF-8, converted to extended-length UTF-16 (`\\?\`, no
//   MAX_PATH limit) by `ToWin32Path`; `/` and `\` both separate.
// - File handles, their I/O, locks and mappings are `Win32File`
//   (win32_file.h); only disk files open, not devices.
// - `Remove` deletes with POSIX semantics where the file system offers them
//   (`FILE_DISPOSITION_FLAG_POSIX_SEMANTICS`, NTFS on Windows 10 1709 and
//   later): the name is gone at once while open handles stay usable.
//   Elsewhere (FAT, older Windows, Wine) the classic delete leaves the name
//   in place until the last handle closes, and creating it again fails
//   meanwhile.
// - `Rename` is `MoveFileExW(MOVEFILE_REPLACE_EXISTING |
//   MOVEFILE_WRITE_THROUGH)`: atomic on one volume, and durable when it
//   returns. Windows cannot replace a file that is open.
// - `SyncDirectory` flushes the directory handle (`FlushFileBuffers` on a
//   handle opened with `FILE_FLAG_BACKUP_SEMANTICS`). Where Windows refuses
//   to flush a directory (no write access to it, or a file system that
//   does not support it) it succeeds without flushing: NTFS journals
//   creations, removals and renames itself, and renames are write-through.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "vfs/win32/win32_error.h"
#include "vfs/win32/win32_file.h"
#include "vfs/win32/win32_path.h"
#include "vfs/win32/windows_include.h"

namespace loaderx {
namespace {

// `FileDispositionInfoEx` (21), which MinGW-w64's <minwinbase.h> declares
// only under a version guard no `_WIN32_WINNT` value satisfies.
constexpr FILE_INFO_BY_HANDLE_CLASS kFileDispositionInfoEx =
    static_cast<FILE_INFO_BY_HANDLE_CLASS>(21);

constexpr DWORD kNoAttributes = INVALID_FILE_ATTRIBUTES;

bool IsDirectory(DWORD attributes) {
  return attributes != kNoAttributes &&
         (attributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
}

DWORD AttributesOf(const std::wstring& path) {
  return ::GetFileAttributesW(path.c_str());
}

// Whether the nearest existing ancestor of `path` is a file, i.e. the path
// runs through a file as if it were a directory.
bool RunsThroughAFile(const std::wstring& path) {
  for (std::wstring parent = Win32ParentPath(path); !parent.empty();
       parent = Win32ParentPath(parent)) {
    const DWORD attributes = AttributesOf(parent);
    if (attributes != kNoAttributes) return !IsDirectory(attributes);
  }
  return false;
}

// `Win32Error`, after telling apart what Win32 reports alike: a missing
// directory from a file used as one (both ERROR_PATH_NOT_FOUND), and a
// refused access from a directory used as a file (both
// ERROR_ACCESS_DENIED).
absl::Status PathError(absl::string_view operation, absl::string_view path,
                       const std::wstring& wide, DWORD error) {
  if ((error == ERROR_PATH_NOT_FOUND || error == ERROR_DIRECTORY) &&
      RunsThroughAFile(wide)) {
    return absl::FailedPreconditionError(absl::StrCat(
        operation, " ", path, ": a component of the path is a file"));
  }
  if (error == ERROR_ACCESS_DENIED && IsDirectory(AttributesOf(wide))) {
    return absl::FailedPreconditionError(
        absl::StrCat(operation, " ", path, ": is a directory"));
  }
  return Win32Error(operation, path, error);
}

// Closes a handle when it goes out of scope.
class ScopedHandle {
 public:
  explicit ScopedHandle(HANDLE handle) : handle_(handle) {}
  ScopedHandle(const ScopedHandle&) = delete;
  ScopedHandle& operator=(const ScopedHandle&) = delete;
  ~ScopedHandle() {
    if (valid()) ::CloseHandle(handle_);
  }
  bool valid() const { return handle_ != INVALID_HANDLE_VALUE; }
  HANDLE get() const { return handle_; }

 private:
  HANDLE handle_;
};

class Win32Vfs final : public Vfs {
 public:
  static constexpr char kName[] = "win32";

  absl::StatusOr<std::unique_ptr<VfsFile>> Open(absl::string_view path,
                                                OpenMode mode) override {
    absl::StatusOr<std::wstring> wide = ToWin32Path(path);
    if (!wide.ok()) return Annotate("open", path, wide.status());
    const Win32OpenFlags flags = OpenFlagsFor(mode);
    HANDLE handle = ::CreateFileW(wide->c_str(), flags.access, kShareAll,
                                  nullptr, flags.creation, kFileFlags, nullptr);
    if (handle == INVALID_HANDLE_VALUE) {
      const DWORD error = ::GetLastError();
      if (mode == OpenMode::kCreateExclusive &&
          AttributesOf(*wide) != kNoAttributes) {
        return absl::AlreadyExistsError(
            absl::StrCat("open ", path, ": already exists"));
      }
      return PathError("open", path, *wide, error);
    }
    // A reserved name ("C:/data/NUL") resolves to a device, and `\\.\`
    // paths name devices and pipes: only files on a disk are files.
    if (::GetFileType(handle) != FILE_TYPE_DISK) {
      ::CloseHandle(handle);
      return absl::FailedPreconditionError(
          absl::StrCat("open ", path, ": not a regular file"));
    }
    return std::make_unique<Win32File>(std::string(path), handle,
                                       flags.writable);
  }

  absl::Status Remove(absl::string_view path) override {
    absl::StatusOr<std::wstring> wide = ToWin32Path(path);
    if (!wide.ok()) return Annotate("remove", path, wide.status());
    const DWORD attributes = AttributesOf(*wide);
    if (attributes == kNoAttributes) {
      return PathError("remove", path, *wide, ::GetLastError());
    }
    if (IsDirectory(attributes)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "remove ", path, ": is a directory (use RemoveDirectory)"));
    }
    ScopedHandle file(::CreateFileW(wide->c_str(), DELETE, kShareAll, nullptr,
                                    OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT,
                                    nullptr));
    if (!file.valid()) {
      return PathError("remove", path, *wide, ::GetLastError());
    }
    FILE_DISPOSITION_INFO_EX posix_delete = {};
    posix_delete.Flags = FILE_DISPOSITION_FLAG_DELETE |
                         FILE_DISPOSITION_FLAG_POSIX_SEMANTICS |
                         FILE_DISPOSITION_FLAG_IGNORE_READONLY_ATTRIBUTE;
    if (::SetFileInformationByHandle(file.get(), kFileDispositionInfoEx,
                                     &posix_delete, sizeof(posix_delete))) {
      return absl::OkStatus();
    }
    const DWORD error = ::GetLastError();
    if (error != ERROR_INVALID_PARAMETER && error != ERROR_NOT_SUPPORTED &&
        error != ERROR_INVALID_FUNCTION) {
      return Win32Error("remove", path, error);
    }
    // The file system has no POSIX semantics: the classic delete.
    FILE_DISPOSITION_INFO classic_delete = {};
    classic_delete.DeleteFile = TRUE;
    if (!::SetFileInformationByHandle(file.get(), FileDispositionInfo,
                                      &classic_delete,
                                      sizeof(classic_delete))) {
      return Win32Error("remove", path, ::GetLastError());
    }
    return absl::OkStatus();
  }

  absl::Status Rename(absl::string_view from, absl::string_view to) override {
    const std::string both = absl::StrCat(from, " -> ", to);
    absl::StatusOr<std::wstring> wide_from = ToWin32Path(from);
    if (!wide_from.ok()) return Annotate("rename", both, wide_from.status());
    absl::StatusOr<std::wstring> wide_to = ToWin32Path(to);
    if (!wide_to.ok()) return Annotate("rename", both, wide_to.status());
    const DWORD attributes = AttributesOf(*wide_from);
    if (attributes == kNoAttributes) {
      return PathError("rename", both, *wide_from, ::GetLastError());
    }
    if (IsDirectory(attributes)) {
      return absl::FailedPreconditionError(
          absl::StrCat("rename ", both, ": directories cannot be renamed"));
    }
    if (!::MoveFileExW(wide_from->c_str(), wide_to->c_str(),
                       MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
      const DWORD error = ::GetLastError();
      if (error == ERROR_ACCESS_DENIED && IsDirectory(AttributesOf(*wide_to))) {
        return absl::FailedPreconditionError(
            absl::StrCat("rename ", both, ": the destination is a directory"));
      }
      return PathError("rename", both, *wide_to, error);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<std::string>> List(
      absl::string_view path) override {
    absl::StatusOr<std::wstring> wide = ToWin32Path(path);
    if (!wide.ok()) return Annotate("list", path, wide.status());
    const DWORD attributes = AttributesOf(*wide);
    if (attributes == kNoAttributes) {
      return PathError("list", path, *wide, ::GetLastError());
    }
    if (!IsDirectory(attributes)) {
      return absl::FailedPreconditionError(
          absl::StrCat("list ", path, ": not a directory"));
    }
    std::wstring pattern = *wide;
    if (pattern.back() != L'\\') pattern += L'\\';
    pattern += L'*';
    WIN32_FIND_DATAW entry;
    HANDLE find = ::FindFirstFileExW(pattern.c_str(), FindExInfoBasic, &entry,
                                     FindExSearchNameMatch, nullptr,
                                     /*dwAdditionalFlags=*/0);
    std::vector<std::string> names;
    if (find == INVALID_HANDLE_VALUE) {
      const DWORD error = ::GetLastError();
      // A drive's root has no "." or "..": an empty one matches nothing.
      if (error == ERROR_FILE_NOT_FOUND) return names;
      return PathError("list", path, *wide, error);
    }
    DWORD error = ERROR_SUCCESS;
    for (;;) {
      const std::wstring_view name = entry.cFileName;
      if (name != L"." && name != L"..") {
        absl::StatusOr<std::string> utf8 = WideToUtf8(name);
        if (!utf8.ok()) {
          ::FindClose(find);
          return Annotate("list", path, utf8.status());
        }
        names.push_back(*std::move(utf8));
      }
      if (!::FindNextFileW(find, &entry)) {
        error = ::GetLastError();
        break;
      }
    }
    ::FindClose(find);
    if (error != ERROR_NO_MORE_FILES) return Win32Error("list", path, error);
    std::sort(names.begin(), names.end());
    return names;
  }

  absl::Status CreateDirectory(absl::string_view path) override {
    absl::StatusOr<std::wstring> wide = ToWin32Path(path);
    if (!wide.ok()) return Annotate("create directory", path, wide.status());
    if (!::CreateDirectoryW(wide->c_str(), nullptr)) {
      return PathError("create directory", path, *wide, ::GetLastError());
    }
    return absl::OkStatus();
  }

  absl::Status RemoveDirectory(absl::string_view path) override {
    absl::StatusOr<std::wstring> wide = ToWin32Path(path);
    if (!wide.ok()) return Annotate("remove directory", path, wide.status());
    const DWORD attributes = AttributesOf(*wide);
    if (attributes == kNoAttributes) {
      return PathError("remove directory", path, *wide, ::GetLastError());
    }
    if (!IsDirectory(attributes)) {
      return absl::FailedPreconditionError(
          absl::StrCat("remove directory ", path, ": not a directory"));
    }
    if (!::RemoveDirectoryW(wide->c_str())) {
      const DWORD error = ::GetLastError();
      if (error == ERROR_DIR_NOT_EMPTY) {
        return absl::FailedPreconditionError(
            absl::StrCat("remove directory ", path, ": not empty"));
      }
      return PathError("remove directory", path, *wide, error);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<uint64_t> AvailableBytes(absl::string_view path) override {
    absl::StatusOr<std::wstring> wide = ToWin32Path(path);
    if (!wide.ok()) return Annotate("free space of", path, wide.status());
    ULARGE_INTEGER available;
    if (!::GetDiskFreeSpaceExW(wide->c_str(), &available, nullptr, nullptr)) {
      return PathError("free space of", path, *wide, ::GetLastError());
    }
    return static_cast<uint64_t>(available.QuadPart);
  }

  absl::StatusOr<bool> Exists(absl::string_view path) override {
    absl::StatusOr<std::wstring> wide = ToWin32Path(path);
    if (absl::IsNotFound(wide.status())) return false;  // The empty path.
    if (!wide.ok()) return Annotate("stat", path, wide.status());
    if (AttributesOf(*wide) != kNoAttributes) return true;
    const DWORD error = ::GetLastError();
    if (error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND ||
        error == ERROR_DIRECTORY || error == ERROR_INVALID_DRIVE ||
        error == ERROR_BAD_NETPATH || error == ERROR_BAD_NET_NAME) {
      return false;
    }
    return Win32Error("stat", path, error);
  }

  absl::Status SyncDirectory(absl::string_view path) override {
    absl::StatusOr<std::wstring> wide = ToWin32Path(path);
    if (!wide.ok()) return Annotate("sync directory", path, wide.status());
    const DWORD attributes = AttributesOf(*wide);
    if (attributes == kNoAttributes) {
      return PathError("sync directory", path, *wide, ::GetLastError());
    }
    if (!IsDirectory(attributes)) {
      return absl::FailedPreconditionError(
          absl::StrCat("sync directory ", path, ": not a directory"));
    }
    ScopedHandle directory(::CreateFileW(
        wide->c_str(), GENERIC_READ | GENERIC_WRITE, kShareAll, nullptr,
        OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr));
    if (!directory.valid()) {
      const DWORD error = ::GetLastError();
      if (error == ERROR_ACCESS_DENIED) return absl::OkStatus();  // See top.
      return PathError("sync directory", path, *wide, error);
    }
    if (!::FlushFileBuffers(directory.get())) {
      const DWORD error = ::GetLastError();
      if (error == ERROR_ACCESS_DENIED || error == ERROR_INVALID_FUNCTION ||
          error == ERROR_NOT_SUPPORTED || error == ERROR_INVALID_PARAMETER) {
        return absl::OkStatus();  // See top.
      }
      return Win32Error("sync directory", path, error);
    }
    return absl::OkStatus();
  }

 private:
  // A path conversion error, with the operation in front.
  static absl::Status Annotate(absl::string_view operation,
                               absl::string_view path,
                               const absl::Status& status) {
    return absl::Status(status.code(), absl::StrCat(operation, " ", path, ": ",
                                                    status.message()));
  }
};

const VfsRegistration kRegistration(Win32Vfs::kName, []() {
  return absl::StatusOr<std::unique_ptr<Vfs>>(std::make_unique<Win32Vfs>());
});

}  // namespace
}  // namespace loaderx
