// `InspectCreationSite`: telling an unfinished creation from a store, a
// damaged store or a foreign directory, from the bytes alone.

#include "src/creation_site.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "loaderx/spi/path.h"
#include "loaderx/spi/status_macros.h"
#include "src/integrity_file.h"
#include "src/integrity_format.h"
#include "src/journal.h"
#include "src/store_format.h"

namespace loaderx {
namespace {

using store_format::kHeaderBytes;
using store_format::PhysicalHeader;

bool Has(const std::vector<std::string>& names, absl::string_view name) {
  for (const std::string& present : names) {
    if (present == name) return true;
  }
  return false;
}

// Whether `name` is a record table segment or a chunk ("{n}.loc",
// "{n}.chunk"): a store's records.
bool IsRecordFile(absl::string_view name) {
  for (absl::string_view suffix : {".loc", ".chunk"}) {
    if (!absl::ConsumeSuffix(&name, suffix)) continue;
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return c >= '0' && c <= '9';
    });
  }
  return false;
}

// Whether `bytes` begin as a physical header does. Garbage left by a power
// cut does not (but for a 2^-32 chance); a header of another version, or a
// torn one of ours, does.
bool StartsAsHeader(absl::string_view bytes) {
  return bytes.size() >= sizeof(store_format::kMagic) &&
         std::memcmp(bytes.data(), store_format::kMagic,
                     sizeof(store_format::kMagic)) == 0;
}

// Whether `bytes` are the header of a store of no records: what a creation
// writes.
bool IsEmptyHeader(const integrity_format::MetaBytes& bytes) {
  absl::StatusOr<PhysicalHeader> header = store_format::DecodeHeader(
      absl::string_view(bytes.data(), bytes.size()), "");
  return header.ok() && header->length == 0 && header->tail_chunk == 0 &&
         header->tail_offset == 0;
}

