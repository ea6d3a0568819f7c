// How the commands open, describe, create and copy stores through the
// public API (`TypedStore`, which serves any registered kind).

#ifndef LOADERX_TOOLS_CLI_STORE_ACCESS_H_
#define LOADERX_TOOLS_CLI_STORE_ACCESS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loaderx/store_options.h"
#include "loaderx/typed_store.h"
#include "loaderx/vfs.h"
#include "tools/cli/json_writer.h"
#include "tools/cli/progress.h"

namespace loaderx::cli {

// A store and the filesystem it was opened on (which outlives it).
struct OpenedStore {
  std::unique_ptr<Vfs> vfs;
  std::unique_ptr<TypedStore> store;
};

// The POSIX filesystem.
absl::StatusOr<std::unique_ptr<Vfs>> LocalVfs();

// Opens the store at `path`: NotFound if nothing is there,
// InvalidArgument if it is not a loaderx store (not a directory, or no
// meta.zr), the engine's error otherwise (DataLoss for a damaged store,
// busy if a writer holds it).
absl::StatusOr<OpenedStore> OpenStore(absl::string_view path, bool read_only);

// Creates a store at `path` of `kind` and `identity` with `options`.
absl::StatusOr<OpenedStore> CreateStore(absl::string_view path,
                                        absl::string_view kind,
                                        const TypeIdentity& identity,
                                        const StoreOptions& options);

// What `info` reports: kind, dtype, shape, codec, records, bytes, chunks,
// dictionary.
absl::StatusOr<Json> DescribeStore(absl::string_view path,
                                   const TypedStore& store);

// "(3, 4)" for a shape, Python's spelling.
std::string ShapeText(absl::Span<const uint64_t> shape);

// The store options for a new store: `codec`, `level` and the dictionary.
StoreOptions NewStoreOptions(absl::string_view codec, int level,
                             std::string dictionary);

// Appends every record of `from` to `to` (same kind and identity) in
// batches of about `kCopyBatchBytes`, advancing `progress` by records and
// checking for an interrupt between batches.
inline constexpr uint64_t kCopyBatchBytes = uint64_t{16} << 20;
absl::Status CopyRecords(const TypedStore& from, TypedStore& to,
                         Progress& progress);

// Syncs and closes `opened` (the store must be closed before it is renamed).
absl::Status SyncAndClose(OpenedStore& opened);

}  // namespace loaderx::cli

#endif  // LOADERX_TOOLS_CLI_STORE_ACCESS_H_
