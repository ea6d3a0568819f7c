// `RecordEngine::Create`: making a store directory as the reference does,
// taking over a creation that never finished (`creation_site.h` tells one),
// and starting its checksums.lx.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/codec_registry.h"
#include "loaderx/error_code.h"
#include "loaderx/spi/path.h"
#include "loaderx/spi/status_macros.h"
#include "src/checksum.h"
#include "src/creation_site.h"
#include "src/record_engine.h"

namespace loaderx {
namespace {

using store_format::kHeaderBytes;
using store_format::PhysicalHeader;

// Creates `dir` and any missing parents (mkdir -p); returns the ones it
// created, outermost first.
absl::StatusOr<std::vector<std::string>> CreateDirectories(
    Vfs& vfs, const std::string& dir) {
  std::vector<std::string> missing;
  for (std::string at = dir; !at.empty() && at != "/" && at != ".";
       at = ParentDirectory(at)) {
    LOADERX_ASSIGN_OR_RETURN(bool exists, vfs.Exists(at));
    if (exists) break;
    missing.push_back(at);
  }
  std::reverse(missing.begin(), missing.end());
  std::vector<std::string> created;
  for (const std::string& at : missing) {
    absl::Status made = vfs.CreateDirectory(at);
    if (absl::IsAlreadyExists(made)) continue;  // Raced: someone else's.
    if (!made.ok()) {
      for (auto it = created.rbegin(); it != created.rend(); ++it) {
        (void)vfs.RemoveDirectory(*it);
      }
      return made;
    }
    created.push_back(at);
  }
  return created;
}

}  // namespace

absl::StatusOr<std::unique_ptr<RecordEngine>> RecordEngine::Create(
    Vfs& vfs, absl::string_view directory, const RecordEngineOptions& options) {
  // Everything about the request is checked before anything is written.
  LOADERX_RETURN_IF_ERROR(ValidatePath(directory));
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<Codec> codec,
                           CreateCodec(options.codec, options.codec_options));
  const std::string dir(directory);
  LOADERX_ASSIGN_OR_RETURN(std::vector<std::string> made_directories,
                           CreateDirectories(vfs, dir));
  absl::StatusOr<CreationSite> site = InspectCreationSite(vfs, dir);
  if (!site.ok()) {
    for (auto it = made_directories.rbegin(); it != made_directories.rend();
         ++it) {
      (void)vfs.RemoveDirectory(*it);
    }
    return site.status();
  }
  const bool takeover = *site == CreationSite::kUnfinished;

  // meta.zr first, exclusively (or, taking over, the one left behind), and
  // locked: a concurrent creation or opening sees a busy store from here on.
  const std::string meta_path = JoinPath(dir, store_format::kHeaderFile);
  absl::StatusOr<std::unique_ptr<VfsFile>> meta = vfs.Open(
      meta_path, takeover ? OpenMode::kReadWrite : OpenMode::kCreateExclusive);
  if (absl::IsAlreadyExists(meta.status()) || absl::IsNotFound(meta.status())) {
    return absl::AlreadyExistsError(
        absl::StrCat(dir, " changed while the store was being created: ",
                     meta.status().message()));
  }
  LOADERX_RETURN_IF_ERROR(meta.status());
  LOADERX_RETURN_IF_ERROR((*meta)->TryLock());
  if (takeover) {
    // Under the lock, the leftovers are ours: unless someone finished the
    // creation meanwhile.
    LOADERX_ASSIGN_OR_RETURN(CreationSite now, InspectCreationSite(vfs, dir));
    if (now != CreationSite::kUnfinished) {
      return absl::AlreadyExistsError(
          absl::StrCat(dir, " changed while the store was being created"));
    }
  }