// meta.zr (`meta_bytes` long, not empty) holds bytes that are not a header. OK
// if the rest of `dir` shows a typed creation that never committed a record
// (the evidence listed in the header comment); else AlreadyExists naming what
// says otherwise.
absl::Status CheckGarbledCreation(Vfs& vfs, const std::string& dir,
                                  const std::vector<std::string>& names,
                                  uint64_t meta_bytes) {
  auto refuse = [&](auto... why) {
    return absl::AlreadyExistsError(absl::StrCat(
        dir, " holds a meta.zr that is not a store header (", meta_bytes,
        " bytes), and ", why...,
        ": it may be a store whose header is damaged, so no store is "
        "created over it (opening it reports or repairs the damage)"));
  };
  if (meta_bytes > kHeaderBytes) {
    return refuse("is longer than the ", kHeaderBytes,
                  "-byte header a creation writes");
  }
  if (Has(names, kJournalFile)) {
    return refuse("holds ", kJournalFile,
                  ", which only an opened store writes");
  }
  if (Has(names, store_format::ChunkFileName(0))) {
    const std::string chunk_path =
        JoinPath(dir, store_format::ChunkFileName(0));
    LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<VfsFile> chunk,
                             vfs.Open(chunk_path, OpenMode::kReadOnly));
    LOADERX_ASSIGN_OR_RETURN(uint64_t chunk_bytes, chunk->Size());
    if (chunk_bytes != 0) {
      return refuse(store_format::ChunkFileName(0), " holds ", chunk_bytes,
                    " bytes of records");
    }
  }
  if (!Has(names, integrity_format::kIntegrityFile)) return absl::OkStatus();
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<IntegrityFile> integrity,
                           IntegrityFile::Open(vfs, dir, /*read_only=*/true));
  if (integrity == nullptr) return absl::OkStatus();  // Removed meanwhile.
  LOADERX_ASSIGN_OR_RETURN(uint64_t integrity_bytes, integrity->file().Size());
  if (integrity_bytes > integrity_format::kEntriesOffset) {
    return refuse(integrity_format::kIntegrityFile,
                  " holds checksums of records");
  }
  const std::optional<integrity_format::StateSlot>& state = integrity->state();
  if (state.has_value() &&
      (state->epoch != 1 || !state->typed_header_checksum.has_value() ||
       !IsEmptyHeader(state->meta))) {
    return refuse(integrity_format::kIntegrityFile,
                  " records a store that is not a typed one being created");
  }
  LOADERX_ASSIGN_OR_RETURN(std::optional<integrity_format::CommitSeal> seal,
                           integrity->ReadSeal());
  if (seal.has_value() && (!IsEmptyHeader(seal->meta) ||
                           (seal->pending && !IsEmptyHeader(seal->previous)))) {
    return refuse(integrity_format::kIntegrityFile,
                  " records a header with records");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TypedHeaderFile> InspectTypedHeaderFile(Vfs& vfs,
                                                       const std::string& dir) {
  absl::StatusOr<std::unique_ptr<VfsFile>> file = vfs.Open(
      JoinPath(dir, store_format::kTypedHeaderFile), OpenMode::kReadOnly);
  if (absl::IsNotFound(file.status()) ||
      absl::IsFailedPrecondition(file.status())) {
    return TypedHeaderFile::kMissing;
  }
  LOADERX_RETURN_IF_ERROR(file.status());
  LOADERX_ASSIGN_OR_RETURN(const uint64_t size, (*file)->Size());
  if (size < store_format::kTypedHeaderMinBytes) {
    return TypedHeaderFile::kLeftover;
  }
  char magic[sizeof(store_format::kTypedHeaderMagic)];
  LOADERX_RETURN_IF_ERROR((*file)->ReadAt(0, absl::MakeSpan(magic)));
  return std::memcmp(magic, store_format::kTypedHeaderMagic, sizeof(magic)) == 0
             ? TypedHeaderFile::kPresent
             : TypedHeaderFile::kLeftover;
}

absl::StatusOr<CreationSite> InspectCreationSite(Vfs& vfs,
                                                 const std::string& dir) {
  LOADERX_ASSIGN_OR_RETURN(std::vector<std::string> names, vfs.List(dir));
  if (Has(names, store_format::kTypedHeaderFile)) {
    LOADERX_ASSIGN_OR_RETURN(TypedHeaderFile typed,
                             InspectTypedHeaderFile(vfs, dir));
    if (typed == TypedHeaderFile::kPresent) {
      return absl::AlreadyExistsError(
          absl::StrCat(dir, " already holds a store"));
    }
  }
  for (const std::string& name : names) {
    if (name != store_format::ChunkFileName(0) && IsRecordFile(name)) {
      return absl::AlreadyExistsError(absl::StrCat(
          dir, " holds \"", name,
          "\", a store's records, but no store.zr; no store is created over "
          "them"));
    }
    if (name != store_format::kHeaderFile &&
        name != store_format::kDictionaryFile &&
        name != store_format::ChunkFileName(0) &&
        name != integrity_format::kIntegrityFile && name != kJournalFile &&
        name != store_format::kTypedHeaderFile &&
        name != store_format::kTypedHeaderStagingFile) {
      return absl::AlreadyExistsError(absl::StrCat(
          dir, " is not empty: it holds \"", name,
          "\", which is not part of a store; a store is created in an empty "
          "directory (or over a creation that did not finish)"));
    }
  }
  if (!Has(names, store_format::kHeaderFile)) {
    if (names.empty()) return CreationSite::kEmpty;
    return absl::AlreadyExistsError(absl::StrCat(
        dir,
        " holds store files but no meta.zr; refusing to create a store "
        "over them"));
  }
  const std::string meta_path = JoinPath(dir, store_format::kHeaderFile);
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<VfsFile> meta_file,
                           vfs.Open(meta_path, OpenMode::kReadOnly));
  LOADERX_ASSIGN_OR_RETURN(const uint64_t meta_bytes, meta_file->Size());
  if (meta_bytes == 0) return CreationSite::kUnfinished;
  // Enough of it to tell, whatever the file holds.
  std::string meta(std::min<uint64_t>(meta_bytes, kHeaderBytes), '\0');
  LOADERX_RETURN_IF_ERROR(meta_file->ReadAt(0, absl::MakeSpan(meta)));
  if (!StartsAsHeader(meta)) {
    LOADERX_RETURN_IF_ERROR(CheckGarbledCreation(vfs, dir, names, meta_bytes));
    return CreationSite::kUnfinished;
  }
  if (meta_bytes != kHeaderBytes) {
    return absl::AlreadyExistsError(absl::StrCat(
        dir,
        " holds a meta.zr this build cannot read: it starts as a store "
        "header but has ",
        meta_bytes, " bytes, not ", kHeaderBytes));
  }
  absl::StatusOr<PhysicalHeader> header =
      store_format::DecodeHeader(meta, meta_path);
  if (!header.ok()) {
    return absl::AlreadyExistsError(
        absl::StrCat(dir, " holds a meta.zr this build cannot read: ",
                     header.status().message()));
  }
  if (header->length != 0 || header->tail_chunk != 0) {
    return absl::AlreadyExistsError(
        absl::StrCat(dir, " already holds a store with records"));
  }
  return CreationSite::kUnfinished;
}

}  // namespace loaderx
