#include "loaderx/store_streams.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/dtype.h"
#include "loaderx/spi/status_macros.h"

namespace loaderx {
namespace {

// A `TypedStore` seen as a stream: fixed-width kinds gather into the dense
// layout, shaped kinds read in the store's one pass (every shape checked
// against its payload before the buffer is sized, then the payloads back to
// back in it).
class TypedStoreStreamImpl final : public LoaderStream {
 public:
  TypedStoreStreamImpl(std::shared_ptr<const TypedStore> store, StreamType type,
                       uint64_t fingerprint)
      : store_(std::move(store)),
        type_(std::move(type)),
        fingerprint_(fingerprint) {}

  const StreamType& type() const override { return type_; }
  uint64_t size() const override { return store_->size(); }
  uint64_t fingerprint() const override { return fingerprint_; }

  absl::Status Gather(absl::Span<const uint64_t> indices,
                      StreamBatch& out) const override {
    absl::Status status = GatherInto(indices, out);
    if (!status.ok()) out.Clear();  // Empty rather than half filled.
    return status;
  }

 private:
  absl::Status GatherInto(absl::Span<const uint64_t> indices,
                          StreamBatch& out) const {
    if (type_.kind == StreamKind::kDense) {
      LOADERX_ASSIGN_OR_RETURN(absl::Span<char> destination,
                               out.PrepareDense(indices.size()));
      return store_->GatherFixed(indices, destination);
    }
    LOADERX_ASSIGN_OR_RETURN(ShapedBatch batch,
                             store_->Read(indices, [&out](uint64_t bytes) {
                               return out.AllocateRagged(bytes);
                             }));
    return out.SetRaggedLayout(std::move(batch.shapes), batch.offsets);
  }

  const std::shared_ptr<const TypedStore> store_;
  const StreamType type_;
  const uint64_t fingerprint_;
};

// A `StoreSet` seen as a stream (see `StoreSetStream`).
class StoreSetStreamImpl final : public LoaderStream {
 public:
  StoreSetStreamImpl(std::shared_ptr<const StoreSet> set, StreamType type)
      : set_(std::move(set)), type_(std::move(type)) {}

  const StreamType& type() const override { return type_; }
  uint64_t size() const override { return set_->size(); }
  uint64_t fingerprint() const override { return set_->fingerprint(); }

  absl::Status Gather(absl::Span<const uint64_t> indices,
                      StreamBatch& out) const override {
    absl::Status status = GatherInto(indices, out);
    if (!status.ok()) out.Clear();
    return status;
  }

 private:
  absl::Status GatherInto(absl::Span<const uint64_t> indices,
                          StreamBatch& out) const {
    if (type_.kind == StreamKind::kDense) {
      LOADERX_ASSIGN_OR_RETURN(absl::Span<char> destination,
                               out.PrepareDense(indices.size()));
      return set_->GatherFixed(indices, destination);
    }
    LOADERX_ASSIGN_OR_RETURN(std::vector<std::vector<uint64_t>> shapes,
                             set_->Shapes(indices));
    LOADERX_ASSIGN_OR_RETURN(absl::Span<const absl::Span<char>> destinations,
                             out.PrepareRagged(shapes));
    return set_->Gather(indices, destinations);
  }

  const std::shared_ptr<const StoreSet> set_;
  const StreamType type_;
};

// `store`, not owned: the caller keeps it alive.
std::shared_ptr<const TypedStore> Unowned(const TypedStore& store) {
  return std::shared_ptr<const TypedStore>(std::shared_ptr<void>(), &store);
}

}  // namespace

absl::StatusOr<std::unique_ptr<LoaderStream>> TypedStoreStream(
    std::shared_ptr<const TypedStore> store) {
  if (store == nullptr) {
    return absl::InvalidArgumentError("TypedStoreStream: the store is null");
  }
  StreamType type;
  type.dtype = store->dtype();
  type.item_size = store->item_size();
  if (store->fixed_width()) {
    type.kind = StreamKind::kDense;
    type.item_shape = store->identity().item_shape;
    LOADERX_ASSIGN_OR_RETURN(const uint64_t item_size,
                             DTypeItemSize(type.dtype));
    if (item_size != type.item_size ||
        type.record_bytes() != store->record_bytes()) {
      return absl::InternalError(absl::StrCat(
          "a '", store->kind(), "' store of ", DTypeToString(type.dtype), ": ",
          type.record_bytes(), " bytes per record by its identity, ",
          store->record_bytes(), " by the store"));
    }
  } else {
    type.kind = StreamKind::kRagged;
  }
  LOADERX_ASSIGN_OR_RETURN(const uint64_t fingerprint, store->Fingerprint());
  return std::make_unique<TypedStoreStreamImpl>(std::move(store),
                                                std::move(type), fingerprint);
}

absl::StatusOr<std::unique_ptr<LoaderStream>> StoreSetStream(
    std::shared_ptr<const StoreSet> set) {
  if (set == nullptr) {
    return absl::InvalidArgumentError("StoreSetStream: the set is null");
  }
  // The members' type, as the first member's stream describes it.
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<LoaderStream> first,
                           TypedStoreStream(set->shared_member(0)));
  return std::make_unique<StoreSetStreamImpl>(std::move(set), first->type());
}

absl::StatusOr<std::unique_ptr<LoaderStream>> DenseStoreStream(
    const DenseStore& store) {
  return TypedStoreStream(Unowned(store.typed_store()));
}

absl::StatusOr<std::unique_ptr<LoaderStream>> RaggedStoreStream(
    const RaggedStore& store) {
  return TypedStoreStream(Unowned(store.typed_store()));
}

}  // namespace loaderx