  auto files = std::make_unique<StoreFiles>(vfs, dir, *std::move(meta));
  PhysicalHeader header;
  header.codec = codec->tag();
  std::unique_ptr<IntegrityFile> integrity;
  uint64_t stamp = 0;
  absl::Status created = [&]() -> absl::Status {
    // The reference's order: header, 0.chunk, dict.zr, sync; checksums.lx
    // goes in before the sync. Until the typed layer writes store.zr, the
    // directory is an unfinished creation that the next `Create` takes
    // over.
    integrity_format::StateSlot state;
    state.epoch = 1;
    state.meta = integrity_format::MetaBytesOf(header);
    LOADERX_RETURN_IF_ERROR(files->meta().WriteAt(
        0, absl::string_view(state.meta.data(), state.meta.size())));
    LOADERX_RETURN_IF_ERROR(files->meta().Truncate(kHeaderBytes));
    if (absl::StatusOr<uint64_t> now = files->meta().ModificationStamp();
        now.ok()) {
      stamp = *now;
    }
    state.meta_stamp = stamp;
    if (options.typed_header.has_value()) {
      state.typed_header_checksum = Checksum(*options.typed_header);
    }
    LOADERX_RETURN_IF_ERROR(files->CreateChunk(0));
    files->MarkChunkWritten(0);
    const std::string dictionary_path =
        files->PathOf(store_format::kDictionaryFile);
    if (codec->uses_dictionary()) {
      LOADERX_RETURN_IF_ERROR(WriteStringToFile(
          vfs, dictionary_path, options.codec_options.dictionary,
          /*sync=*/true));
      state.dictionary_checksum = Checksum(options.codec_options.dictionary);
    } else if (takeover) {
      absl::Status removed = vfs.Remove(dictionary_path);
      if (!removed.ok() && !absl::IsNotFound(removed)) return removed;
    }
    if (takeover) {
      // The journal, and what an earlier creation left of store.zr: one
      // written in place and cut short, or its staging copy.
      for (absl::string_view leftover :
           {absl::string_view(kJournalFile), store_format::kTypedHeaderFile,
            store_format::kTypedHeaderStagingFile}) {
        absl::Status removed = vfs.Remove(files->PathOf(leftover));
        if (!removed.ok() && !absl::IsNotFound(removed)) return removed;
      }
    }
    // The syncs below cover it, and its entry with the directory's
    // (0.chunk is new).
    LOADERX_ASSIGN_OR_RETURN(
        integrity, IntegrityFile::Create(vfs, dir, state, /*sync=*/false));
    LOADERX_RETURN_IF_ERROR(
        integrity->WriteSeal({false, state.meta, state.meta, stamp}));
    // Everything at once, each directory created here in its parent too:
    // whatever of it a crash keeps, the store is not one before the typed
    // layer's store.zr, written after these syncs, makes it one.
    return files->SyncCreated(*integrity, made_directories);
  }();
  if (!created.ok() && !takeover) {
    // Leave nothing behind. Best effort: the creation error is what the
    // caller needs to see. (A takeover leaves what it found: still an
    // unfinished creation, taken over again next time.)
    files.reset();
    integrity.reset();
    const std::string leftovers[] = {
        std::string(store_format::kHeaderFile),
        std::string(store_format::kDictionaryFile),
        store_format::ChunkFileName(0),
        std::string(integrity_format::kIntegrityFile)};
    for (const std::string& name : leftovers) {
      (void)vfs.Remove(JoinPath(dir, name));
    }
    for (auto it = made_directories.rbegin(); it != made_directories.rend();
         ++it) {
      (void)vfs.RemoveDirectory(*it);
    }
  }
  LOADERX_RETURN_IF_ERROR(created);
  std::unique_ptr<RecordEngine> engine(
      new RecordEngine(std::move(files), std::move(codec), std::move(integrity),
                       options, header));
  engine->epoch_ = 1;
  engine->trusted_ = true;
  engine->meta_stamp_ = stamp;
  engine->last_written_ = integrity_format::MetaBytesOf(header);
  return engine;
}

}  // namespace loaderx
