// `RecordEngine::Create` and `RecordEngine::Open`: making a store directory
// as the reference does, taking over a creation that never finished, and
// validating an existing store before anything reads it.

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
#include "src/record_engine.h"

namespace loaderx {
namespace {

using store_format::kChunkCapacity;
using store_format::kHeaderBytes;
using store_format::kRecordLocBytes;
using store_format::OffsetInSegment;
using store_format::PhysicalHeader;
using store_format::RecordLoc;
using store_format::SegmentOf;

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

// What a directory holds, as far as creating a store there goes.
enum class Occupant {
  kNothing,     // Empty: create afresh.
  kUnfinished,  // A creation that never finished: take it over.
};

// A creation that did not finish left meta.zr empty or holding a header of
// no records, perhaps 0.chunk and dict.zr, and no store.zr. Anything else
// in the directory (a store, or files that are not a store's) refuses the
// creation with AlreadyExists (the reference's -12).
absl::StatusOr<Occupant> Inspect(Vfs& vfs, const std::string& dir) {
  LOADERX_ASSIGN_OR_RETURN(std::vector<std::string> names, vfs.List(dir));
  bool has_meta = false;
  for (const std::string& name : names) {
    if (name == store_format::kHeaderFile) {
      has_meta = true;
    } else if (name == store_format::kTypedHeaderFile) {
      return absl::AlreadyExistsError(
          absl::StrCat(dir, " already holds a store"));
    } else if (name != store_format::kDictionaryFile &&
               name != store_format::ChunkFileName(0)) {
      return absl::AlreadyExistsError(absl::StrCat(
          dir, " is not empty: it holds \"", name,
          "\", which is not part of a store; a store is created in an empty "
          "directory (or over a creation that did not finish)"));
    }
  }
  if (!has_meta) {
    if (names.empty()) return Occupant::kNothing;
    return absl::AlreadyExistsError(absl::StrCat(
        dir,
        " holds store files but no meta.zr; refusing to create a store "
        "over them"));
  }
  const std::string meta_path = JoinPath(dir, store_format::kHeaderFile);
  LOADERX_ASSIGN_OR_RETURN(std::string meta, ReadFileToString(vfs, meta_path));
  if (!meta.empty()) {
    absl::StatusOr<PhysicalHeader> header =
        store_format::DecodeHeader(meta, meta_path);
    if (!header.ok()) {
      return absl::AlreadyExistsError(
          absl::StrCat(dir, " holds a meta.zr that is not a store header: ",
                       header.status().message()));
    }
    if (header->length != 0 || header->tail_chunk != 0) {
      return absl::AlreadyExistsError(
          absl::StrCat(dir, " already holds a store with records"));
    }
  }
  return Occupant::kUnfinished;
}

// Loads a store's codec: its tag from the header, its dictionary from
// dict.zr when present, and `level` for this handle's appends (0: the
// codec's default). A dictionary where the codec takes none, or none where
// it needs one, is a damaged store; a level the codec refuses is the
// caller's mistake.
absl::StatusOr<std::unique_ptr<Codec>> LoadCodec(Vfs& vfs,
                                                 const std::string& directory,
                                                 uint8_t tag, int level) {
  const std::string dictionary_path =
      JoinPath(directory, store_format::kDictionaryFile);
  CodecOptions options;
  LOADERX_ASSIGN_OR_RETURN(bool has_dictionary, vfs.Exists(dictionary_path));
  if (has_dictionary) {
    LOADERX_ASSIGN_OR_RETURN(options.dictionary,
                             ReadFileToString(vfs, dictionary_path));
  }
  absl::StatusOr<std::unique_ptr<Codec>> codec = CreateCodecByTag(tag, options);
  if (!codec.ok()) {
    return absl::DataLossError(
        absl::StrCat(directory, ": cannot load the store's codec (tag ", tag,
                     has_dictionary ? ", with" : ", without",
                     " dict.zr): ", codec.status().message()));
  }
  if (level == 0) return codec;
  options.level = level;
  return CreateCodecByTag(tag, options);
}

}  // namespace

absl::StatusOr<std::unique_ptr<RecordEngine>> RecordEngine::Create(
    Vfs& vfs, absl::string_view directory, const RecordEngineOptions& options) {
  // Everything about the request is checked before anything is written.
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<Codec> codec,
                           CreateCodec(options.codec, options.codec_options));
  const std::string dir(directory);
  LOADERX_ASSIGN_OR_RETURN(std::vector<std::string> made_directories,
                           CreateDirectories(vfs, dir));
  absl::StatusOr<Occupant> occupant = Inspect(vfs, dir);
  if (!occupant.ok()) {
    for (auto it = made_directories.rbegin(); it != made_directories.rend();
         ++it) {
      (void)vfs.RemoveDirectory(*it);
    }
    return occupant.status();
  }
  const bool takeover = *occupant == Occupant::kUnfinished;

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
    LOADERX_ASSIGN_OR_RETURN(Occupant now, Inspect(vfs, dir));
    if (now != Occupant::kUnfinished) {
      return absl::AlreadyExistsError(
          absl::StrCat(dir, " changed while the store was being created"));
    }
  }

  auto files = std::make_unique<StoreFiles>(vfs, dir, *std::move(meta));
  PhysicalHeader header;
  header.codec = codec->tag();
  absl::Status created = [&]() -> absl::Status {
    // The reference's order: header, 0.chunk, dict.zr, sync. Until the
    // typed layer writes store.zr, the directory is an unfinished creation
    // that the next `Create` takes over.
    const auto bytes = store_format::EncodeHeader(header);
    LOADERX_RETURN_IF_ERROR(files->meta().WriteAt(
        0, absl::string_view(bytes.data(), bytes.size())));
    LOADERX_RETURN_IF_ERROR(files->meta().Truncate(kHeaderBytes));
    LOADERX_RETURN_IF_ERROR(files->CreateChunk(0));
    files->MarkChunkWritten(0);
    const std::string dictionary_path =
        files->PathOf(store_format::kDictionaryFile);
    if (codec->uses_dictionary()) {
      LOADERX_RETURN_IF_ERROR(WriteStringToFile(
          vfs, dictionary_path, options.codec_options.dictionary,
          /*sync=*/true));
    } else if (takeover) {
      absl::Status removed = vfs.Remove(dictionary_path);
      if (!removed.ok() && !absl::IsNotFound(removed)) return removed;
    }
    LOADERX_RETURN_IF_ERROR(files->SyncWritten());
    // Each directory created here must be durable in its parent too.
    for (const std::string& made : made_directories) {
      const std::string parent = ParentDirectory(made);
      LOADERX_RETURN_IF_ERROR(vfs.SyncDirectory(parent.empty() ? "." : parent));
    }
    return absl::OkStatus();
  }();
  if (!created.ok() && !takeover) {
    // Leave nothing behind. Best effort: the creation error is what the
    // caller needs to see. (A takeover leaves what it found: still an
    // unfinished creation, taken over again next time.)
    files.reset();
    const std::string leftovers[] = {std::string(store_format::kHeaderFile),
                                     std::string(store_format::kDictionaryFile),
                                     store_format::ChunkFileName(0)};
    for (const std::string& name : leftovers) {
      (void)vfs.Remove(JoinPath(dir, name));
    }
    for (auto it = made_directories.rbegin(); it != made_directories.rend();
         ++it) {
      (void)vfs.RemoveDirectory(*it);
    }
  }
  LOADERX_RETURN_IF_ERROR(created);
  return std::unique_ptr<RecordEngine>(
      new RecordEngine(std::move(files), std::move(codec), options, header));
}

