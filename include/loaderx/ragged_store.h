// `RaggedStore` is the ragged contract: records of one dtype whose shapes
// differ arbitrarily. Each record keeps its exact shape, written with it and
// restored on read (a scalar's shape () included); nothing is inferred and
// nothing is padded. Physically a record is a payload/shape pair (engine
// records 2i and 2i+1), appended and deleted together; the shape record is
// the reference's: a u64 rank, then rank u64 dimensions, little-endian.
// Zero-byte arrays are rejected: physical records are nonempty. It is the
// `TypedStore` of kind "ragged" (the shaped layout) with the reference's
// vocabulary.
//
// Reading: `Read` is one pass over the batch that reads and checks every
// record's shape against its payload, then asks the caller for one buffer
// of the batch's size and fills it in the engine's one-pass gather. `Shapes`
// and `Gather` are the same in two steps, for callers with buffers of their
// own. Locking, thread safety and error codes are those of `DenseStore`; a
// shape record that disagrees with its payload (or is malformed) is DataLoss
// with `ErrorCode::kCorruptRecord`, reported before anything is allocated for
// it.

#ifndef LOADERX_RAGGED_STORE_H_
#define LOADERX_RAGGED_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loaderx/dtype.h"
#include "loaderx/store_options.h"
#include "loaderx/typed_store.h"
#include "loaderx/vfs.h"

namespace loaderx {

// One record to append: `data` holds prod(shape) items of the store's dtype.
using RaggedRecord = ShapedRecord;

// Where `RaggedStore::Read` put a batch of records in its buffer.
using RaggedBatch = ShapedBatch;

class RaggedStore {
 public:
  // A shape has at most this many dimensions (numpy's limit).
  static constexpr size_t kMaxDimensions = TypedStore::kMaxDimensions;

  static absl::StatusOr<std::unique_ptr<RaggedStore>> Create(
      Vfs& vfs, absl::string_view path, const DType& dtype,
      const StoreOptions& options = {});
  static absl::StatusOr<std::unique_ptr<RaggedStore>> Open(
      Vfs& vfs, absl::string_view path, const StoreOptions& options = {});
  // The reference's open-or-create constructor (see `StoreRequest`;
  // `item_shape` must be absent).
  static absl::StatusOr<std::unique_ptr<RaggedStore>> OpenOrCreate(
      Vfs& vfs, absl::string_view path, const StoreRequest& request);

  ~RaggedStore();
  RaggedStore(const RaggedStore&) = delete;
  RaggedStore& operator=(const RaggedStore&) = delete;

  const DType& dtype() const { return store_->dtype(); }
  uint64_t item_size() const { return store_->item_size(); }
  uint64_t size() const;
  absl::string_view codec() const;
  // Whether the store's codec compresses against a dictionary (dict.zr).
  bool has_dictionary() const;

  // Appends `records` (at least one) in one commit; returns the first index.
  absl::StatusOr<uint64_t> Append(absl::Span<const RaggedRecord> records);

  // Reads the records at `indices`: `allocate(total_bytes)` is called once,
  // after every shape was checked, and must return exactly that many
  // writable bytes (or an error, which `Read` returns); record i lands at
  // `offsets[i]` in it.
  absl::StatusOr<RaggedBatch> Read(absl::Span<const uint64_t> indices,
                                   BatchAllocator allocate) const;

  // The shapes of the records at `indices`.
  absl::StatusOr<std::vector<std::vector<uint64_t>>> Shapes(
      absl::Span<const uint64_t> indices) const;

  // Reads record `indices[i]` into `destinations[i]`, which must be exactly
  // prod(shape) * item_size() bytes.
  absl::Status Gather(absl::Span<const uint64_t> indices,
                      absl::Span<const absl::Span<char>> destinations) const;

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
  // As the reference: `records` counts logical records, the byte counts
  // include the shape records.
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
  explicit RaggedStore(std::unique_ptr<TypedStore> store);
  static absl::StatusOr<std::unique_ptr<RaggedStore>> Wrap(
      absl::StatusOr<std::unique_ptr<TypedStore>> store);

  std::unique_ptr<TypedStore> store_;
};

}  // namespace loaderx

#endif  // LOADERX_RAGGED_STORE_H_
