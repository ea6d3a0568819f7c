#include "tools/cli/byte_source.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace loaderx::cli {

absl::Status ReadExactly(ByteSource& source, absl::Span<char> buffer) {
  size_t done = 0;
  while (done < buffer.size()) {
    absl::StatusOr<size_t> count = source.Read(buffer.subspan(done));
    if (!count.ok()) return count.status();
    if (*count == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(source.name(), " is truncated: ", buffer.size() - done,
                       " more bytes were expected"));
    }
    done += *count;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<FileSource>> FileSource::Open(
    absl::string_view path) {
  const std::string name(path);
  struct stat info;
  if (stat(name.c_str(), &info) != 0) {
    const int error = errno;
    const std::string message =
        absl::StrCat("cannot open ", name, ": ", std::strerror(error));
    return error == ENOENT ? absl::NotFoundError(message)
                           : absl::UnavailableError(message);
  }
  if (!S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " is not a regular file"));
  }
  std::FILE* file = std::fopen(name.c_str(), "rb");
  if (file == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot open ", name, ": ", std::strerror(errno)));
  }
  return std::unique_ptr<FileSource>(
      new FileSource(name, file, static_cast<uint64_t>(info.st_size)));
}

FileSource::~FileSource() { std::fclose(file_); }

absl::StatusOr<size_t> FileSource::Read(absl::Span<char> buffer) {
  const size_t count = std::fread(buffer.data(), 1, buffer.size(), file_);
  if (count < buffer.size() && std::ferror(file_)) {
    return absl::UnavailableError(
        absl::StrCat("cannot read ", path_, ": ", std::strerror(errno)));
  }
  return count;
}

}  // namespace loaderx::cli
