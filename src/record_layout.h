// `RecordLayout` maps a typed store's records onto the record engine's
// physical records, one implementation per `RecordGeometry::Layout`:
//
//   FixedWidthLayout     record i is engine record i, `record_width` bytes.
//   PayloadShapeLayout   record i is engine records 2i (payload) and 2i+1
//                        (shape record, `shape_record.h`).
//
// `TypedStore` picks one from its owner's geometry and has checked every
// argument a layout sees: indices are in range, records are nonempty, of
// the store's dtype and hold prod(shape) items (a fixed-width record's
// shape is the store's `item_shape`). A layout is immutable and shares the
// engine's thread safety.

#ifndef LOADERX_SRC_RECORD_LAYOUT_H_
#define LOADERX_SRC_RECORD_LAYOUT_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "loaderx/shaped_record.h"
#include "loaderx/typed_owner.h"
#include "src/record_engine.h"

namespace loaderx {

class RecordLayout {
 public:
  virtual ~RecordLayout() = default;

  // Engine records per record.
  virtual uint64_t group() const = 0;

  // Appends checked `records` in one commit; returns the first record's
  // index.
  virtual absl::StatusOr<uint64_t> Append(
      absl::Span<const ShapedRecord> records) const = 0;

  // Appends `count` checked records of `record_shape`, stored back to back
  // in `data`, in one commit; returns the first record's index.
  virtual absl::StatusOr<uint64_t> AppendBatch(
      absl::string_view data, uint64_t count,
      absl::Span<const uint64_t> record_shape) const = 0;

  // See `TypedStore::Read`.
  virtual absl::StatusOr<ShapedBatch> Read(absl::Span<const uint64_t> indices,
                                           BatchAllocator allocate) const = 0;

  virtual absl::StatusOr<std::vector<std::vector<uint64_t>>> Shapes(
      absl::Span<const uint64_t> indices) const = 0;

  virtual absl::Status Gather(
      absl::Span<const uint64_t> indices,
      absl::Span<const absl::Span<char>> destinations) const = 0;

  // `TypedStore::Verify`'s check of record `index` beyond its checksums:
  // DataLoss (`ErrorCode::kCorruptRecord`) if its stored parts disagree.
  virtual absl::Status CheckStoredRecord(uint64_t index) const = 0;
};

// What a layout's `Read` checks of the buffer its allocator returned:
// InvalidArgument unless it is exactly `total_bytes` long.
absl::Status CheckBatchBuffer(absl::Span<char> buffer, uint64_t total_bytes);

// The layout for `geometry`, over `engine` (which must outlive it).
// `identity` gives a fixed-width layout its records' shape.
std::unique_ptr<const RecordLayout> MakeRecordLayout(
    RecordEngine& engine, const TypeIdentity& identity,
    const RecordGeometry& geometry);

// The two layouts `MakeRecordLayout` chooses from.
std::unique_ptr<const RecordLayout> MakeFixedWidthLayout(
    RecordEngine& engine, std::vector<uint64_t> shape, uint64_t width);
std::unique_ptr<const RecordLayout> MakePayloadShapeLayout(RecordEngine& engine,
                                                           uint64_t item_size);

}  // namespace loaderx

#endif  // LOADERX_SRC_RECORD_LAYOUT_H_
