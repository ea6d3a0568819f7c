// The shaped layout: record i is the pair of engine records 2i (its
// payload) and 2i+1 (its shape record, `shape_record.h`), appended in one
// commit and moved together by deletes.
//
// A batch read locates both entries of every record in one pass over the
// record table, reads and checks every shape against its payload's size,
// then asks for one buffer of the batch's size and decodes every payload
// straight into its place in it, sharded over the engine's pool.

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

// The table entries of a batch's records: payload of record k at 2k, its
// shape at 2k + 1, in both vectors.
struct LocatedPairs {
  std::vector<uint64_t> physical;
  std::vector<RecordLoc> locs;

  uint64_t payload_bytes(size_t k) const { return locs[2 * k].logic_length; }
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
    LOADERX_ASSIGN_OR_RETURN(LocatedPairs pairs, Locate(indices));
    ShapedBatch batch;
    LOADERX_ASSIGN_OR_RETURN(batch.shapes, ReadShapes(indices, pairs));
    batch.offsets.resize(indices.size());
    for (size_t k = 0; k < indices.size(); ++k) {
      batch.offsets[k] = batch.total_bytes;
      batch.total_bytes += pairs.payload_bytes(k);
    }
    LOADERX_ASSIGN_OR_RETURN(absl::Span<char> buffer,
                             allocate(batch.total_bytes));
    if (buffer.size() != batch.total_bytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("read: the batch needs ", batch.total_bytes,
                       " bytes, the buffer has ", buffer.size()));
    }
    std::vector<absl::Span<char>> slots(indices.size());
    for (size_t k = 0; k < indices.size(); ++k) {
      slots[k] = buffer.subspan(batch.offsets[k], pairs.payload_bytes(k));
    }
    LOADERX_RETURN_IF_ERROR(GatherPayloads(pairs, slots));
    return batch;
  }

  absl::StatusOr<std::vector<std::vector<uint64_t>>> Shapes(
      absl::Span<const uint64_t> indices) const override {
    LOADERX_ASSIGN_OR_RETURN(LocatedPairs pairs, Locate(indices));
    return ReadShapes(indices, pairs);
  }

  absl::Status Gather(
      absl::Span<const uint64_t> indices,
      absl::Span<const absl::Span<char>> destinations) const override {
    std::vector<uint64_t> physical(indices.size());
    for (size_t k = 0; k < indices.size(); ++k) physical[k] = 2 * indices[k];
    return engine_.GatherVariable(physical, destinations);
  }

 private:
  absl::StatusOr<LocatedPairs> Locate(
      absl::Span<const uint64_t> indices) const {
    LocatedPairs pairs;
    pairs.physical.resize(2 * indices.size());
    for (size_t k = 0; k < indices.size(); ++k) {
      pairs.physical[2 * k] = 2 * indices[k];
      pairs.physical[2 * k + 1] = 2 * indices[k] + 1;
    }
    LOADERX_ASSIGN_OR_RETURN(pairs.locs, engine_.Locate(pairs.physical));
    return pairs;
  }

  // The shapes of located records, each checked against its payload.
  absl::StatusOr<std::vector<std::vector<uint64_t>>> ReadShapes(
      absl::Span<const uint64_t> indices, const LocatedPairs& pairs) const {
    std::vector<uint64_t> physical(indices.size());
    std::vector<RecordLoc> locs(indices.size());
    std::vector<uint64_t> offsets(indices.size());
    uint64_t total = 0;
    for (size_t k = 0; k < indices.size(); ++k) {
      physical[k] = pairs.physical[2 * k + 1];
      locs[k] = pairs.locs[2 * k + 1];
      if (locs[k].logic_length > kMaxShapeRecordBytes) {
        return CorruptRecordError(
            absl::StrCat("record ", indices[k], ": its shape record claims ",
                         locs[k].logic_length, " bytes, more than ",
                         kMaxShapeDimensions, " dimensions take"));
      }
      offsets[k] = total;
      total += locs[k].logic_length;
    }
    // One buffer for every shape record of the batch.
    std::string bytes(total, '\0');
    std::vector<absl::Span<char>> slots(indices.size());
    for (size_t k = 0; k < indices.size(); ++k) {
      slots[k] =
          absl::MakeSpan(bytes).subspan(offsets[k], locs[k].logic_length);
    }
    LOADERX_RETURN_IF_ERROR(engine_.GatherLocated(physical, locs, slots));
    std::vector<std::vector<uint64_t>> shapes(indices.size());
    for (size_t k = 0; k < indices.size(); ++k) {
      LOADERX_ASSIGN_OR_RETURN(
          shapes[k],
          DecodeShapeRecord(absl::string_view(slots[k].data(), slots[k].size()),
                            item_size_, pairs.payload_bytes(k), indices[k]));
    }
    return shapes;
  }

  absl::Status GatherPayloads(
      const LocatedPairs& pairs,
      absl::Span<const absl::Span<char>> destinations) const {
    std::vector<uint64_t> physical(destinations.size());
    std::vector<RecordLoc> locs(destinations.size());
    for (size_t k = 0; k < destinations.size(); ++k) {
      physical[k] = pairs.physical[2 * k];
      locs[k] = pairs.locs[2 * k];
    }
    return engine_.GatherLocated(physical, locs, destinations);
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
