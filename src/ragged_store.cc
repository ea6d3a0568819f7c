#include "loaderx/ragged_store.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "loaderx/spi/little_endian.h"
#include "loaderx/spi/status_macros.h"
#include "src/index_check.h"
#include "src/record_engine.h"
#include "src/typed_store.h"

namespace loaderx {
namespace {

// A shape record: one byte of rank, then each dimension as a little-endian
// u64. Never empty, even for a scalar's shape ().
std::string EncodeShape(const std::vector<uint64_t>& shape) {
  std::string out(1 + 8 * shape.size(), '\0');
  out[0] = static_cast<char>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    StoreLittle<uint64_t>(&out[1 + 8 * d], shape[d]);
  }
  return out;
}

absl::StatusOr<std::vector<uint64_t>> DecodeShape(absl::string_view bytes,
                                                  uint64_t index) {
  if (bytes.empty() || bytes.size() != 1 + 8 * size_t{uint8_t(bytes[0])}) {
    return absl::DataLossError(
        absl::StrCat("record ", index, ": malformed shape record"));
  }
  std::vector<uint64_t> shape(static_cast<uint8_t>(bytes[0]));
  for (size_t d = 0; d < shape.size(); ++d) {
    shape[d] = LoadLittle<uint64_t>(&bytes[1 + 8 * d]);
  }
  return shape;
}

}  // namespace

RaggedStore::RaggedStore(std::unique_ptr<RecordEngine> engine,
                         std::string dtype, uint32_t item_size)
    : engine_(std::move(engine)),
      dtype_(std::move(dtype)),
      item_size_(item_size) {}

RaggedStore::~RaggedStore() = default;

absl::StatusOr<std::unique_ptr<RaggedStore>> RaggedStore::Create(
    Vfs& vfs, absl::string_view path, absl::string_view dtype,
    const StoreOptions& options) {
  LOADERX_ASSIGN_OR_RETURN(
      OpenedStore store,
      CreateTypedStore(vfs, path, "ragged",
                       TypeIdentity{std::string(dtype), {}}, options));
  return std::unique_ptr<RaggedStore>(
      new RaggedStore(std::move(store.engine), std::move(store.identity.dtype),
                      store.geometry.item_size));
}

absl::StatusOr<std::unique_ptr<RaggedStore>> RaggedStore::Open(
    Vfs& vfs, absl::string_view path, const StoreOptions& options) {
  LOADERX_ASSIGN_OR_RETURN(OpenedStore store,
                           OpenTypedStore(vfs, path, "ragged", options));
  if (store.engine->length() % 2 != 0) {
    return absl::DataLossError(absl::StrCat(
        "the ragged store at ", path,
        " holds an odd number of physical "
        "records; payload/shape pairs are broken (damaged store)"));
  }
  return std::unique_ptr<RaggedStore>(
      new RaggedStore(std::move(store.engine), std::move(store.identity.dtype),
                      store.geometry.item_size));
}

uint64_t RaggedStore::size() const { return engine_->length() / 2; }

absl::string_view RaggedStore::codec() const { return engine_->codec().name(); }

absl::StatusOr<uint64_t> RaggedStore::Append(
    absl::Span<const RaggedRecord> records) {
  if (records.empty()) {
    return absl::InvalidArgumentError("append: a batch needs records");
  }
  std::vector<std::string> shapes;
  shapes.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const RaggedRecord& record = records[i];
    if (record.shape.size() > kMaxDimensions) {
      return absl::InvalidArgumentError(
          absl::StrCat("append: record ", i, " has ", record.shape.size(),
                       " dimensions; at most ", kMaxDimensions));
    }
    uint64_t items = 1;
    for (uint64_t dim : record.shape) items *= dim;
    if (items == 0 || record.data.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "append: record ", i, " (shape (", absl::StrJoin(record.shape, ", "),
          ")) is empty; zero-byte arrays cannot be stored"));
    }
    if (record.data.size() / item_size_ != items ||
        record.data.size() % item_size_ != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("append: record ", i, " has ", record.data.size(),
                       " bytes, shape (", absl::StrJoin(record.shape, ", "),
                       ") of ", dtype_, " needs ", items * item_size_));
    }
    shapes.push_back(EncodeShape(record.shape));
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

absl::StatusOr<std::vector<std::vector<uint64_t>>> RaggedStore::Shapes(
    absl::Span<const uint64_t> indices) const {
  LOADERX_RETURN_IF_ERROR(CheckIndices(indices, size()));
  std::vector<uint64_t> physical(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) physical[i] = 2 * indices[i] + 1;
  LOADERX_ASSIGN_OR_RETURN(std::vector<uint64_t> sizes,
                           engine_->RecordSizes(physical));
  std::vector<std::string> bytes(indices.size());
  std::vector<absl::Span<char>> slots(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    bytes[i].resize(sizes[i]);
    slots[i] = absl::MakeSpan(bytes[i]);
  }
  LOADERX_RETURN_IF_ERROR(engine_->GatherVariable(physical, slots));
  std::vector<std::vector<uint64_t>> shapes(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    LOADERX_ASSIGN_OR_RETURN(shapes[i], DecodeShape(bytes[i], indices[i]));
  }
  return shapes;
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
