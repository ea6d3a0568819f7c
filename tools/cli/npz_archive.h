// `NpzArchive` reads the arrays of a .npz file (numpy's `savez` and
// `savez_compressed`: a zip archive of NAME.npy members, stored or
// deflated, zip64 for large ones) through zlib's minizip. Each member
// streams as a `ByteSource`; its CRC-32 is checked when it has been read
// to the end (a mismatch is DataLoss).

#ifndef LOADERX_TOOLS_CLI_NPZ_ARCHIVE_H_
#define LOADERX_TOOLS_CLI_NPZ_ARCHIVE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/cli/byte_source.h"

namespace loaderx::cli {

class NpzArchive {
 public:
  // InvalidArgument if `path` is not a zip archive, or holds a member
  // that is not NAME.npy.
  static absl::StatusOr<std::unique_ptr<NpzArchive>> Open(
      absl::string_view path);
  ~NpzArchive();
  NpzArchive(const NpzArchive&) = delete;
  NpzArchive& operator=(const NpzArchive&) = delete;

  // The arrays' names (members without ".npy"), in archive order.
  const std::vector<std::string>& arrays() const { return arrays_; }

  // Streams array `name` (NotFound naming the arrays there are). One
  // member may be open at a time, and the archive must outlive it.
  absl::StatusOr<std::unique_ptr<ByteSource>> OpenArray(absl::string_view name);

 private:
  NpzArchive(std::string path, void* zip) : path_(std::move(path)), zip_(zip) {}

  std::string path_;
  void* zip_;  // unzFile
  std::vector<std::string> arrays_;
};

}  // namespace loaderx::cli

#endif  // LOADERX_TOOLS_CLI_NPZ_ARCHIVE_H_
