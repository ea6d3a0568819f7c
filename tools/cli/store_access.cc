#include "tools/cli/store_access.h"

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "loaderx/error_code.h"
#include "loaderx/spi/path.h"
#include "loaderx/vfs_registry.h"
#include "tools/cli/interrupt.h"

namespace loaderx::cli {
namespace {

namespace fs = std::filesystem;

// The engine's messages name the file; say which store too.
absl::Status InStore(absl::string_view path, const absl::Status& status) {
  if (status.ok() || absl::StrContains(status.message(), path)) return status;
  return WithErrorCode(
      absl::Status(status.code(), absl::StrCat(path, ": ", status.message())),
      ErrorCodeOf(status));
}

// The chunk files and the dictionary's size, from the directory.
void AddFiles(absl::string_view path, Json& info) {
  uint64_t chunks = 0;
  std::error_code error;
  for (const fs::directory_entry& entry :
       fs::directory_iterator(std::string(path), error)) {
    if (absl::EndsWith(entry.path().filename().string(), ".chunk")) ++chunks;
  }
  info.Set("chunks", chunks);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Vfs>> LocalVfs() { return CreateVfs("posix"); }

absl::StatusOr<OpenedStore> OpenStore(absl::string_view path, bool read_only) {
  // Before anything looks at the filesystem: std::filesystem would cut the
  // path at a NUL.
  if (absl::Status valid = ValidatePath(path); !valid.ok()) return valid;
  const fs::path directory{std::string(path)};
  std::error_code error;
  const fs::file_status status = fs::status(directory, error);
  if (status.type() == fs::file_type::not_found) {
    return absl::NotFoundError(
        absl::StrCat("no store at ", path, ": it does not exist"));
  }
  if (status.type() != fs::file_type::directory) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is not a loaderx store: a store is a directory"));
  }
  if (!fs::exists(directory / "meta.zr", error)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is not a loaderx store: it has no meta.zr"));
  }
  OpenedStore opened;
  absl::StatusOr<std::unique_ptr<Vfs>> vfs = LocalVfs();
  if (!vfs.ok()) return vfs.status();
  opened.vfs = *std::move(vfs);
  StoreOptions options;
  options.read_only = read_only;
  absl::StatusOr<std::unique_ptr<TypedStore>> store =
      TypedStore::OpenAny(*opened.vfs, path, options);
  if (!store.ok()) return InStore(path, store.status());
  opened.store = *std::move(store);
  return opened;
}

absl::StatusOr<OpenedStore> CreateStore(absl::string_view path,
                                        absl::string_view kind,
                                        const TypeIdentity& identity,
                                        const StoreOptions& options) {
  if (absl::Status valid = ValidatePath(path); !valid.ok()) return valid;
  OpenedStore opened;
  absl::StatusOr<std::unique_ptr<Vfs>> vfs = LocalVfs();
  if (!vfs.ok()) return vfs.status();
  opened.vfs = *std::move(vfs);
  absl::StatusOr<std::unique_ptr<TypedStore>> store =
      TypedStore::Create(*opened.vfs, path, kind, identity, options);
  if (!store.ok()) return store.status();
  opened.store = *std::move(store);
  return opened;
}

std::string ShapeText(absl::Span<const uint64_t> shape) {
  if (shape.size() == 1) return absl::StrCat("(", shape[0], ",)");
  return absl::StrCat("(", absl::StrJoin(shape, ", "), ")");
}

absl::StatusOr<Json> DescribeStore(absl::string_view path,
                                   const TypedStore& store) {
  absl::StatusOr<StoreStats> stats = store.Stats();
  if (!stats.ok()) return InStore(path, stats.status());
  Json info = Json::MakeObject();
  info.Set("path", path);
  info.Set("kind", store.kind());
  info.Set("dtype", DTypeToString(store.dtype()));
  info.Set("item_size", store.item_size());
  if (store.fixed_width()) {
    info.Set("item_shape", Json::Numbers(store.identity().item_shape));
    info.Set("record_bytes", store.record_bytes());
  } else {
    info.Set("item_shape", Json());  // Per record.
    info.Set("record_bytes", Json());
  }
  info.Set("codec", store.codec());
  info.Set("records", stats->records);
  info.Set("bytes", stats->live_bytes);
  info.Set("chunk_bytes", stats->chunk_bytes);
  info.Set("reclaimable_bytes", stats->reclaimable);
  AddFiles(path, info);
  if (store.has_dictionary()) {
    std::error_code error;
    const uintmax_t size =
        fs::file_size(fs::path(std::string(path)) / "dict.zr", error);
    info.Set("dictionary_bytes",
             error ? Json() : Json(static_cast<uint64_t>(size)));
  } else {
    info.Set("dictionary_bytes", Json());
  }
  return info;
}

StoreOptions NewStoreOptions(absl::string_view codec, int level,
                             std::string dictionary) {
  StoreOptions options;
  options.codec = std::string(codec);
  options.level = level;
  options.dictionary = std::move(dictionary);
  return options;
}

absl::Status CopyRecords(const TypedStore& from, TypedStore& to,
                         Progress& progress) {
  const uint64_t count = from.size();
  // Fixed-width batches by bytes; shaped ones adapt to the sizes seen.
  uint64_t batch =
      from.fixed_width()
          ? std::max<uint64_t>(
                1, kCopyBatchBytes / std::max<uint64_t>(from.record_bytes(), 1))
          : 64;
  std::string buffer;
  std::vector<uint64_t> indices;
  for (uint64_t first = 0; first < count;) {
    if (absl::Status interrupted = CheckInterrupted(); !interrupted.ok()) {
      return interrupted;
    }
    const uint64_t n = std::min(batch, count - first);
    indices.resize(n);
    std::iota(indices.begin(), indices.end(), first);
    absl::StatusOr<ShapedBatch> read = from.Read(
        indices, [&](uint64_t bytes) -> absl::StatusOr<absl::Span<char>> {
          buffer.resize(bytes);
          return absl::MakeSpan(buffer);
        });
    if (!read.ok()) return read.status();
    absl::Status appended;
    if (from.fixed_width()) {
      appended = to.AppendFixed(buffer).status();
    } else {
      std::vector<ShapedRecord> records(n);
      for (uint64_t i = 0; i < n; ++i) {
        const uint64_t end =
            i + 1 < n ? read->offsets[i + 1] : read->total_bytes;
        records[i].data = absl::string_view(buffer).substr(
            read->offsets[i], end - read->offsets[i]);
        records[i].shape.assign(read->shapes[i].begin(), read->shapes[i].end());
      }
      appended = to.Append(records).status();
      const uint64_t mean = std::max<uint64_t>(1, read->total_bytes / n);
      batch = std::clamp<uint64_t>(kCopyBatchBytes / mean, 1, 65536);
    }
    if (!appended.ok()) return appended;
    first += n;
    progress.Advance(n);
  }
  return absl::OkStatus();
}

absl::Status SyncAndClose(OpenedStore& opened) {
  absl::Status synced = opened.store->Sync();
  opened.store.reset();
  return synced;
}

}  // namespace loaderx::cli
