// The shaped layout: record i is the pair of engine records 2i (its
// payload) and 2i+1 (its shape record, `shape_record.h`), appended in one
// commit and moved together by deletes.
//
// A batch read is two passes over the batch: the engine's `LocatePairs`
// reads each record's two table entries and its shape record (checked as
// any record is), and the layout checks the shape against the payload's
// size, keeping every shape in one flat `BatchShapes`; then one buffer of the
// batch's size is asked for, and the engine's one-pass gather decodes
// every payload, already located, straight into its place in it.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/error_code.h"
#include "loaderx/spi/status_macros.h"
#include "src/record_layout.h"
#include "src/shape_record.h"

namespace loaderx {
namespace {

using store_format::RecordLoc;

// What the first pass of a read learns of each record: where its payload
// is, and its shape, checked against the payload's size.
struct LocatedRecords {
  std::vector<uint64_t> payload_indices;
  std::vector<RecordLoc> payload_locs;
  BatchShapes shapes;
};

class PayloadShapeLayout final : public RecordLayout {
 public:
  PayloadShapeLayout(RecordEngine& engine, uint64_t item_size)
      : engine_(engine), item_size_(item_size) {}

  uint64_t group() const override { return 2; }

  absl::StatusOr<uint64_t> Append(
      absl::Span<const ShapedRecord> records) const override {
    std::vector<std::string> shapes(records.size());
    std::vector<absl::string_view> physical(2 * records.size());
    for (size_t i = 0; i < records.size(); ++i) {
      shapes[i] = EncodeShapeRecord(records[i].shape);
      physical[2 * i] = records[i].data;
      physical[2 * i + 1] = shapes[i];
    }
    LOADERX_ASSIGN_OR_RETURN(uint64_t first, engine_.AppendVariable(physical));
    return first / 2;
  }

  absl::StatusOr<uint64_t> AppendBatch(
      absl::string_view data, uint64_t count,
      absl::Span<const uint64_t> record_shape) const override {
    const std::string shape = EncodeShapeRecord(record_shape);
    const uint64_t width = data.size() / count;
    std::vector<absl::string_view> physical(2 * count);
    for (uint64_t i = 0; i < count; ++i) {
      physical[2 * i] = data.substr(i * width, width);
      physical[2 * i + 1] = shape;
    }
    LOADERX_ASSIGN_OR_RETURN(uint64_t first, engine_.AppendVariable(physical));
    return first / 2;
  }

  absl::StatusOr<ShapedBatch> Read(absl::Span<const uint64_t> indices,
                                   BatchAllocator allocate) const override {
    LOADERX_ASSIGN_OR_RETURN(LocatedRecords located, Locate(indices));
    ShapedBatch batch;
    batch.offsets.resize(indices.size());
    for (size_t k = 0; k < indices.size(); ++k) {
      batch.offsets[k] = batch.total_bytes;
      batch.total_bytes += located.payload_locs[k].logic_length;
    }
    LOADERX_ASSIGN_OR_RETURN(absl::Span<char> buffer,
                             allocate(batch.total_bytes));
    LOADERX_RETURN_IF_ERROR(CheckBatchBuffer(buffer, batch.total_bytes));
    std::vector<absl::Span<char>> slots(indices.size());
    for (size_t k = 0; k < indices.size(); ++k) {
      slots[k] = buffer.subspan(batch.offsets[k],
                                located.payload_locs[k].logic_length);
    }
    // The second pass: every payload straight into its slot, in the
    // engine's one-pass gather.
    LOADERX_RETURN_IF_ERROR(engine_.GatherLocated(located.payload_indices,
                                                  located.payload_locs, slots));
    batch.shapes = std::move(located.shapes);
    return batch;
  }

  absl::StatusOr<std::vector<std::vector<uint64_t>>> Shapes(
      absl::Span<const uint64_t> indices) const override {
    LOADERX_ASSIGN_OR_RETURN(LocatedRecords located, Locate(indices));
    return located.shapes.ToVectors();
  }

  absl::Status Gather(
      absl::Span<const uint64_t> indices,
      absl::Span<const absl::Span<char>> destinations) const override {
    std::vector<uint64_t> physical(indices.size());
    for (size_t k = 0; k < indices.size(); ++k) physical[k] = 2 * indices[k];
    return engine_.GatherVariable(physical, destinations);
  }

  absl::Status CheckStoredRecord(uint64_t index) const override {
    // `Locate` checks the shape against its payload's size.
    return Locate({index}).status();
  }

 private:
  // The first pass of a read, in one pass over the batch: each record's
  // two table entries and its shape record (`RecordEngine::LocatePairs`),
  // the shape checked against the payload's size.
  absl::StatusOr<LocatedRecords> Locate(
      absl::Span<const uint64_t> indices) const {
    LocatedRecords located;
    located.payload_indices.resize(indices.size());
    for (size_t k = 0; k < indices.size(); ++k) {
      located.payload_indices[k] = 2 * indices[k];
    }
    located.payload_locs.resize(indices.size());
    located.shapes.Reserve(indices.size(), 4 * indices.size());  // Ranks 1-4.
    LOADERX_RETURN_IF_ERROR(engine_.LocatePairs(
        located.payload_indices, kMaxShapeRecordBytes,
        absl::MakeSpan(located.payload_locs),
        [&](size_t k, uint64_t bytes) -> absl::Status {
          return CorruptRecordError(absl::StrCat(
              "record ", indices[k], ": its shape record claims ", bytes,
              " bytes, more than ", kMaxShapeDimensions, " dimensions take"));
        },
        [&](size_t k, absl::string_view shape) -> absl::Status {
          return AppendShapeRecord(shape, item_size_,
                                   located.payload_locs[k].logic_length,
                                   indices[k], located.shapes);
        }));
    return located;
  }

  RecordEngine& engine_;
  const uint64_t item_size_;
};

}  // namespace

std::unique_ptr<const RecordLayout> MakePayloadShapeLayout(RecordEngine& engine,
                                                           uint64_t item_size) {
  return std::make_unique<PayloadShapeLayout>(engine, item_size);
}

}  // namespace loaderx
