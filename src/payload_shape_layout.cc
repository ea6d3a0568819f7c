// The shaped layout: record i is the pair of engine records 2i (its
// payload) and 2i+1 (its shape record, `shape_record.h`), appended in one
// commit and moved together by deletes.
//
// A batch read is two sharded passes over the batch on the engine's pool:
// the first reads each record's two table entries together and its shape
// record, checking the shape against the payload's size; then one buffer
// of the batch's size is asked for, and the second pass decodes every
// payload straight into its place in it.

#include <algorithm>
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

// Records per shard of a batch's first pass: small enough that the
// engine's calls for one shard run on its thread, not sharded again.
constexpr size_t kRecordsPerShard = 8;

// What the first pass of a read learns of each record: where its payload
// is, and its shape, checked against the payload's size.
struct LocatedRecords {
  std::vector<uint64_t> payload_indices;
  std::vector<RecordLoc> payload_locs;
  std::vector<std::vector<uint64_t>> shapes;
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
    // The second pass: every payload straight into its slot, sharded.
    LOADERX_RETURN_IF_ERROR(engine_.GatherLocated(located.payload_indices,
                                                  located.payload_locs, slots));
    batch.shapes = std::move(located.shapes);
    return batch;
  }

  absl::StatusOr<std::vector<std::vector<uint64_t>>> Shapes(
      absl::Span<const uint64_t> indices) const override {
    LOADERX_ASSIGN_OR_RETURN(LocatedRecords located, Locate(indices));
    return std::move(located.shapes);
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
  // The first pass of a read, in one sharded pass over the batch: each
  // record's two table entries (read together), then its shape record,
  // checked against the payload's size.
  absl::StatusOr<LocatedRecords> Locate(
      absl::Span<const uint64_t> indices) const {
    LocatedRecords located;
    located.payload_indices.resize(indices.size());
    located.payload_locs.resize(indices.size());
    located.shapes.resize(indices.size());
    const int shards = static_cast<int>(
        (indices.size() + kRecordsPerShard - 1) / kRecordsPerShard);
    LOADERX_RETURN_IF_ERROR(engine_.thread_pool().TryParallelFor(
        shards, [&](int shard) -> absl::Status {
          const size_t begin = shard * kRecordsPerShard;
          const size_t count =
              std::min(kRecordsPerShard, indices.size() - begin);
          return LocateShard(indices.subspan(begin, count), begin, located);
        }));
    return located;
  }

  // `Locate` for `indices`, the batch's records from `first` on.
  absl::Status LocateShard(absl::Span<const uint64_t> indices, size_t first,
                           LocatedRecords& located) const {
    std::vector<uint64_t> physical(2 * indices.size());
    for (size_t k = 0; k < indices.size(); ++k) {
      physical[2 * k] = 2 * indices[k];
      physical[2 * k + 1] = 2 * indices[k] + 1;
    }
    LOADERX_ASSIGN_OR_RETURN(std::vector<RecordLoc> locs,
                             engine_.Locate(physical));
    std::vector<uint64_t> shape_indices(indices.size());
    std::vector<RecordLoc> shape_locs(indices.size());
    std::vector<uint64_t> offsets(indices.size());
    uint64_t total = 0;
    for (size_t k = 0; k < indices.size(); ++k) {
      located.payload_indices[first + k] = physical[2 * k];
      located.payload_locs[first + k] = locs[2 * k];
      shape_indices[k] = physical[2 * k + 1];
      shape_locs[k] = locs[2 * k + 1];
      if (shape_locs[k].logic_length > kMaxShapeRecordBytes) {
        return CorruptRecordError(
            absl::StrCat("record ", indices[k], ": its shape record claims ",
                         shape_locs[k].logic_length, " bytes, more than ",
                         kMaxShapeDimensions, " dimensions take"));
      }
      offsets[k] = total;
      total += shape_locs[k].logic_length;
    }
    // One buffer for the shard's shape records.
    std::string bytes(total, '\0');
    std::vector<absl::Span<char>> slots(indices.size());
    for (size_t k = 0; k < indices.size(); ++k) {
      slots[k] =
          absl::MakeSpan(bytes).subspan(offsets[k], shape_locs[k].logic_length);
    }
    LOADERX_RETURN_IF_ERROR(
        engine_.GatherLocated(shape_indices, shape_locs, slots));
    for (size_t k = 0; k < indices.size(); ++k) {
      LOADERX_ASSIGN_OR_RETURN(
          located.shapes[first + k],
          DecodeShapeRecord(absl::string_view(slots[k].data(), slots[k].size()),
                            item_size_, locs[2 * k].logic_length, indices[k]));
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
