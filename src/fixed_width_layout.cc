// The fixed-width layout: record i is engine record i, every one `width_`
// bytes and one array of `shape_`. Nothing per record is stored beyond the
// engine's table entry, so a batch read is one fixed-stride gather.

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/spi/status_macros.h"
#include "src/record_layout.h"

namespace loaderx {
namespace {

class FixedWidthLayout final : public RecordLayout {
 public:
  FixedWidthLayout(RecordEngine& engine, std::vector<uint64_t> shape,
                   uint64_t width)
      : engine_(engine), shape_(std::move(shape)), width_(width) {}

  uint64_t group() const override { return 1; }

  absl::StatusOr<uint64_t> Append(
      absl::Span<const ShapedRecord> records) const override {
    std::vector<absl::string_view> physical(records.size());
    for (size_t i = 0; i < records.size(); ++i) physical[i] = records[i].data;
    return engine_.AppendVariable(physical);
  }

  absl::StatusOr<uint64_t> AppendBatch(
      absl::string_view data, uint64_t count,
      absl::Span<const uint64_t> record_shape) const override {
    return engine_.AppendFixed(data, count, width_);
  }

  absl::StatusOr<ShapedBatch> Read(absl::Span<const uint64_t> indices,
                                   BatchAllocator allocate) const override {
    ShapedBatch batch;
    batch.total_bytes = indices.size() * width_;
    LOADERX_ASSIGN_OR_RETURN(absl::Span<char> buffer,
                             allocate(batch.total_bytes));
    LOADERX_RETURN_IF_ERROR(CheckBatchBuffer(buffer, batch.total_bytes));
    LOADERX_RETURN_IF_ERROR(engine_.GatherFixed(indices, width_, buffer));
    batch.shapes.Reserve(indices.size(), indices.size() * shape_.size());
    for (size_t i = 0; i < indices.size(); ++i) batch.shapes.Add(shape_);
    batch.offsets.resize(indices.size());
    for (size_t i = 0; i < indices.size(); ++i) {
      batch.offsets[i] = i * width_;
    }
    return batch;
  }

  absl::StatusOr<std::vector<std::vector<uint64_t>>> Shapes(
      absl::Span<const uint64_t> indices) const override {
    return std::vector<std::vector<uint64_t>>(indices.size(), shape_);
  }

  absl::Status Gather(
      absl::Span<const uint64_t> indices,
      absl::Span<const absl::Span<char>> destinations) const override {
    for (size_t i = 0; i < destinations.size(); ++i) {
      if (destinations[i].size() != width_) {
        return absl::InvalidArgumentError(
            absl::StrCat("gather: destination ", i, " has ",
                         destinations[i].size(), " bytes, a record ", width_));
      }
    }
    return engine_.GatherVariable(indices, destinations);
  }

  absl::Status CheckStoredRecord(uint64_t) const override {
    return absl::OkStatus();  // Its checksum is all there is to check.
  }

 private:
  RecordEngine& engine_;
  const std::vector<uint64_t> shape_;
  const uint64_t width_;
};

}  // namespace

std::unique_ptr<const RecordLayout> MakeFixedWidthLayout(
    RecordEngine& engine, std::vector<uint64_t> shape, uint64_t width) {
  return std::make_unique<FixedWidthLayout>(engine, std::move(shape), width);
}

}  // namespace loaderx
