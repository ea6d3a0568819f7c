#include "loaderx/ragged_store.h"

#include <memory>
#include <utility>
#include <vector>

#include "loaderx/spi/status_macros.h"

namespace loaderx {
namespace {

constexpr char kRaggedKind[] = "ragged";

}  // namespace

RaggedStore::RaggedStore(std::unique_ptr<TypedStore> store)
    : store_(std::move(store)) {}

RaggedStore::~RaggedStore() = default;

absl::StatusOr<std::unique_ptr<RaggedStore>> RaggedStore::Wrap(
    absl::StatusOr<std::unique_ptr<TypedStore>> store) {
  LOADERX_RETURN_IF_ERROR(store.status());
  return std::unique_ptr<RaggedStore>(new RaggedStore(*std::move(store)));
}

absl::StatusOr<std::unique_ptr<RaggedStore>> RaggedStore::Create(
    Vfs& vfs, absl::string_view path, const DType& dtype,
    const StoreOptions& options) {
  return Wrap(TypedStore::Create(vfs, path, kRaggedKind,
                                 TypeIdentity{dtype, {}}, options));
}

absl::StatusOr<std::unique_ptr<RaggedStore>> RaggedStore::Open(
    Vfs& vfs, absl::string_view path, const StoreOptions& options) {
  return Wrap(TypedStore::Open(vfs, path, kRaggedKind, options));
}

absl::StatusOr<std::unique_ptr<RaggedStore>> RaggedStore::OpenOrCreate(
    Vfs& vfs, absl::string_view path, const StoreRequest& request) {
  return Wrap(TypedStore::OpenOrCreate(vfs, path, kRaggedKind, request));
}

uint64_t RaggedStore::size() const { return store_->size(); }

absl::string_view RaggedStore::codec() const { return store_->codec(); }

bool RaggedStore::has_dictionary() const { return store_->has_dictionary(); }

absl::StatusOr<uint64_t> RaggedStore::Append(
    absl::Span<const RaggedRecord> records) {
  return store_->Append(records);
}

absl::StatusOr<RaggedBatch> RaggedStore::Read(
    absl::Span<const uint64_t> indices, BatchAllocator allocate) const {
  return store_->Read(indices, allocate);
}

absl::StatusOr<std::vector<std::vector<uint64_t>>> RaggedStore::Shapes(
    absl::Span<const uint64_t> indices) const {
  return store_->Shapes(indices);
}

absl::Status RaggedStore::Gather(
    absl::Span<const uint64_t> indices,
    absl::Span<const absl::Span<char>> destinations) const {
  return store_->Gather(indices, destinations);
}

absl::Status RaggedStore::Delete(absl::Span<const uint64_t> indices) {
  return store_->Delete(indices);
}

absl::Status RaggedStore::Compact() { return store_->Compact(); }

absl::StatusOr<StoreStats> RaggedStore::Stats() const {
  return store_->Stats();
}

absl::Status RaggedStore::Sync() { return store_->Sync(); }

}  // namespace loaderx