absl::StatusOr<std::unique_ptr<RecordEngine>> RecordEngine::Open(
    Vfs& vfs, absl::string_view directory, const RecordEngineOptions& options) {
  const std::string dir(directory);
  const std::string meta_path = JoinPath(dir, store_format::kHeaderFile);
  absl::StatusOr<std::unique_ptr<VfsFile>> meta =
      vfs.Open(meta_path, OpenMode::kReadWrite);
  if (absl::IsNotFound(meta.status())) {
    return absl::NotFoundError(
        absl::StrCat("no store at ", dir, " (", meta.status().message(), ")"));
  }
  LOADERX_RETURN_IF_ERROR(meta.status());
  LOADERX_RETURN_IF_ERROR((*meta)->TryLock());

  LOADERX_ASSIGN_OR_RETURN(uint64_t meta_size, (*meta)->Size());
  std::string bytes(std::min<uint64_t>(meta_size, kHeaderBytes + 1), '\0');
  LOADERX_RETURN_IF_ERROR((*meta)->ReadAt(0, absl::MakeSpan(bytes)));
  LOADERX_ASSIGN_OR_RETURN(PhysicalHeader header,
                           store_format::DecodeHeader(bytes, meta_path));
  LOADERX_ASSIGN_OR_RETURN(
      std::unique_ptr<Codec> codec,
      LoadCodec(vfs, dir, header.codec, options.codec_options.level));

  auto files = std::make_unique<StoreFiles>(vfs, dir, *std::move(meta));
  for (uint64_t chunk = 0; chunk <= header.tail_chunk; ++chunk) {
    LOADERX_RETURN_IF_ERROR(files->OpenChunk(chunk));
    LOADERX_ASSIGN_OR_RETURN(VfsFile * file, files->Chunk(chunk));
    LOADERX_ASSIGN_OR_RETURN(uint64_t size, file->Size());
    if (size > kChunkCapacity) {
      return absl::DataLossError(absl::StrCat(
          file->path(), " has ", size,
          " bytes, past a chunk's 2^32-byte range (damaged store)"));
    }
    if (chunk == header.tail_chunk && size < header.tail_offset) {
      return absl::DataLossError(
          absl::StrCat(file->path(), " has ", size,
                       " bytes but the header's frontier is at ",
                       header.tail_offset, " (damaged store)"));
    }
  }
  if (header.length > 0) {
    const uint64_t last = header.length - 1;
    for (uint64_t segment = 0; segment <= SegmentOf(last); ++segment) {
      LOADERX_RETURN_IF_ERROR(files->OpenSegment(segment));
      LOADERX_ASSIGN_OR_RETURN(VfsFile * file, files->Segment(segment));
      LOADERX_ASSIGN_OR_RETURN(uint64_t size, file->Size());
      const uint64_t needed =
          segment < SegmentOf(last)
              ? store_format::kEntriesPerSegment * kRecordLocBytes
              : OffsetInSegment(last) + kRecordLocBytes;
      if (size < needed) {
        return absl::DataLossError(
            absl::StrCat(file->path(), " is too short for ", header.length,
                         " records (damaged store)"));
      }
    }
  }
  auto engine = std::unique_ptr<RecordEngine>(
      new RecordEngine(std::move(files), std::move(codec), options, header));
  LOADERX_RETURN_IF_ERROR(engine->CheckTable());
  return engine;
}

absl::Status RecordEngine::CheckTable() const {
  // As the reference does at open: every entry must be valid and lie inside
  // its chunk file, so a damaged table is refused before anything reads it.
  std::vector<uint64_t> chunk_sizes(files_->chunk_count());
  for (uint64_t id = 0; id < chunk_sizes.size(); ++id) {
    LOADERX_ASSIGN_OR_RETURN(VfsFile * chunk, files_->Chunk(id));
    LOADERX_ASSIGN_OR_RETURN(chunk_sizes[id], chunk->Size());
  }
  absl::Status first_damage;
  LOADERX_RETURN_IF_ERROR(ForEachLoc(header_.length, [&](uint64_t index,
                                                         const RecordLoc& loc) {
    if (!first_damage.ok()) return;
    first_damage =
        store_format::CheckRecordLoc(loc, index, header_, chunk_sizes.size());
    if (first_damage.ok() &&
        uint64_t{loc.offset} + loc.phys_length > chunk_sizes[loc.chunk_id]) {
      first_damage = absl::DataLossError(absl::StrCat(
          "record ", index, " lies past the end of ",
          store_format::ChunkFileName(loc.chunk_id), " (damaged store)"));
    }
  }));
  return first_damage;
}

}  // namespace loaderx
