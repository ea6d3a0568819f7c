// `ByteSource` is a sequential reader of an input file, or of one member
// of a .npz archive (`npz_archive.h`), so that importing streams either
// one without knowing which. `FileSource` reads a regular file.

#ifndef LOADERX_TOOLS_CLI_BYTE_SOURCE_H_
#define LOADERX_TOOLS_CLI_BYTE_SOURCE_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace loaderx::cli {

class ByteSource {
 public:
  virtual ~ByteSource() = default;

  // Reads up to `buffer.size()` bytes; returns how many, 0 only at the end.
  // An I/O error (or a damaged archive member) is an error status.
  virtual absl::StatusOr<size_t> Read(absl::Span<char> buffer) = 0;
  // What to call the input in messages ("x.npy", "x.npz:images.npy").
  virtual const std::string& name() const = 0;
};

// Fills `buffer` completely: InvalidArgument ("NAME is truncated") if the
// source ends first.
absl::Status ReadExactly(ByteSource& source, absl::Span<char> buffer);

class FileSource final : public ByteSource {
 public:
  // NotFound if `path` does not exist, InvalidArgument if it is not a
  // regular file.
  static absl::StatusOr<std::unique_ptr<FileSource>> Open(
      absl::string_view path);
  ~FileSource() override;

  absl::StatusOr<size_t> Read(absl::Span<char> buffer) override;
  const std::string& name() const override { return path_; }
  uint64_t size() const { return size_; }

 private:
  FileSource(std::string path, std::FILE* file, uint64_t size)
      : path_(std::move(path)), file_(file), size_(size) {}

  std::string path_;
  std::FILE* file_;
  uint64_t size_;
};

}  // namespace loaderx::cli

#endif  // LOADERX_TOOLS_CLI_BYTE_SOURCE_H_
