// The shaped layout: record i is the pair of engine records 2i (its
// payload) and 2i+1 (its shape record, `shape_record.h`), appended in one
// commit and moved together by deletes.
//
// A batch read is one pass over the record table and one gather. Both
// table entries of every record are read (`RecordEngine::Locate`) and each
// shape record's size checked against the most a shape takes (the gather
// reads the entries again, from the cache, and hashes each mapped entry
// for its checksum binding: cheaper, measured, than handing it the decoded
// ones, whose binding must be encoded again); one
// buffer of the batch's size (the payloads' sizes, which `Open` checked
// against their chunks and codec) is asked for; then the engine's one-pass
// gather (`GatherVariable`) takes every payload straight into its place in
// it and every shape record, right behind its payload in the chunk, into a
// small buffer of its own, each checked as any record is (bounds,
// checksum, decoding); last, each shape is checked against its payload's
// size and kept in one flat `BatchShapes`. A shape that disagrees with its
// payload fails the read: the caller's buffer then holds no batch.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/optimization.h"
#include "absl/strings/str_cat.h"
#include "loaderx/error_code.h"
#include "loaderx/spi/status_macros.h"
#include "src/record_layout.h"
#include "src/shape_record.h"

namespace loaderx {
namespace {

using store_format::RecordLoc;

// A batch's records as the engine stores them: record k's payload at
// `physical[2k]` and its shape record at `physical[2k + 1]` (side by side,
// so a pair's entries are read together), with their table entries.
struct Pairs {
  std::vector<uint64_t> physical;
  std::vector<RecordLoc> locs;
  uint64_t shape_bytes = 0;  // The shape records' sizes, summed.

  const RecordLoc& payload(size_t k) const { return locs[2 * k]; }
  const RecordLoc& shape(size_t k) const { return locs[2 * k + 1]; }
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
    LOADERX_ASSIGN_OR_RETURN(const Pairs pairs, LocatePairs(indices));
    const size_t n = indices.size();
    ShapedBatch batch;
    batch.offsets.resize(n);
    for (size_t k = 0; k < n; ++k) {
      batch.offsets[k] = batch.total_bytes;
      batch.total_bytes += pairs.payload(k).logic_length;
    }
    LOADERX_ASSIGN_OR_RETURN(absl::Span<char> buffer,
                             allocate(batch.total_bytes));
    LOADERX_RETURN_IF_ERROR(CheckBatchBuffer(buffer, batch.total_bytes));
    std::unique_ptr<char[]> shape_bytes(new char[pairs.shape_bytes]);
    std::vector<absl::Span<char>> slots(2 * n);
    for (size_t k = 0, at = 0; k < n; at += pairs.shape(k).logic_length, ++k) {
      slots[2 * k] =
          buffer.subspan(batch.offsets[k], pairs.payload(k).logic_length);
      slots[2 * k + 1] =
          absl::MakeSpan(shape_bytes.get() + at, pairs.shape(k).logic_length);
    }
    LOADERX_RETURN_IF_ERROR(engine_.GatherVariable(pairs.physical, slots));
    LOADERX_RETURN_IF_ERROR(
        DecodeShapes(indices, pairs, shape_bytes.get(), batch.shapes));
    return batch;
  }

  absl::StatusOr<std::vector<std::vector<uint64_t>>> Shapes(
      absl::Span<const uint64_t> indices) const override {
    LOADERX_ASSIGN_OR_RETURN(BatchShapes shapes, ReadShapes(indices));
    return shapes.ToVectors();
  }

  absl::Status Gather(
      absl::Span<const uint64_t> indices,
      absl::Span<const absl::Span<char>> destinations) const override {
    std::vector<uint64_t> physical(indices.size());
    for (size_t k = 0; k < indices.size(); ++k) physical[k] = 2 * indices[k];
    return engine_.GatherVariable(physical, destinations);
  }

  absl::Status CheckStoredRecord(uint64_t index) const override {
    // `ReadShapes` checks the shape against its payload's size.
    return ReadShapes({index}).status();
  }

 private:
  // Both table entries of every record (`RecordEngine::Locate`), each
  // shape record's size checked against the most a shape takes.
  absl::StatusOr<Pairs> LocatePairs(absl::Span<const uint64_t> indices) const {
    Pairs pairs;
    pairs.physical.resize(2 * indices.size());
    for (size_t k = 0; k < indices.size(); ++k) {
      pairs.physical[2 * k] = 2 * indices[k];
      pairs.physical[2 * k + 1] = 2 * indices[k] + 1;
    }
    LOADERX_ASSIGN_OR_RETURN(pairs.locs, engine_.Locate(pairs.physical));
    for (size_t k = 0; k < indices.size(); ++k) {
      const uint64_t bytes = pairs.shape(k).logic_length;
      if (ABSL_PREDICT_FALSE(bytes > kMaxShapeRecordBytes)) {
        return CorruptRecordError(absl::StrCat(
            "record ", indices[k], ": its shape record claims ", bytes,
            " bytes, more than ", kMaxShapeDimensions, " dimensions take"));
      }
      pairs.shape_bytes += bytes;
    }
    return pairs;
  }

  // The shapes of the records at `indices`, each checked against its
  // payload's size; the payloads are not read.
  absl::StatusOr<BatchShapes> ReadShapes(
      absl::Span<const uint64_t> indices) const {
    LOADERX_ASSIGN_OR_RETURN(const Pairs pairs, LocatePairs(indices));
    const size_t n = indices.size();
    std::vector<uint64_t> shape_indices(n);
    std::unique_ptr<char[]> shape_bytes(new char[pairs.shape_bytes]);
    std::vector<absl::Span<char>> slots(n);
    for (size_t k = 0, at = 0; k < n; at += pairs.shape(k).logic_length, ++k) {
      shape_indices[k] = pairs.physical[2 * k + 1];
      slots[k] =
          absl::MakeSpan(shape_bytes.get() + at, pairs.shape(k).logic_length);
    }
    LOADERX_RETURN_IF_ERROR(engine_.GatherVariable(shape_indices, slots));
    BatchShapes shapes;
    LOADERX_RETURN_IF_ERROR(
        DecodeShapes(indices, pairs, shape_bytes.get(), shapes));
    return shapes;
  }

  // Each gathered shape record (back to back in `shape_bytes`) decoded and
  // checked against its payload's size, into `shapes`.
  absl::Status DecodeShapes(absl::Span<const uint64_t> indices,
                            const Pairs& pairs, const char* shape_bytes,
                            BatchShapes& shapes) const {
    shapes.Reserve(indices.size(), 4 * indices.size());  // Ranks 1-4.
    for (size_t k = 0; k < indices.size(); ++k) {
      const uint64_t bytes = pairs.shape(k).logic_length;
      LOADERX_RETURN_IF_ERROR(
          AppendShapeRecord(absl::string_view(shape_bytes, bytes), item_size_,
                            pairs.payload(k).logic_length, indices[k], shapes));
      shape_bytes += bytes;
    }
    return absl::OkStatus();
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
