// `TypedStore` is the one composition of a typed owner over the record
// engine: a store of any registered kind ("dense", "ragged", or a user's
// own owner), served through the same operations. It asks the store's owner
// for the geometry of its records (`RecordGeometry`, see `typed_owner.h`)
// and lays them out accordingly:
//
//   fixed width   one engine record per record, all `record_bytes()` long,
//                 each one array of `identity().item_shape`. Reads of a
//                 batch are fixed-stride gathers into one buffer.
//   shaped        one payload/shape pair per record (engine records 2i,
//                 2i+1; the shape record is the reference's u64 rank, then
//                 u64 dimensions). Each record keeps its exact shape.
//
// `DenseStore` and `RaggedStore` are this class with the kind fixed and the
// reference's vocabulary; code that serves whatever owner a store has (the
// bindings, a user's owner) uses it directly.
//
// A store is a directory on a `Vfs`, which must outlive the store. One
// store object holds the directory's lock for its lifetime: a second
// `Open`, here or in another process, fails with an `IsBusy` status.
//
// Thread safety: every call may come from any thread at once. Reads
// (`Read`, `Gather*`, `Shapes`), appends, `Sync`, `Stats` and `Verify`
// overlap (appends are serialised among themselves); `Delete` and
// `Compact` wait for the calls in flight and hold new ones off until they
// finish, so a store may be compacted while a loader reads it (whose later
// indices past the new end are then OutOfRange).
//
// Errors: InvalidArgument for a malformed request (a record of the wrong
// dtype, shape or byte count, an empty batch or record), OutOfRange naming
// an index, FailedPrecondition for a call the store's layout has no meaning
// for (`AppendFixed` on a shaped store) and, with
// `ErrorCode::kKindMismatch`, for a store of another kind; DataLoss for a
// damaged or foreign store (`ErrorCode::kCorruptRecord` for a shape record
// that disagrees with its payload, reported before anything is allocated
// for the batch). A failed call changes nothing. `ErrorCodeOf` gives the
// reference's code for each.

#ifndef LOADERX_TYPED_STORE_H_
#define LOADERX_TYPED_STORE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loaderx/dtype.h"
#include "loaderx/shaped_record.h"
#include "loaderx/store_options.h"
#include "loaderx/typed_owner.h"
#include "loaderx/vfs.h"

namespace loaderx {

class RecordEngine;
class RecordLayout;
class StoreAccessLock;

class TypedStore {
 public:
  // A shape has at most this many dimensions (numpy's limit).
  static constexpr size_t kMaxDimensions = 64;

  // Creates a store of the registered `kind` with `identity` at `path`
  // (creating missing parents). The owner validates the identity first
  // (InvalidArgument, nothing created); AlreadyExists if a store or other
  // files are there. The store exists once its typed header is durable.
  static absl::StatusOr<std::unique_ptr<TypedStore>> Create(
      Vfs& vfs, absl::string_view path, absl::string_view kind,
      const TypeIdentity& identity, const StoreOptions& options = {});

  // Opens the store at `path`, which must be of `kind` (FailedPrecondition
  // with `ErrorCode::kKindMismatch` otherwise).
  static absl::StatusOr<std::unique_ptr<TypedStore>> Open(
      Vfs& vfs, absl::string_view path, absl::string_view kind,
      const StoreOptions& options = {});

  // Opens the store at `path`, whatever its kind (its owner must be linked
  // in: DataLoss naming the kind tag otherwise).
  static absl::StatusOr<std::unique_ptr<TypedStore>> OpenAny(
      Vfs& vfs, absl::string_view path, const StoreOptions& options = {});

  // The reference's open-or-create constructor (see `StoreRequest`) for
  // stores of `kind`, or of any kind if `kind` is empty (creating one then
  // needs a kind: NotFound, as for a missing dtype). Creating a
  // fixed-width kind needs `item_shape`; a shaped kind refuses one.
  static absl::StatusOr<std::unique_ptr<TypedStore>> OpenOrCreate(
      Vfs& vfs, absl::string_view path, absl::string_view kind,
      const StoreRequest& request);

  ~TypedStore();
  TypedStore(const TypedStore&) = delete;
  TypedStore& operator=(const TypedStore&) = delete;

  const TypedOwner& owner() const { return *owner_; }
  absl::string_view kind() const { return owner_->kind(); }
  const TypeIdentity& identity() const { return identity_; }
  const DType& dtype() const { return identity_.dtype; }
  const RecordGeometry& geometry() const { return geometry_; }
  bool fixed_width() const {
    return geometry_.layout == RecordGeometry::Layout::kFixedWidth;
  }
  // Bytes per record of a fixed-width store; 0 for a shaped one.
  uint64_t record_bytes() const { return geometry_.record_width; }
  // Bytes per element of the dtype.
  uint64_t item_size() const { return geometry_.item_size; }
  uint64_t size() const;
  absl::string_view codec() const;
  // Whether the store's codec compresses against a dictionary (dict.zr).
  bool has_dictionary() const;

