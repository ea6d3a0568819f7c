#include "loaderx/dense_store.h"

#include <memory>
#include <utility>

#include "loaderx/spi/status_macros.h"

namespace loaderx {
namespace {

constexpr char kDenseKind[] = "dense";

}  // namespace

DenseStore::DenseStore(std::unique_ptr<TypedStore> store)
    : store_(std::move(store)) {}

DenseStore::~DenseStore() = default;

absl::StatusOr<std::unique_ptr<DenseStore>> DenseStore::Wrap(
    absl::StatusOr<std::unique_ptr<TypedStore>> store) {
  LOADERX_RETURN_IF_ERROR(store.status());
  return std::unique_ptr<DenseStore>(new DenseStore(*std::move(store)));
}

absl::StatusOr<std::unique_ptr<DenseStore>> DenseStore::Create(
    Vfs& vfs, absl::string_view path, const TypeIdentity& identity,
    const StoreOptions& options) {
  return Wrap(TypedStore::Create(vfs, path, kDenseKind, identity, options));
}

absl::StatusOr<std::unique_ptr<DenseStore>> DenseStore::Open(
    Vfs& vfs, absl::string_view path, const StoreOptions& options) {
  return Wrap(TypedStore::Open(vfs, path, kDenseKind, options));
}

absl::StatusOr<std::unique_ptr<DenseStore>> DenseStore::OpenOrCreate(
    Vfs& vfs, absl::string_view path, const StoreRequest& request) {
  return Wrap(TypedStore::OpenOrCreate(vfs, path, kDenseKind, request));
}

uint64_t DenseStore::size() const { return store_->size(); }

absl::string_view DenseStore::codec() const { return store_->codec(); }

bool DenseStore::has_dictionary() const { return store_->has_dictionary(); }

absl::StatusOr<uint64_t> DenseStore::Append(absl::string_view data) {
  return store_->AppendFixed(data);
}

absl::Status DenseStore::Gather(absl::Span<const uint64_t> indices,
                                absl::Span<char> destination) const {
  return store_->GatherFixed(indices, destination);
}

absl::Status DenseStore::Delete(absl::Span<const uint64_t> indices) {
  return store_->Delete(indices);
}

absl::Status DenseStore::Compact() { return store_->Compact(); }

absl::StatusOr<StoreStats> DenseStore::Stats() const { return store_->Stats(); }

absl::Status DenseStore::Sync() { return store_->Sync(); }

}  // namespace loaderx
