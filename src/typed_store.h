// What DenseStore and RaggedStore share: creating a record engine and
// publishing store.zr over it, opening one while checking that store.zr
// names the expected kind and a valid identity, and the reference's
// open-or-create over both.

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
};

// Validates `identity` with the `kind` owner, creates the engine, then
// writes store.zr (exclusive create, synced, directory synced): the store
// exists only once that is durable.
absl::StatusOr<OpenedStore> CreateTypedStore(Vfs& vfs, absl::string_view path,
                                             absl::string_view kind,
                                             const TypeIdentity& identity,
                                             const StoreOptions& options);

// Opens the engine and validates store.zr: a kind mismatch
// (FailedPrecondition, `ErrorCode::kKindMismatch`) if the store is of
// another kind, DataLoss if store.zr is missing or damaged, or its record
// width disagrees with the identity.
absl::StatusOr<OpenedStore> OpenTypedStore(Vfs& vfs, absl::string_view path,
                                           absl::string_view kind,
                                           const StoreOptions& options);

// The reference's open-or-create (see `StoreRequest`). Before anything is
// locked it probes the path as the reference does: a valid store.zr gives
// the kind (another kind than `kind` is a kind mismatch); meta.zr without
// store.zr is a creation that did not finish (DataLoss, unless `request`
// can create the store: then the creation is done again); nothing is
// NotFound unless `request` can create the store.
absl::StatusOr<OpenedStore> OpenOrCreateTypedStore(Vfs& vfs,
                                                   absl::string_view path,
                                                   absl::string_view kind,
                                                   const StoreRequest& request);

}  // namespace loaderx

#endif  // LOADERX_SRC_TYPED_STORE_H_
