#include "loaderx/dense_store.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "loaderx/spi/status_macros.h"
#include "src/record_engine.h"
#include "src/typed_store.h"

namespace loaderx {

DenseStore::DenseStore(std::unique_ptr<RecordEngine> engine,
                       TypeIdentity identity, uint64_t record_bytes)
    : engine_(std::move(engine)),
      identity_(std::move(identity)),
      record_bytes_(record_bytes) {}

DenseStore::~DenseStore() = default;

absl::StatusOr<std::unique_ptr<DenseStore>> DenseStore::Create(
    Vfs& vfs, absl::string_view path, const TypeIdentity& identity,
    const StoreOptions& options) {
  LOADERX_ASSIGN_OR_RETURN(
      OpenedStore store,
      CreateTypedStore(vfs, path, "dense", identity, options));
  return std::unique_ptr<DenseStore>(
      new DenseStore(std::move(store.engine), std::move(store.identity),
                     store.geometry.record_width));
}

absl::StatusOr<std::unique_ptr<DenseStore>> DenseStore::Open(
    Vfs& vfs, absl::string_view path, const StoreOptions& options) {
  LOADERX_ASSIGN_OR_RETURN(OpenedStore store,
                           OpenTypedStore(vfs, path, "dense", options));
  return std::unique_ptr<DenseStore>(
      new DenseStore(std::move(store.engine), std::move(store.identity),
                     store.geometry.record_width));
}

absl::StatusOr<std::unique_ptr<DenseStore>> DenseStore::OpenOrCreate(
    Vfs& vfs, absl::string_view path, const StoreRequest& request) {
  LOADERX_ASSIGN_OR_RETURN(OpenedStore store,
                           OpenOrCreateTypedStore(vfs, path, "dense", request));
  return std::unique_ptr<DenseStore>(
      new DenseStore(std::move(store.engine), std::move(store.identity),
                     store.geometry.record_width));
}

uint64_t DenseStore::size() const { return engine_->length(); }

bool DenseStore::has_dictionary() const {
  return engine_->codec().uses_dictionary();
}

absl::string_view DenseStore::codec() const { return engine_->codec().name(); }

absl::StatusOr<uint64_t> DenseStore::Append(absl::string_view data) {
  if (data.empty() || data.size() % record_bytes_ != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "append: ", data.size(), " bytes are not a whole, nonzero number of ",
        record_bytes_, "-byte records"));
  }
  return engine_->AppendFixed(data, data.size() / record_bytes_, record_bytes_);
}

absl::Status DenseStore::Gather(absl::Span<const uint64_t> indices,
                                absl::Span<char> destination) const {
  return engine_->GatherFixed(indices, record_bytes_, destination);
}

absl::Status DenseStore::Delete(absl::Span<const uint64_t> indices) {
  return engine_->Delete(indices);
}

absl::Status DenseStore::Compact() { return engine_->Compact(); }

absl::StatusOr<StoreStats> DenseStore::Stats() const {
  return engine_->Stats();
}

absl::Status DenseStore::Sync() { return engine_->Sync(); }

}  // namespace loaderx
