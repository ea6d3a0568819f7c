#include "loaderx/store_streams.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/dtype.h"
#include "loaderx/spi/status_macros.h"

namespace loaderx {
namespace {

absl::Status GatherInto(const DenseStore& store,
                        absl::Span<const uint64_t> indices, StreamBatch& out) {
  LOADERX_ASSIGN_OR_RETURN(absl::Span<char> destination,
                           out.PrepareDense(indices.size()));
  return store.Gather(indices, destination);
}

// The store's one-pass read: every shape is checked against its payload
// before the buffer is sized, then the payloads land back to back in it.
absl::Status GatherInto(const RaggedStore& store,
                        absl::Span<const uint64_t> indices, StreamBatch& out) {
  LOADERX_ASSIGN_OR_RETURN(RaggedBatch batch,
                           store.Read(indices, [&out](uint64_t bytes) {
                             return out.AllocateRagged(bytes);
                           }));
  return out.SetRaggedLayout(std::move(batch.shapes), batch.offsets);
}

// A `DenseStore` or `RaggedStore` seen as a stream.
template <typename Store>
class StoreStream final : public LoaderStream {
 public:
  StoreStream(const Store& store, StreamType type)
      : store_(store), type_(std::move(type)) {}

  const StreamType& type() const override { return type_; }
  uint64_t size() const override { return store_.size(); }

  absl::Status Gather(absl::Span<const uint64_t> indices,
                      StreamBatch& out) const override {
    absl::Status status = GatherInto(store_, indices, out);
    if (!status.ok()) out.Clear();  // Empty rather than half filled.
    return status;
  }

 private:
  const Store& store_;
  const StreamType type_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<LoaderStream>> DenseStoreStream(
    const DenseStore& store) {
  StreamType type;
  type.kind = StreamKind::kDense;
  type.dtype = store.identity().dtype;
  LOADERX_ASSIGN_OR_RETURN(type.item_size, DTypeItemSize(type.dtype));
  type.item_shape = store.identity().item_shape;
  if (type.record_bytes() != store.record_bytes()) {
    return absl::InternalError(
        absl::StrCat("dense store of ", DTypeToString(type.dtype), ": ",
                     type.record_bytes(), " bytes per record by its identity, ",
                     store.record_bytes(), " by the store"));
  }
  return std::make_unique<StoreStream<DenseStore>>(store, std::move(type));
}

absl::StatusOr<std::unique_ptr<LoaderStream>> RaggedStoreStream(
    const RaggedStore& store) {
  StreamType type;
  type.kind = StreamKind::kRagged;
  type.dtype = store.dtype();
  type.item_size = store.item_size();
  return std::make_unique<StoreStream<RaggedStore>>(store, std::move(type));
}

}  // namespace loaderx
