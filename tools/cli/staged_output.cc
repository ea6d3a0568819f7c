#include "tools/cli/staged_output.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "loaderx/spi/path.h"
#include "tools/cli/interrupt.h"

namespace loaderx::cli {
namespace {

namespace fs = std::filesystem;

absl::Status ErrnoError(absl::string_view operation, absl::string_view path,
                        int error) {
  const std::string message =
      absl::StrCat(operation, " ", path, ": ", std::strerror(error));
  if (error == EEXIST || error == ENOTEMPTY) {
    return absl::AlreadyExistsError(message);
  }
  if (error == ENOENT) return absl::NotFoundError(message);
  return absl::UnavailableError(message);
}

// Makes a rename in `directory` durable.
void SyncDirectory(const fs::path& directory) {
  const int fd = open(directory.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  fsync(fd);
  close(fd);
}

// The hidden sibling of `target` for this process: ".NAME.TAG-PID".
fs::path Sibling(const fs::path& target, absl::string_view tag) {
  fs::path parent = target.parent_path();
  if (parent.empty()) parent = ".";
  return parent /
         absl::StrCat(".", target.filename().string(), ".", tag, "-", getpid());
}

fs::path WithoutTrailingSlash(absl::string_view destination) {
  fs::path target(std::string{destination});
  if (target.filename().empty()) target = target.parent_path();  // "dir/"
  return target;
}

}  // namespace

std::unique_ptr<StagedOutput> StagedOutput::Scratch(
    absl::string_view destination, absl::string_view tag) {
  const fs::path scratch = Sibling(WithoutTrailingSlash(destination), tag);
  std::error_code error;
  fs::remove_all(scratch, error);
  return std::unique_ptr<StagedOutput>(
      new StagedOutput(scratch.string(), scratch.string()));
}

absl::StatusOr<std::unique_ptr<StagedOutput>> StagedOutput::Reserve(
    absl::string_view destination) {
  // Before std::filesystem sees it: it would cut the path at a NUL.
  if (absl::Status valid = ValidatePath(destination); !valid.ok()) {
    return valid;
  }
  const fs::path target = WithoutTrailingSlash(destination);
  std::error_code error;
  if (fs::symlink_status(target, error).type() != fs::file_type::not_found) {
    return absl::AlreadyExistsError(
        absl::StrCat(target.string(),
                     " already exists; give a new path (nothing is "
                     "overwritten)"));
  }
  fs::path parent = target.parent_path();
  if (parent.empty()) parent = ".";
  if (!fs::is_directory(parent, error)) {
    return absl::NotFoundError(absl::StrCat("cannot write ", target.string(),
                                            ": ", parent.string(),
                                            " is not a directory"));
  }
  const fs::path staging = Sibling(target, "partial");
  fs::remove_all(staging, error);  // A leftover of this pid's earlier run.
  return std::unique_ptr<StagedOutput>(
      new StagedOutput(target.string(), staging.string()));
}

StagedOutput::~StagedOutput() {
  if (committed_) return;
  std::error_code error;
  fs::remove_all(staging_, error);
}

absl::Status StagedOutput::Commit() {
  // An interrupt that arrived while the output was written abandons it.
  if (absl::Status interrupted = CheckInterrupted(); !interrupted.ok()) {
    return interrupted;
  }
  // renameat2's RENAME_NOREPLACE refuses to replace what appeared at the
  // destination meanwhile (plain rename would replace an empty directory).
  if (renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, destination_.c_str(),
                RENAME_NOREPLACE) != 0) {
    int error = errno;
    if (error == EINVAL || error == ENOSYS) {
      // A filesystem without RENAME_NOREPLACE: check, then rename.
      std::error_code exists;
      if (fs::symlink_status(destination_, exists).type() !=
          fs::file_type::not_found) {
        error = EEXIST;
      } else if (rename(staging_.c_str(), destination_.c_str()) == 0) {
        error = 0;
      } else {
        error = errno;
      }
    }
    if (error != 0)
      return ErrnoError("cannot move into place", destination_, error);
  }
  committed_ = true;
  fs::path parent = fs::path(destination_).parent_path();
  SyncDirectory(parent.empty() ? fs::path(".") : parent);
  return absl::OkStatus();
}

}  // namespace loaderx::cli
