#include "src/typed_store.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "loaderx/error_code.h"
#include "loaderx/spi/path.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/typed_owner_registry.h"
#include "src/typed_header.h"

namespace loaderx {
namespace {

using store_format::kTypedHeaderFile;

// The owner whose tag a typed header names; DataLoss for an unknown tag.
absl::StatusOr<std::shared_ptr<const TypedOwner>> OwnerOf(
    const TypedHeader& header, absl::string_view header_path) {
  absl::StatusOr<std::shared_ptr<const TypedOwner>> owner =
      FindTypedOwnerByTag(header.kind);
  if (!owner.ok()) {
    return absl::DataLossError(
        absl::StrCat(header_path, ": ", owner.status().message()));
  }
  return owner;
}

absl::Status KindMismatch(absl::string_view path, absl::string_view found,
                          absl::string_view wanted) {
  return KindMismatchError(
      absl::StrCat(path, " is a '", found, "' store, not '", wanted, "'"));
}

// What is at a path, read without opening (or locking) a store there.
enum class Found { kNothing, kUnfinished, kStore };

absl::StatusOr<Found> Probe(Vfs& vfs, absl::string_view path,
                            absl::string_view kind) {
  const std::string header_path = JoinPath(path, kTypedHeaderFile);
  absl::StatusOr<std::string> bytes = ReadFileToString(vfs, header_path);
  if (bytes.ok()) {
    LOADERX_ASSIGN_OR_RETURN(TypedHeader header,
                             DecodeTypedHeader(*bytes, header_path));
    LOADERX_ASSIGN_OR_RETURN(auto owner, OwnerOf(header, header_path));
    if (owner->kind() != kind) return KindMismatch(path, owner->kind(), kind);
    return Found::kStore;
  }
  // No store.zr, or no directory at all (a file used as one:
  // FailedPrecondition).
  if (!absl::IsNotFound(bytes.status()) &&
      !absl::IsFailedPrecondition(bytes.status())) {
    return bytes.status();
  }
  absl::StatusOr<bool> has_meta =
      vfs.Exists(JoinPath(path, store_format::kHeaderFile));
  if (absl::IsFailedPrecondition(has_meta.status())) return Found::kNothing;
  LOADERX_RETURN_IF_ERROR(has_meta.status());
  return *has_meta ? Found::kUnfinished : Found::kNothing;
}

std::string ShapeText(const std::vector<uint64_t>& shape) {
  return absl::StrCat("(", absl::StrJoin(shape, ", "),
                      shape.size() == 1 ? ",)" : ")");
}

// The checks the reference makes when its constructor finds a store.
absl::Status CheckRequest(absl::string_view path, const OpenedStore& store,
                          const StoreRequest& request) {
  if (request.dtype.has_value() && !(*request.dtype == store.identity.dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " holds dtype ", DTypeToString(store.identity.dtype),
                     ", cannot open as ", DTypeToString(*request.dtype)));
  }
  const absl::string_view codec = store.engine->codec().name();
  if (request.codec.has_value() && *request.codec != codec) {
    return absl::InvalidArgumentError(absl::StrCat(path, " holds codec '",
                                                   codec, "', cannot open as '",
                                                   *request.codec, "'"));
  }
  if (request.item_shape.has_value() &&
      *request.item_shape != store.identity.item_shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, " holds item_shape ", ShapeText(store.identity.item_shape),
        ", cannot open as ", ShapeText(*request.item_shape)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<OpenedStore> CreateTypedStore(Vfs& vfs, absl::string_view path,
                                             absl::string_view kind,
                                             const TypeIdentity& identity,
                                             const StoreOptions& options) {
  LOADERX_ASSIGN_OR_RETURN(auto owner, FindTypedOwner(kind));
  // Everything about the request is checked before anything is written.
  LOADERX_ASSIGN_OR_RETURN(std::string encoded,
                           owner->EncodeIdentity(identity));
  LOADERX_ASSIGN_OR_RETURN(RecordGeometry geometry, owner->Geometry(identity));

  RecordEngineOptions engine_options;
  engine_options.codec = options.codec;
  engine_options.codec_options.dictionary = options.dictionary;
  engine_options.codec_options.level = options.level;
  engine_options.thread_pool = options.thread_pool;
  LOADERX_ASSIGN_OR_RETURN(auto engine,
                           RecordEngine::Create(vfs, path, engine_options));
  TypedHeader header;
  header.kind = owner->kind_tag();
  header.record_bytes = geometry.record_width;
  header.identity = encoded;
  const std::string header_bytes = EncodeTypedHeader(header);
  LOADERX_ASSIGN_OR_RETURN(
      std::unique_ptr<VfsFile> file,
      vfs.Open(JoinPath(path, kTypedHeaderFile), OpenMode::kCreateExclusive));
  LOADERX_RETURN_IF_ERROR(file->WriteAt(0, header_bytes));
  LOADERX_RETURN_IF_ERROR(file->Sync());
  LOADERX_RETURN_IF_ERROR(vfs.SyncDirectory(std::string(path)));
  return OpenedStore{std::move(engine), identity, geometry};
}

absl::StatusOr<OpenedStore> OpenTypedStore(Vfs& vfs, absl::string_view path,
                                           absl::string_view kind,
                                           const StoreOptions& options) {
  RecordEngineOptions engine_options;
  engine_options.codec_options.level = options.level;
  engine_options.thread_pool = options.thread_pool;
  LOADERX_ASSIGN_OR_RETURN(auto engine,
                           RecordEngine::Open(vfs, path, engine_options));
  const std::string header_path = JoinPath(path, kTypedHeaderFile);
  absl::StatusOr<std::string> bytes = ReadFileToString(vfs, header_path);
  if (absl::IsNotFound(bytes.status())) {
    return absl::DataLossError(absl::StrCat(
        header_path, " is missing: the store's creation did not finish"));
  }
  LOADERX_RETURN_IF_ERROR(bytes.status());
  LOADERX_ASSIGN_OR_RETURN(TypedHeader header,
                           DecodeTypedHeader(*bytes, header_path));
  LOADERX_ASSIGN_OR_RETURN(auto owner, OwnerOf(header, header_path));
  if (owner->kind() != kind) return KindMismatch(path, owner->kind(), kind);
  absl::StatusOr<TypeIdentity> identity =
      owner->DecodeIdentity(header.identity);
  if (!identity.ok()) {
    return absl::DataLossError(
        absl::StrCat(header_path, ": ", identity.status().message()));
  }
  LOADERX_ASSIGN_OR_RETURN(RecordGeometry geometry, owner->Geometry(*identity));
  if (geometry.record_width != header.record_bytes) {
    return absl::DataLossError(
        absl::StrCat(header_path, ": record width ", header.record_bytes,
                     " does not match the identity's ", geometry.record_width));
  }
  if (geometry.layout == RecordGeometry::Layout::kPayloadShapePairs &&
      engine->length() % 2 != 0) {
    return absl::DataLossError(
        absl::StrCat("the ", kind, " store at ", path,
                     " holds an odd number of physical records; payload/shape "
                     "pairs are broken (damaged store)"));
  }
  return OpenedStore{std::move(engine), *std::move(identity), geometry};
}

absl::StatusOr<OpenedStore> OpenOrCreateTypedStore(
    Vfs& vfs, absl::string_view path, absl::string_view kind,
    const StoreRequest& request) {
  if (kind != "dense" && request.item_shape.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a ", kind, " store has no item_shape"));
  }
  LOADERX_ASSIGN_OR_RETURN(Found found, Probe(vfs, path, kind));
  StoreOptions options;
  options.level = request.level;
  options.thread_pool = request.thread_pool;
  if (found == Found::kStore) {
    if (request.dictionary.has_value()) {
      return absl::InvalidArgumentError(
          "dict_bytes is only accepted when creating a store");
    }
    LOADERX_ASSIGN_OR_RETURN(OpenedStore store,
                             OpenTypedStore(vfs, path, kind, options));
    LOADERX_RETURN_IF_ERROR(CheckRequest(path, store, request));
    return store;
  }
  const bool can_create = request.dtype.has_value() &&
                          (kind != "dense" || request.item_shape.has_value());
  if (!can_create) {
    if (found == Found::kUnfinished) {
      return absl::DataLossError(absl::StrCat(
          path,
          " holds meta.zr but no store.zr: a store's creation did not "
          "finish (give a dtype to create it again)"));
    }
    return absl::NotFoundError(absl::StrCat(path, " is not a loaderx store"));
  }
  options.codec = request.codec.value_or("zstd");
  if (options.codec == "zstd_dict" && !request.dictionary.has_value()) {
    return absl::InvalidArgumentError(
        "creating a zstd_dict store requires dict_bytes from train_dict");
  }
  if (options.codec != "zstd_dict" && request.dictionary.has_value()) {
    return absl::InvalidArgumentError("dict_bytes requires codec='zstd_dict'");
  }
  options.dictionary = request.dictionary.value_or("");
  absl::StatusOr<OpenedStore> created = CreateTypedStore(
      vfs, path, kind,
      TypeIdentity{*request.dtype,
                   request.item_shape.value_or(std::vector<uint64_t>{})},
      options);
  if (found == Found::kUnfinished && absl::IsAlreadyExists(created.status())) {
    // meta.zr without store.zr that is not a creation to take over: as the
    // reference reports it, a bad format.
    return absl::DataLossError(
        absl::StrCat(path,
                     " holds meta.zr but no store.zr, and is not an unfinished "
                     "creation to redo (damaged store): ",
                     created.status().message()));
  }
  return created;
}

}  // namespace loaderx
