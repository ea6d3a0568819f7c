// A ragged record's shape record (physical record 2i+1 of a RaggedStore),
// the reference's layout: the rank, then each dimension, every word a
// little-endian u64, 8 * (rank + 1) bytes in all.
//
//   offset   size  field
//        0      8  rank
//    8 * k      8  dimension k - 1, for k = 1..rank
//
// A scalar's shape () is 8 zero bytes; (3,) is 01 00.. 03 00... A reader
// checks a shape record against its payload before it hands the record
// back: exactly rank + 1 words, at most `kMaxShapeDimensions` dimensions,
// and prod(shape) * itemsize equal to the payload's decoded size and
// greater than zero, computed without overflow. Nothing is ever sized
// from a shape: a batch's buffer comes from its payloads' table entries.

#ifndef LOADERX_SRC_SHAPE_RECORD_H_
#define LOADERX_SRC_SHAPE_RECORD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loaderx/shaped_record.h"

namespace loaderx {

// numpy's limit on dimensions; larger shape records are corrupt.
inline constexpr uint64_t kMaxShapeDimensions = 64;
inline constexpr uint64_t kMaxShapeRecordBytes = 8 * (kMaxShapeDimensions + 1);

std::string EncodeShapeRecord(absl::Span<const uint64_t> shape);

// prod(shape) * item_size, the bytes an array of `shape` holds; nullopt if
// that is more than `limit` (computed without overflow). Zero if any
// dimension is zero.
std::optional<uint64_t> ShapeBytes(absl::Span<const uint64_t> shape,
                                   uint64_t item_size, uint64_t limit);

// DataLoss carrying `ErrorCode::kCorruptRecord`, naming record `index`,
// unless `bytes` is a shape record whose shape holds exactly
// `payload_bytes` bytes of `item_size`-byte items (and more than zero).
absl::StatusOr<std::vector<uint64_t>> DecodeShapeRecord(absl::string_view bytes,
                                                        uint64_t item_size,
                                                        uint64_t payload_bytes,
                                                        uint64_t index);

// `DecodeShapeRecord` adding the shape to `shapes` (a batch's), which is
// left as it was on error.
absl::Status AppendShapeRecord(absl::string_view bytes, uint64_t item_size,
                               uint64_t payload_bytes, uint64_t index,
                               BatchShapes& shapes);

}  // namespace loaderx

#endif  // LOADERX_SRC_SHAPE_RECORD_H_
