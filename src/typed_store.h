// What DenseStore and RaggedStore share: creating a record engine and
// publishing store.zr over it, and opening one while checking that store.zr
// names the expected kind and a valid identity.

#ifndef LOADERX_SRC_TYPED_STORE_H_
#define LOADERX_SRC_TYPED_STORE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "loaderx/store_options.h"
#include "loaderx/typed_owner.h"
#include "loaderx/vfs.h"
#include "src/record_engine.h"

namespace loaderx {

struct OpenedStore {
  std::unique_ptr<RecordEngine> engine;
  TypeIdentity identity;
  RecordGeometry geometry;
  // store.zr matched the checksum written with it (false: it has none).
  bool typed_header_verified = false;
};

// Validates `identity` with the `kind` owner, creates the engine, then
// writes and syncs store.zr (the store exists only once that is durable).
absl::StatusOr<OpenedStore> CreateTypedStore(Vfs& vfs, absl::string_view path,
                                             absl::string_view kind,
                                             const TypeIdentity& identity,
                                             const StoreOptions& options);

// Opens the engine and validates store.zr: FailedPrecondition if the store
// is of another kind, DataLoss if store.zr is missing or damaged (including
// a mismatch with its checksum).
absl::StatusOr<OpenedStore> OpenTypedStore(Vfs& vfs, absl::string_view path,
                                           absl::string_view kind,
                                           const StoreOptions& options);

}  // namespace loaderx

#endif  // LOADERX_SRC_TYPED_STORE_H_
