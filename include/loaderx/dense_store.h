// `DenseStore` is the dense contract: every record is exactly one item of
// the store's `item_shape` and `dtype`, so records share one byte width, a
// batch read is a fixed-stride gather into one buffer, and no per-record
// metadata is touched. The type identity (dtype + item_shape) is fixed at
// creation, persisted in store.zr, and checked on every open. It is the
// `TypedStore` of kind "dense" (the fixed-width layout) with the
// reference's vocabulary.
//
// A store is a directory on a `Vfs`, which must outlive the store. One
// store object holds the directory's lock for its lifetime: a second
// `Open`, here or in another process, fails with an `IsBusy` status (with
// `StoreOptions::read_only`, any number of read-only handles share the
// store, and exclude a writer).
//
// Thread safety: `Gather`, `size` and `Stats` may be called from many
// threads, also while one thread appends; `Delete` and `Compact` need the
// store to themselves. Errors: InvalidArgument for a malformed request
// (wrong byte count, empty batch), OutOfRange naming an index, DataLoss for
// a damaged or foreign store (a record whose bytes fail their checksum
// included), FailedPrecondition with `ErrorCode::kKindMismatch` for a
// ragged store opened as dense, FailedPrecondition for a write through a
// read-only handle; a failed call changes nothing. `ErrorCodeOf` gives the
// reference's code for each.

#ifndef LOADERX_DENSE_STORE_H_
#define LOADERX_DENSE_STORE_H_

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loaderx/store_options.h"
#include "loaderx/typed_owner.h"
#include "loaderx/typed_store.h"
#include "loaderx/vfs.h"

namespace loaderx {

class DenseStore {
 public:
  // Creates a store of `identity` at `path` (AlreadyExists if one is there).
  static absl::StatusOr<std::unique_ptr<DenseStore>> Create(
      Vfs& vfs, absl::string_view path, const TypeIdentity& identity,
      const StoreOptions& options = {});

  // Opens the dense store at `path`.
  static absl::StatusOr<std::unique_ptr<DenseStore>> Open(
      Vfs& vfs, absl::string_view path, const StoreOptions& options = {});

  // The reference's open-or-create constructor (see `StoreRequest`).
  static absl::StatusOr<std::unique_ptr<DenseStore>> OpenOrCreate(
      Vfs& vfs, absl::string_view path, const StoreRequest& request);

  ~DenseStore();
  DenseStore(const DenseStore&) = delete;
  DenseStore& operator=(const DenseStore&) = delete;

  const TypeIdentity& identity() const { return store_->identity(); }
  // Bytes per record: itemsize * prod(item_shape).
  uint64_t record_bytes() const { return store_->record_bytes(); }
  uint64_t size() const;
  absl::string_view codec() const;
  // Whether the store's codec compresses against a dictionary (dict.zr).
  bool has_dictionary() const;

  // Appends the records in `data` (a whole number of records, at least one,
  // back to back). Returns the index of the first.
  absl::StatusOr<uint64_t> Append(absl::string_view data);

  // Reads the records at `indices` into `destination`
  // (`indices.size() * record_bytes()` bytes), in order.
  absl::Status Gather(absl::Span<const uint64_t> indices,
                      absl::Span<char> destination) const;

  // Deletes records by moving the last ones into their places (duplicates
  // are deleted once).
  absl::Status Delete(absl::Span<const uint64_t> indices);
  absl::Status Compact();
  // See `TypedStore::AcceptMetadataProblems`.
  absl::Status AcceptMetadataProblems() {
    return store_->AcceptMetadataProblems();
  }
  // See `TypedStore::EstimateCompaction`.
  absl::StatusOr<CompactionEstimate> EstimateCompaction() const {
    return store_->EstimateCompaction();
  }
  absl::StatusOr<StoreStats> Stats() const;
  absl::Status Sync();

  // See `TypedStore::Verify`: every record checked, every damaged one named.
  absl::StatusOr<VerifyReport> Verify(
      const VerifyProgress& progress = nullptr) const {
    return store_->Verify(progress);
  }
  // Whether this handle was opened read-only (`StoreOptions::read_only`).
  bool read_only() const { return store_->read_only(); }

  // The store as a `TypedStore` (for code that serves any kind).
  const TypedStore& typed_store() const { return *store_; }

 private:
  explicit DenseStore(std::unique_ptr<TypedStore> store);
  static absl::StatusOr<std::unique_ptr<DenseStore>> Wrap(
      absl::StatusOr<std::unique_ptr<TypedStore>> store);

  std::unique_ptr<TypedStore> store_;
};

}  // namespace loaderx

#endif  // LOADERX_DENSE_STORE_H_
