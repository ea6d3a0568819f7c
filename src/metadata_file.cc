#include "src/metadata_file.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "loaderx/spi/status_macros.h"

namespace loaderx {

absl::Status OversizedMetadataError(absl::string_view path, uint64_t size,
                                    uint64_t limit) {
  return absl::DataLossError(absl::StrCat(
      path, " has ", size, " bytes; this file is at most ", limit,
      " bytes (damaged store, or not a loaderx store's file): not read"));
}

absl::StatusOr<std::string> ReadMetadataFile(Vfs& vfs, absl::string_view path,
                                             uint64_t max_bytes) {
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<VfsFile> file,
                           vfs.Open(path, OpenMode::kReadOnly));
  LOADERX_ASSIGN_OR_RETURN(const uint64_t size, file->Size());
  if (size > max_bytes) return OversizedMetadataError(path, size, max_bytes);
  std::string contents(size, '\0');
  LOADERX_RETURN_IF_ERROR(file->ReadAt(0, absl::MakeSpan(contents)));
  return contents;
}

}  // namespace loaderx
