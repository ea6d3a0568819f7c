#include "swig/loader_binding.h"

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "loaderx/data_loader.h"
#include "loaderx/loader_batch.h"
#include "loaderx/loader_stream.h"
#include "loaderx/store_set.h"
#include "loaderx/store_streams.h"
#include "loaderx/typed_store.h"
#include "loaderx/vfs.h"
#include "swig/binding_status.h"
#include "swig/guarded_store.h"
#include "swig/set_binding.h"

namespace loaderx::binding {
namespace {

// Record i is the index i itself (uint64, shape ()).
class IndexStream final : public LoaderStream {
 public:
  explicit IndexStream(uint64_t length) : length_(length) {
    type_.kind = StreamKind::kDense;
    type_.dtype = DType::Simple("<u8");
    type_.item_size = sizeof(uint64_t);
  }

  const StreamType& type() const override { return type_; }
  uint64_t size() const override { return length_; }

  absl::Status Gather(absl::Span<const uint64_t> indices,
                      StreamBatch& out) const override {
    for (size_t i = 0; i < indices.size(); ++i) {
      if (indices[i] >= length_) {
        out.Clear();
        return absl::OutOfRangeError(
            absl::StrCat("index ", indices[i], " (position ", i,
                         ") is out of range for ", length_, " records"));
      }
    }
    absl::StatusOr<absl::Span<char>> destination =
        out.PrepareDense(indices.size());
    if (!destination.ok()) return destination.status();
    std::memcpy(destination->data(), indices.data(),
                indices.size() * sizeof(uint64_t));
    return absl::OkStatus();
  }

 private:
  StreamType type_;
  const uint64_t length_;
};

// A typed store shared with its filesystem, which must outlive it.
struct SharedStore {
  std::shared_ptr<Vfs> vfs;  // Declared first: destroyed last.
  std::shared_ptr<TypedStore> store;
};

const char* KindName(StreamKind kind) {
  return kind == StreamKind::kDense ? "dense" : "ragged";
}

}  // namespace

void LoaderStreams::add_set(const std::string& name, const SetHandle& set) {
  if (set.set_ == nullptr) {
    ThrowIfError(absl::FailedPreconditionError(
        absl::StrCat("stream '", name, "': the store set is closed")));
  }
  // The stream shares the set; the set's handle keeps the filesystem, which
  // the aliasing pointer keeps alive with it.
  auto keep = std::make_shared<
      std::pair<std::shared_ptr<Vfs>, std::shared_ptr<const StoreSet>>>(
      set.vfs_, set.set_);
  std::shared_ptr<const StoreSet> aliased(keep, keep->second.get());
  streams_.push_back(
      Named{name, ValueOrThrow(StoreSetStream(std::move(aliased)))});
}

void LoaderStreams::add_store(const std::string& name,
                              const StoreHandle& store) {
  std::shared_ptr<TypedStore> typed;
  try {
    typed = store.store_->Share();
  } catch (const BindingError&) {
    ThrowIfError(absl::FailedPreconditionError(
        absl::StrCat("stream '", name, "': the store is closed")));
  }
  auto shared =
      std::make_shared<SharedStore>(SharedStore{store.vfs_, std::move(typed)});
  std::shared_ptr<const TypedStore> aliased(shared, shared->store.get());
  streams_.push_back(
      Named{name, ValueOrThrow(TypedStoreStream(std::move(aliased)))});
}

void LoaderStreams::add_index_stream(const std::string& name, uint64_t length) {
  if (length == 0) {
    ThrowIfError(absl::InvalidArgumentError(
        absl::StrCat("stream '", name, "': an index stream needs records")));
  }
  streams_.push_back(Named{name, std::make_shared<IndexStream>(length)});
}

int64_t LoaderStreams::size() const {
  return static_cast<int64_t>(streams_.size());
}

LoaderBatch::LoaderBatch(std::shared_ptr<Batch> batch)
    : batch_(std::move(batch)) {}

LoaderBatch::~LoaderBatch() = default;

const Batch& LoaderBatch::batch() const {
  if (batch_ == nullptr) {
    ThrowIfError(absl::FailedPreconditionError("the batch was released"));
  }
  return *batch_;
}

int LoaderBatch::CheckedStream(int stream) const {
  const size_t streams = batch().num_streams();
  if (stream < 0 || static_cast<size_t>(stream) >= streams) {
    ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
        "stream ", stream, " of a batch of ", streams, " streams")));
  }
  return stream;
}

uint64_t LoaderBatch::step() const { return batch().step(); }
uint64_t LoaderBatch::size() const { return batch().size(); }
int LoaderBatch::num_streams() const {
  return static_cast<int>(batch().num_streams());
}

std::string LoaderBatch::name(int stream) const {
  return batch().stream(CheckedStream(stream)).name();
}

std::string LoaderBatch::kind(int stream) const {
  return KindName(batch().stream(CheckedStream(stream)).type().kind);
}

BatchMemory LoaderBatch::indices() const {
  absl::Span<const uint64_t> indices = batch().indices();
  return BatchMemory{
      batch_, reinterpret_cast<char*>(const_cast<uint64_t*>(indices.data())),
      indices.size() * sizeof(uint64_t), /*writable=*/false};
}

BatchMemory LoaderBatch::buffer(int stream) const {
  StreamBatch& records = batch_->mutable_stream(CheckedStream(stream));
  return BatchMemory{batch_, records.mutable_data(), records.data_bytes(),
                     /*writable=*/true};
}

