// A stand-in for loaderx 1.7.7 in the engine's tests: edits a store's
// reference-format files the way 1.7.7's writes do (in place, through the
// VFS, so meta.zr's modification stamp moves on) and never touches
// checksums.lx or journal.lx. What it leaves is a store "modified by
// another program".

#ifndef LOADERX_TESTS_FOREIGN_WRITER_H_
#define LOADERX_TESTS_FOREIGN_WRITER_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/vfs.h"
#include "src/store_format.h"

namespace loaderx {

class ForeignWriter {
 public:
  ForeignWriter(Vfs& vfs, std::string directory)
      : vfs_(vfs), directory_(std::move(directory)) {}

  absl::StatusOr<store_format::PhysicalHeader> Header() {
    LOADERX_ASSIGN_OR_RETURN(std::string bytes, Read("meta.zr"));
    return store_format::DecodeHeader(bytes, "meta.zr");
  }
  absl::Status WriteHeader(const store_format::PhysicalHeader& header) {
    const auto bytes = store_format::EncodeHeader(header);
    return Write("meta.zr", 0, std::string(bytes.data(), bytes.size()));
  }
  // Record-table entries of segment 0.
  absl::StatusOr<store_format::RecordLoc> Loc(uint64_t index) {
    LOADERX_ASSIGN_OR_RETURN(std::string bytes, Read("0.loc"));
    if (bytes.size() < (index + 1) * 16) {
      return absl::OutOfRangeError("no such entry");
    }
    return store_format::DecodeRecordLoc(&bytes[index * 16]);
  }
  absl::Status WriteLoc(uint64_t index, const store_format::RecordLoc& loc) {
    std::string bytes(16, '\0');
    store_format::EncodeRecordLoc(loc, bytes.data());
    return Write("0.loc", index * 16, bytes);
  }
  // Overwrites a record's stored bytes in place (what a rewrite at the same
  // address leaves behind), then rewrites the header like every 1.7.7
  // commit does.
  absl::Status RewriteRecordBytes(uint64_t index, absl::string_view bytes) {
    LOADERX_ASSIGN_OR_RETURN(store_format::RecordLoc loc, Loc(index));
    LOADERX_RETURN_IF_ERROR(
        Write(store_format::ChunkFileName(loc.chunk_id), loc.offset, bytes));
    LOADERX_ASSIGN_OR_RETURN(store_format::PhysicalHeader header, Header());
    return WriteHeader(header);
  }
  // 1.7.7's swap-last delete of one record.
  absl::Status Delete(uint64_t index) {
    LOADERX_ASSIGN_OR_RETURN(store_format::PhysicalHeader header, Header());
    const uint64_t last = header.length - 1;
    if (index != last) {
      LOADERX_ASSIGN_OR_RETURN(store_format::RecordLoc moved, Loc(last));
      LOADERX_RETURN_IF_ERROR(WriteLoc(index, moved));
    }
    header.length = last;
    return WriteHeader(header);
  }

  absl::StatusOr<std::string> Read(absl::string_view name) {
    return ReadFileToString(vfs_, absl::StrCat(directory_, "/", name));
  }
  absl::Status Write(absl::string_view name, uint64_t offset,
                     absl::string_view bytes) {
    LOADERX_ASSIGN_OR_RETURN(
        auto file,
        vfs_.Open(absl::StrCat(directory_, "/", name), OpenMode::kReadWrite));
    return file->WriteAt(offset, bytes);
  }

 private:
  Vfs& vfs_;
  const std::string directory_;
};

}  // namespace loaderx

#endif  // LOADERX_TESTS_FOREIGN_WRITER_H_
