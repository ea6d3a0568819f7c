#include "tests/damage/file_edits.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace loaderx::damage {
namespace {

namespace fs = std::filesystem;

absl::Status Errno(absl::string_view what, const std::string& path) {
  return absl::InternalError(
      absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

}  // namespace

absl::Status WriteBytes(const std::string& path, absl::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

namespace {

absl::Status SetTimes(const std::string& path, const struct stat& st) {
  const struct timespec times[2] = {st.st_atim, st.st_mtim};
  if (::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0) {
    return Errno("utimensat", path);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> MakeWorkDirectory(const std::string& fallback) {
  std::string parent = fallback;
  if (const char* dir = std::getenv("LOADERX_DAMAGE_DIR"); dir != nullptr) {
    parent = dir;
  } else if (::access("/dev/shm", W_OK | X_OK) == 0) {
    parent = "/dev/shm";
  }
  std::string path = parent + "/loaderx-damage-XXXXXX";
  if (::mkdtemp(path.data()) == nullptr) return Errno("mkdtemp", path);
  return path;
}

absl::Status CopyStoreDirectory(const std::string& from,
                                const std::string& to) {
  std::error_code error;
  if (!fs::create_directory(to, error)) {
    return absl::InternalError(
        absl::StrCat("mkdir ", to, ": ", error ? error.message() : "exists"));
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(from)) {
    if (!entry.is_regular_file()) continue;
    const std::string source = entry.path().string();
    const std::string target = to + "/" + entry.path().filename().string();
    struct stat st;
    if (::stat(source.c_str(), &st) != 0) return Errno("stat", source);
    absl::StatusOr<std::string> bytes = ReadBytes(source);
    if (!bytes.ok()) return bytes.status();
    if (absl::Status written = WriteBytes(target, *bytes); !written.ok()) {
      return written;
    }
    if (absl::Status timed = SetTimes(target, st); !timed.ok()) return timed;
  }
  return absl::OkStatus();
}

absl::Status RemoveTree(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return absl::OkStatus();
  if (S_ISDIR(st.st_mode)) {
    ::chmod(path.c_str(), 0755);
    for (const fs::directory_entry& entry : fs::directory_iterator(path)) {
      if (absl::Status removed = RemoveTree(entry.path().string());
          !removed.ok()) {
        return removed;
      }
    }
  }
  std::error_code error;
  fs::remove(path, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("remove ", path, ": ", error.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InternalError(absl::StrCat("cannot read ", path));
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

absl::Status RewriteKeepingTimes(const std::string& path,
                                 absl::string_view bytes) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Errno("stat", path);
  if (absl::Status written = WriteBytes(path, bytes); !written.ok()) {
    return written;
  }
  return SetTimes(path, st);
}

absl::Status GrowSparseKeepingTimes(const std::string& path, uint64_t size) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Errno("stat", path);
  if (::truncate(path.c_str(), static_cast<off_t>(size)) != 0) {
    return Errno("truncate", path);
  }
  return SetTimes(path, st);
}

}  // namespace loaderx::damage