BufferShare* LoaderBatch::buffer_share(int stream) const {
  return new BufferShare(batch().stream(CheckedStream(stream)).allocation());
}

Uint64Array LoaderBatch::offsets(int stream) const {
  const StreamBatch& records = batch().stream(CheckedStream(stream));
  Uint64Array out(records.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = records.offset(i);
  return out;
}

Uint64Array LoaderBatch::ranks(int stream) const {
  const StreamBatch& records = batch().stream(CheckedStream(stream));
  Uint64Array out(records.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = records.shape(i).size();
  return out;
}

Uint64Array LoaderBatch::dims(int stream) const {
  const StreamBatch& records = batch().stream(CheckedStream(stream));
  Uint64Array out;
  for (size_t i = 0; i < records.size(); ++i) {
    absl::Span<const uint64_t> shape = records.shape(i);
    out.insert(out.end(), shape.begin(), shape.end());
  }
  return out;
}

void LoaderBatch::release() { batch_.reset(); }
bool LoaderBatch::released() const { return batch_ == nullptr; }

namespace {

std::unique_ptr<DataLoader> CreateLoader(std::vector<NamedStream> named,
                                         uint64_t batch_size, int mode,
                                         uint64_t seed, int prefetch,
                                         uint64_t rank, uint64_t world_size) {
  if (mode < 0 || mode > 255) {
    ThrowIfError(absl::InvalidArgumentError(
        absl::StrCat("DataLoader: unknown sampler mode ", mode)));
  }
  DataLoaderOptions options;
  options.batch_size = batch_size;
  options.mode = static_cast<SamplerMode>(mode);
  options.seed = seed;
  options.prefetch = prefetch;
  options.rank = rank;
  options.world_size = world_size;
  return ValueOrThrow(DataLoader::Create(std::move(named), options));
}

}  // namespace

LoaderHandle::LoaderHandle(const LoaderStreams& streams, uint64_t batch_size,
                           int mode, uint64_t seed, int prefetch, uint64_t rank,
                           uint64_t world_size)
    : loader_([&] {
        std::vector<NamedStream> named;
        for (const LoaderStreams::Named& stream : streams.streams_) {
          named.push_back(NamedStream{stream.name, stream.stream});
        }
        return CreateLoader(std::move(named), batch_size, mode, seed, prefetch,
                            rank, world_size);
      }()) {}

LoaderHandle::~LoaderHandle() = default;  // `DataLoader` closes itself.

LoaderBatch* LoaderHandle::next() {
  if (closed_)
    ThrowIfError(absl::FailedPreconditionError("the loader is closed"));
  return new LoaderBatch(ValueOrThrow(loader_->Next()));
}

void LoaderHandle::seek(uint64_t step) { ThrowIfError(loader_->Seek(step)); }

void LoaderHandle::close() {
  closed_ = true;
  loader_->Close();
}

bool LoaderHandle::closed() const { return closed_; }

uint64_t LoaderHandle::step() const { return loader_->step(); }
uint64_t LoaderHandle::rank() const { return loader_->options().rank; }
uint64_t LoaderHandle::world_size() const {
  return loader_->options().world_size;
}
uint64_t LoaderHandle::fingerprint() const { return loader_->fingerprint(); }

void LoaderHandle::restore(uint64_t step, uint64_t seed, int mode,
                           uint64_t batch_size, uint64_t length,
                           uint64_t fingerprint) {
  if (closed_)
    ThrowIfError(absl::FailedPreconditionError("the loader is closed"));
  if (mode < 0 || mode > 255) {
    ThrowIfError(absl::InvalidArgumentError(
        absl::StrCat("loader state: unknown sampler mode ", mode)));
  }
  ThrowIfError(
      loader_->Restore(LoaderState{step, seed, static_cast<SamplerMode>(mode),
                                   batch_size, length, fingerprint}));
}
uint64_t LoaderHandle::size() const { return loader_->size(); }
uint64_t LoaderHandle::batch_size() const {
  return loader_->sampler().batch_size();
}
int LoaderHandle::mode() const {
  return static_cast<int>(loader_->sampler().mode());
}
uint64_t LoaderHandle::seed() const { return loader_->sampler().seed(); }
int LoaderHandle::prefetch() const { return loader_->options().prefetch; }

int LoaderHandle::num_streams() const {
  return static_cast<int>(loader_->streams().size());
}

int LoaderHandle::CheckedStream(int stream) const {
  if (stream < 0 || stream >= num_streams()) {
    ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
        "stream ", stream, " of a loader of ", num_streams(), " streams")));
  }
  return stream;
}

std::string LoaderHandle::stream_name(int stream) const {
  return loader_->streams()[CheckedStream(stream)].name;
}

std::string LoaderHandle::stream_kind(int stream) const {
  return KindName(loader_->streams()[CheckedStream(stream)].type.kind);
}

DType LoaderHandle::stream_dtype(int stream) const {
  return loader_->streams()[CheckedStream(stream)].type.dtype;
}

Int64Array LoaderHandle::stream_item_shape(int stream) const {
  const auto& shape = loader_->streams()[CheckedStream(stream)].type.item_shape;
  return Int64Array(shape.begin(), shape.end());
}

LoaderStatistics LoaderHandle::stats() const {
  const DataLoaderStats stats = loader_->stats();
  return LoaderStatistics{static_cast<int64_t>(stats.batches_created),
                          static_cast<int64_t>(stats.buffer_allocations),
                          static_cast<int64_t>(stats.gathers_completed)};
}

}  // namespace loaderx::binding
