#include "loaderx/ragged_store.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "loaderx/error_code.h"
#include "loaderx/spi/status_macros.h"
#include "src/index_check.h"
#include "src/record_engine.h"
#include "src/shape_record.h"
#include "src/typed_store.h"

namespace loaderx {
namespace {

using store_format::RecordLoc;

// The table entries of records `indices`: payload of record k at 2k, its
// shape at 2k + 1.
struct LocatedPairs {
  std::vector<uint64_t> payload_indices;
  std::vector<RecordLoc> payload_locs;
  std::vector<uint64_t> shape_indices;
  std::vector<RecordLoc> shape_locs;
};

absl::StatusOr<LocatedPairs> LocatePairs(const RecordEngine& engine,
                                         absl::Span<const uint64_t> indices,
                                         uint64_t size) {
  LOADERX_RETURN_IF_ERROR(CheckIndices(indices, size));
  std::vector<uint64_t> physical(2 * indices.size());
  for (size_t k = 0; k < indices.size(); ++k) {
    physical[2 * k] = 2 * indices[k];
    physical[2 * k + 1] = 2 * indices[k] + 1;
  }
  LOADERX_ASSIGN_OR_RETURN(std::vector<RecordLoc> locs,
                           engine.Locate(physical));
  LocatedPairs pairs;
  for (size_t k = 0; k < indices.size(); ++k) {
    pairs.payload_indices.push_back(physical[2 * k]);
    pairs.payload_locs.push_back(locs[2 * k]);
    pairs.shape_indices.push_back(physical[2 * k + 1]);
    pairs.shape_locs.push_back(locs[2 * k + 1]);
  }
  return pairs;
}

// The shapes of located records, each checked against its payload.
absl::StatusOr<std::vector<std::vector<uint64_t>>> ReadShapes(
    const RecordEngine& engine, absl::Span<const uint64_t> indices,
    const LocatedPairs& pairs, uint64_t item_size) {
  std::vector<std::string> bytes(indices.size());
  std::vector<absl::Span<char>> slots(indices.size());
  for (size_t k = 0; k < indices.size(); ++k) {
    const uint64_t size = pairs.shape_locs[k].logic_length;
    if (size > kMaxShapeRecordBytes) {
      return CorruptRecordError(absl::StrCat(
          "record ", indices[k], ": its shape record claims ", size,
          " bytes, more than ", kMaxShapeDimensions, " dimensions take"));
    }
    bytes[k].resize(size);
    slots[k] = absl::MakeSpan(bytes[k]);
  }
  LOADERX_RETURN_IF_ERROR(
      engine.GatherLocated(pairs.shape_indices, pairs.shape_locs, slots));
  std::vector<std::vector<uint64_t>> shapes(indices.size());
  for (size_t k = 0; k < indices.size(); ++k) {
    LOADERX_ASSIGN_OR_RETURN(
        shapes[k],
        DecodeShapeRecord(bytes[k], item_size,
                          pairs.payload_locs[k].logic_length, indices[k]));
  }
  return shapes;
}

}  // namespace

RaggedStore::RaggedStore(std::unique_ptr<RecordEngine> engine, DType dtype,
                         uint64_t item_size)
    : engine_(std::move(engine)),
      dtype_(std::move(dtype)),
      item_size_(item_size) {}

RaggedStore::~RaggedStore() = default;

absl::StatusOr<std::unique_ptr<RaggedStore>> RaggedStore::Create(
    Vfs& vfs, absl::string_view path, const DType& dtype,
    const StoreOptions& options) {
  LOADERX_ASSIGN_OR_RETURN(
      OpenedStore store,
      CreateTypedStore(vfs, path, "ragged", TypeIdentity{dtype, {}}, options));
  return std::unique_ptr<RaggedStore>(
      new RaggedStore(std::move(store.engine), std::move(store.identity.dtype),
                      store.geometry.item_size));
}

absl::StatusOr<std::unique_ptr<RaggedStore>> RaggedStore::Open(
    Vfs& vfs, absl::string_view path, const StoreOptions& options) {
  LOADERX_ASSIGN_OR_RETURN(OpenedStore store,
                           OpenTypedStore(vfs, path, "ragged", options));
  return std::unique_ptr<RaggedStore>(
      new RaggedStore(std::move(store.engine), std::move(store.identity.dtype),
                      store.geometry.item_size));
}

absl::StatusOr<std::unique_ptr<RaggedStore>> RaggedStore::OpenOrCreate(
    Vfs& vfs, absl::string_view path, const StoreRequest& request) {
  LOADERX_ASSIGN_OR_RETURN(
      OpenedStore store, OpenOrCreateTypedStore(vfs, path, "ragged", request));
  return std::unique_ptr<RaggedStore>(
      new RaggedStore(std::move(store.engine), std::move(store.identity.dtype),
                      store.geometry.item_size));
}

uint64_t RaggedStore::size() const { return engine_->length() / 2; }

absl::string_view RaggedStore::codec() const { return engine_->codec().name(); }

bool RaggedStore::has_dictionary() const {
  return engine_->codec().uses_dictionary();
}

absl::StatusOr<uint64_t> RaggedStore::Append(
    absl::Span<const RaggedRecord> records) {
  if (records.empty()) {
    return absl::InvalidArgumentError("append: a batch needs records");
  }
  std::vector<std::string> shapes;
  shapes.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const RaggedRecord& record = records[i];
    const std::string shape_text =
        absl::StrCat("(", absl::StrJoin(record.shape, ", "), ")");
    if (record.shape.size() > kMaxDimensions) {
      return absl::InvalidArgumentError(
          absl::StrCat("append: record ", i, " has ", record.shape.size(),
                       " dimensions; at most ", kMaxDimensions));
    }
    if (record.data.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("append: record ", i, " (shape ", shape_text,
                       ") is empty; zero-byte arrays cannot be stored"));
    }
    // The check a reader makes, made before anything is written.
    const std::string shape = EncodeShapeRecord(record.shape);
    if (!DecodeShapeRecord(shape, item_size_, record.data.size(), i).ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "append: record ", i, " has ", record.data.size(), " bytes, shape ",
          shape_text, " of dtype ", DTypeToString(dtype_), " (", item_size_,
          "-byte items) does not hold that"));
    }
    shapes.push_back(shape);
  }
  std::vector<absl::string_view> physical;
  physical.reserve(2 * records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    physical.push_back(records[i].data);
    physical.push_back(shapes[i]);
  }
  LOADERX_ASSIGN_OR_RETURN(uint64_t first, engine_->AppendVariable(physical));
  return first / 2;
}

