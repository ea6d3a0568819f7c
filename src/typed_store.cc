#include "src/typed_store.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "loaderx/spi/path.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/typed_owner_registry.h"
#include "src/typed_header.h"

namespace loaderx {

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
  header.record_width = geometry.record_width;
  header.identity = encoded;
  const std::string dir(path);
  LOADERX_RETURN_IF_ERROR(WriteStringToFile(
      vfs, JoinPath(dir, kTypedHeaderFile), EncodeTypedHeader(header),
      /*sync=*/true));
  LOADERX_RETURN_IF_ERROR(vfs.SyncDirectory(dir));
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
  const std::string header_path = JoinPath(std::string(path), kTypedHeaderFile);
  absl::StatusOr<std::string> bytes = ReadFileToString(vfs, header_path);
  if (absl::IsNotFound(bytes.status())) {
    return absl::DataLossError(absl::StrCat(
        header_path, " is missing: the store's creation did not finish"));
  }
  LOADERX_RETURN_IF_ERROR(bytes.status());
  LOADERX_ASSIGN_OR_RETURN(TypedHeader header,
                           DecodeTypedHeader(*bytes, header_path));
  absl::StatusOr<std::shared_ptr<const TypedOwner>> owner =
      FindTypedOwnerByTag(header.kind);
  if (!owner.ok()) {
    return absl::DataLossError(
        absl::StrCat(header_path, ": ", owner.status().message()));
  }
  if ((*owner)->kind() != kind) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the store at ", path, " is ", (*owner)->kind(), ", not ", kind));
  }
  absl::StatusOr<TypeIdentity> identity =
      (*owner)->DecodeIdentity(header.identity);
  if (!identity.ok()) {
    return absl::DataLossError(
        absl::StrCat(header_path, ": ", identity.status().message()));
  }
  LOADERX_ASSIGN_OR_RETURN(RecordGeometry geometry,
                           (*owner)->Geometry(*identity));
  if (geometry.record_width != header.record_width) {
    return absl::DataLossError(
        absl::StrCat(header_path, ": record width ", header.record_width,
                     " does not match the identity's ", geometry.record_width));
  }
  return OpenedStore{std::move(engine), *std::move(identity), geometry};
}

}  // namespace loaderx