  // Appends `records` (at least one) in one commit, each one record; returns
  // the index of the first. Every record is checked before anything is
  // written: its dtype (when given) is the store's, it is nonempty, holds
  // exactly prod(shape) items, has at most `kMaxDimensions` dimensions, and
  // in a fixed-width store its shape is `identity().item_shape`.
  absl::StatusOr<uint64_t> Append(absl::Span<const ShapedRecord> records);

  // Appends the records of one array whose first axis counts them:
  // `batch.shape` is (count, *record shape), count at least 1. The same
  // checks as `Append`.
  absl::StatusOr<uint64_t> AppendBatch(const ShapedRecord& batch);

  // Fixed-width stores: appends the whole records in `data`, back to back.
  absl::StatusOr<uint64_t> AppendFixed(absl::string_view data);

  // Reads the records at `indices` in one pass over the record table:
  // `allocate(total_bytes)` is called once, and record i lands at
  // `offsets[i]` of what it returns. Shaped stores check every shape
  // against its payload before anything is read into the buffer.
  absl::StatusOr<ShapedBatch> Read(absl::Span<const uint64_t> indices,
                                   BatchAllocator allocate) const;

  // Fixed-width stores: reads the records at `indices` into `destination`
  // (`indices.size() * record_bytes()` bytes), in order.
  absl::Status GatherFixed(absl::Span<const uint64_t> indices,
                           absl::Span<char> destination) const;

  // The shapes of the records at `indices`.
  absl::StatusOr<std::vector<std::vector<uint64_t>>> Shapes(
      absl::Span<const uint64_t> indices) const;

  // Reads record `indices[i]` into `destinations[i]`, which must be exactly
  // its size (prod(shape) * item_size()).
  absl::Status Gather(absl::Span<const uint64_t> indices,
                      absl::Span<const absl::Span<char>> destinations) const;

  // Deletes records by moving the last ones into their places (duplicates
  // are deleted once; a shaped record's payload and shape move together).
  absl::Status Delete(absl::Span<const uint64_t> indices);
  // Reclaims the bytes deleted records left behind (offline). Refuses with
  // ResourceExhausted, changing nothing, when the filesystem says it has
  // less free space than the compaction needs (`EstimateCompaction`); a
  // compaction the disk fills up under gives back what it staged.
  absl::Status Compact();
  // What `Compact` would do and the space it needs and has (moves count a
  // shaped store's shape records too). Offline, like `Compact`.
  absl::StatusOr<CompactionEstimate> EstimateCompaction() const;
  // As the reference: `records` counts records, the byte counts include a
  // shaped store's shape records.
  absl::StatusOr<StoreStats> Stats() const;
  // Makes everything appended so far durable.
  absl::Status Sync();

  // Reads every record once and checks it against the checksum written
  // with it (records without one are checked only for decoding, and by the
  // layout: a shape that does not describe its payload), reporting every
  // damaged record by index instead of stopping at the first. Memory: one
  // record buffer per thread. May run alongside gathers and appends; covers
  // the records present when it starts. `progress`, if given, is told how
  // far it has got (`VerifyProgress`).
  absl::StatusOr<VerifyReport> Verify(
      const VerifyProgress& progress = nullptr) const;

  // One number for the store's identity and committed state: changes with
  // any append, delete or compaction; equal for two opens of an unchanged
  // store. O(1) (a table entry and a checksum entry are read). A loader's
  // state and a store set record it to notice a different store.
  absl::StatusOr<uint64_t> Fingerprint() const;

  // Accepts what `Verify` lists as `metadata_problems` (records removed
  // past the length by another writer, or reappeared): the store as it is
  // now becomes what checksums.lx records, and later reports are clean.
  // Writable stores only; durable on return.
  absl::Status AcceptMetadataProblems();

  // Whether this handle was opened read-only (`StoreOptions::read_only`).
  bool read_only() const;

 private:
  TypedStore(std::unique_ptr<RecordEngine> engine,
             std::shared_ptr<const TypedOwner> owner, TypeIdentity identity,
             RecordGeometry geometry);

  // `Open` of `kind`, or of any kind if `kind` is empty.
  static absl::StatusOr<std::unique_ptr<TypedStore>> OpenOfKind(
      Vfs& vfs, absl::string_view path, absl::string_view kind,
      const StoreOptions& options);

  // The checks `Append` makes of one record (`position` in the batch).
  absl::Status CheckRecord(const ShapedRecord& record, size_t position) const;
  absl::Status RequireFixedWidth(absl::string_view operation) const;

  std::unique_ptr<RecordEngine> engine_;
  std::shared_ptr<const TypedOwner> owner_;
  TypeIdentity identity_;
  RecordGeometry geometry_;
  std::unique_ptr<const RecordLayout> layout_;
  // store.zr matched the checksum written with it (false: it has none).
  bool typed_header_verified_ = false;
  // Reads, appends, syncs, statistics and verification share it; `Delete`
  // and `Compact` take it alone.
  std::unique_ptr<StoreAccessLock> access_;
};

}  // namespace loaderx

#endif  // LOADERX_TYPED_STORE_H_