absl::StatusOr<RaggedBatch> RaggedStore::Read(
    absl::Span<const uint64_t> indices,
    absl::FunctionRef<absl::StatusOr<absl::Span<char>>(uint64_t)> allocate)
    const {
  LOADERX_ASSIGN_OR_RETURN(LocatedPairs pairs,
                           LocatePairs(*engine_, indices, size()));
  RaggedBatch batch;
  LOADERX_ASSIGN_OR_RETURN(batch.shapes,
                           ReadShapes(*engine_, indices, pairs, item_size_));
  for (const RecordLoc& loc : pairs.payload_locs) {
    batch.offsets.push_back(batch.total_bytes);
    batch.total_bytes += loc.logic_length;
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
    slots[k] =
        buffer.subspan(batch.offsets[k], pairs.payload_locs[k].logic_length);
  }
  LOADERX_RETURN_IF_ERROR(
      engine_->GatherLocated(pairs.payload_indices, pairs.payload_locs, slots));
  return batch;
}

absl::StatusOr<std::vector<std::vector<uint64_t>>> RaggedStore::Shapes(
    absl::Span<const uint64_t> indices) const {
  LOADERX_ASSIGN_OR_RETURN(LocatedPairs pairs,
                           LocatePairs(*engine_, indices, size()));
  return ReadShapes(*engine_, indices, pairs, item_size_);
}

absl::Status RaggedStore::Gather(
    absl::Span<const uint64_t> indices,
    absl::Span<const absl::Span<char>> destinations) const {
  LOADERX_RETURN_IF_ERROR(CheckIndices(indices, size()));
  std::vector<uint64_t> physical(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) physical[i] = 2 * indices[i];
  return engine_->GatherVariable(physical, destinations);
}

absl::Status RaggedStore::Delete(absl::Span<const uint64_t> indices) {
  LOADERX_RETURN_IF_ERROR(CheckIndices(indices, size()));
  // A pair goes together: with the engine's descending swap-last, the
  // shape slot takes the last shape and the payload slot the last payload.
  std::vector<uint64_t> physical;
  physical.reserve(2 * indices.size());
  for (uint64_t index : indices) {
    physical.push_back(2 * index);
    physical.push_back(2 * index + 1);
  }
  return engine_->Delete(physical);
}

absl::Status RaggedStore::Compact() { return engine_->Compact(); }

absl::StatusOr<StoreStats> RaggedStore::Stats() const {
  LOADERX_ASSIGN_OR_RETURN(StoreStats stats, engine_->Stats());
  stats.records /= 2;
  return stats;
}

absl::Status RaggedStore::Sync() { return engine_->Sync(); }

}  // namespace loaderx
