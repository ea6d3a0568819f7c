#include "swig/binding.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "loaderx/codec_registry.h"
#include "loaderx/dense_store.h"
#include "loaderx/ragged_store.h"
#include "loaderx/sampler.h"
#include "loaderx/typed_owner_registry.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "loaderx/zstd_dictionary.h"

namespace loaderx::binding {
namespace {

void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) {
    throw BindingError(static_cast<int>(status.code()), IsBusy(status),
                       std::string(status.message()));
  }
}

template <typename T>
T ValueOrThrow(absl::StatusOr<T> status_or) {
  ThrowIfError(status_or.status());
  return *std::move(status_or);
}

}  // namespace

std::vector<std::string> RegisteredPlugins(const std::string& kind) {
  if (kind == "vfs") return VfsRegistry().Names();
  if (kind == "codec") return CodecRegistry().Names();
  if (kind == "typed_owner") return TypedOwnerRegistry().Names();
  ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
      "unknown plugin kind \"", kind, "\"; kinds: vfs, codec, typed_owner")));
  return {};
}

FileLock::FileLock(std::shared_ptr<Vfs> vfs, std::unique_ptr<VfsFile> file)
    : vfs_(std::move(vfs)), file_(std::move(file)), path_(file_->path()) {}

FileLock::~FileLock() = default;

void FileLock::close() { file_.reset(); }
bool FileLock::held() const { return file_ != nullptr; }
std::string FileLock::path() const { return path_; }

Filesystem::Filesystem(const std::string& name) : name_(name) {
  absl::StatusOr<std::unique_ptr<Vfs>> vfs = CreateVfs(name);
  if (absl::IsNotFound(vfs.status())) {
    // At this level the name is an argument, not a file.
    ThrowIfError(absl::InvalidArgumentError(vfs.status().message()));
  }
  vfs_ = ValueOrThrow(std::move(vfs));
}

bool Filesystem::exists(const std::string& path) {
  return ValueOrThrow(vfs_->Exists(path));
}

std::vector<std::string> Filesystem::list(const std::string& path) {
  return ValueOrThrow(vfs_->List(path));
}

void Filesystem::create_directory(const std::string& path) {
  ThrowIfError(vfs_->CreateDirectory(path));
}

void Filesystem::remove_directory(const std::string& path) {
  ThrowIfError(vfs_->RemoveDirectory(path));
}

void Filesystem::remove(const std::string& path) {
  ThrowIfError(vfs_->Remove(path));
}

void Filesystem::rename(const std::string& from, const std::string& to) {
  ThrowIfError(vfs_->Rename(from, to));
}

Bytes Filesystem::read_file(const std::string& path) {
  return ValueOrThrow(ReadFileToString(*vfs_, path));
}

void Filesystem::write_file(const std::string& path, const Bytes& data,
                            bool sync) {
  ThrowIfError(WriteStringToFile(*vfs_, path, data, sync));
}

FileLock* Filesystem::lock(const std::string& path) {
  std::unique_ptr<VfsFile> file =
      ValueOrThrow(vfs_->Open(path, OpenMode::kCreate));
  ThrowIfError(file->TryLock());
  return new FileLock(vfs_, std::move(file));
}

namespace {

uint64_t NonNegative(int64_t value, absl::string_view what) {
  if (value < 0) {
    ThrowIfError(absl::InvalidArgumentError(
        absl::StrCat(what, " must not be negative, got ", value)));
  }
  return static_cast<uint64_t>(value);
}

// `out` as a span of uint64 indices; InvalidArgument if it cannot hold one
// batch.
absl::Span<uint64_t> IndexSpan(const Sampler& sampler, MutableBuffer out) {
  if (out.data == nullptr || out.size % sizeof(uint64_t) != 0 ||
      out.size / sizeof(uint64_t) < sampler.batch_length()) {
    ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
        "sampler: the destination holds ", out.size, " bytes, one batch is ",
        sampler.batch_length(), " uint64 indices")));
  }
  return absl::MakeSpan(static_cast<uint64_t*>(out.data),
                        out.size / sizeof(uint64_t));
}

}  // namespace

IndexSampler::IndexSampler(uint64_t length, uint64_t batch_size, int mode,
                           uint64_t seed) {
  if (mode < 0 || mode > 255) {
    ThrowIfError(absl::InvalidArgumentError(
        absl::StrCat("sampler: unknown mode ", mode)));
  }
  sampler_ = std::make_unique<Sampler>(ValueOrThrow(Sampler::Create(
      length, batch_size, static_cast<SamplerMode>(mode), seed)));
}

IndexSampler::~IndexSampler() = default;

uint64_t IndexSampler::batch_length() const { return sampler_->batch_length(); }

uint64_t IndexSampler::next_into(MutableBuffer out) {
  return ValueOrThrow(sampler_->Next(IndexSpan(*sampler_, out)));
}

uint64_t IndexSampler::batch_into(uint64_t step, MutableBuffer out) const {
  return ValueOrThrow(sampler_->Batch(step, IndexSpan(*sampler_, out)));
}

Uint64Array IndexSampler::next() {
  Uint64Array out(sampler_->batch_length());
  out.resize(ValueOrThrow(sampler_->Next(absl::MakeSpan(out))));
  return out;
}

Uint64Array IndexSampler::batch(uint64_t step) const {
  Uint64Array out(sampler_->batch_length());
  out.resize(ValueOrThrow(sampler_->Batch(step, absl::MakeSpan(out))));
  return out;
}

void IndexSampler::seek(uint64_t step) { sampler_->Seek(step); }
uint64_t IndexSampler::step() const { return sampler_->step(); }
uint64_t IndexSampler::length() const { return sampler_->length(); }
uint64_t IndexSampler::batch_size() const { return sampler_->batch_size(); }
int IndexSampler::mode() const { return static_cast<int>(sampler_->mode()); }
uint64_t IndexSampler::seed() const { return sampler_->seed(); }
uint64_t IndexSampler::batches_per_cycle() const {
  return sampler_->batches_per_cycle();
}

namespace {

// Int64 values in `buffer` (at least `what` holds them).
absl::Span<const int64_t> Int64s(ConstBuffer buffer, absl::string_view what) {
  if (buffer.size % sizeof(int64_t) != 0) {
    ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
        what, ": ", buffer.size, " bytes are not a whole number of int64")));
  }
  return absl::MakeConstSpan(static_cast<const int64_t*>(buffer.data),
                             buffer.size / sizeof(int64_t));
}

// Record indices: non-negative int64s, read as the engine's uint64s.
std::vector<uint64_t> Indices(absl::Span<const int64_t> values) {
  std::vector<uint64_t> indices(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] < 0) {
      ThrowIfError(absl::OutOfRangeError(
          absl::StrCat("index ", values[i], " is negative")));
    }
    indices[i] = static_cast<uint64_t>(values[i]);
  }
  return indices;
}

StoreStatistics ToStatistics(const StoreStats& stats) {
  return StoreStatistics{static_cast<int64_t>(stats.records),
                         static_cast<int64_t>(stats.live_bytes),
                         static_cast<int64_t>(stats.chunk_bytes),
                         static_cast<int64_t>(stats.reclaimable)};
}

StoreOptions Options(const std::string& codec, const Bytes& dictionary) {
  StoreOptions options;
  options.codec = codec;
  options.dictionary = dictionary;
  return options;
}

template <typename Store>
Store& Require(const std::unique_ptr<Store>& store) {
  if (store == nullptr) {
    ThrowIfError(absl::FailedPreconditionError("the store is closed"));
  }
  return *store;
}

}  // namespace

Bytes train_zstd_dictionary(ConstBuffer data, ConstBuffer byte_sizes,
                            int64_t capacity) {
  std::vector<absl::string_view> samples;
  const char* bytes = static_cast<const char*>(data.data);
  size_t offset = 0;
  for (int64_t size : Int64s(byte_sizes, "byte_sizes")) {
    const uint64_t n = NonNegative(size, "byte size");
    if (n > data.size - offset) {
      ThrowIfError(absl::InvalidArgumentError(
          "train: the sample sizes exceed the data"));
    }
    samples.emplace_back(bytes + offset, n);
    offset += n;
  }
  return ValueOrThrow(TrainZstdDictionary(
      samples, static_cast<size_t>(NonNegative(capacity, "capacity"))));
}

DenseStoreHandle::DenseStoreHandle(const Filesystem& fs,
                                   const std::string& path)
    : vfs_(fs.vfs()), store_(ValueOrThrow(DenseStore::Open(*vfs_, path))) {}

DenseStoreHandle::DenseStoreHandle(const Filesystem& fs,
                                   const std::string& path,
                                   const std::string& dtype,
                                   const Int64Array& item_shape,
                                   const std::string& codec,
                                   const Bytes& dictionary)
    : vfs_(fs.vfs()) {
  TypeIdentity identity{dtype, {}};
  for (int64_t dim : item_shape) {
    identity.item_shape.push_back(NonNegative(dim, "item_shape"));
  }
  store_ = ValueOrThrow(
      DenseStore::Create(*vfs_, path, identity, Options(codec, dictionary)));
}

DenseStoreHandle::~DenseStoreHandle() = default;

DenseStore& DenseStoreHandle::store() const { return Require(store_); }

std::string DenseStoreHandle::dtype() const { return store().identity().dtype; }

Int64Array DenseStoreHandle::item_shape() const {
  const auto& shape = store().identity().item_shape;
  return Int64Array(shape.begin(), shape.end());
}

int64_t DenseStoreHandle::record_bytes() const {
  return static_cast<int64_t>(store().record_bytes());
}

int64_t DenseStoreHandle::size() const {
  return static_cast<int64_t>(store().size());
}

std::string DenseStoreHandle::codec() const {
  return std::string(store().codec());
}

int64_t DenseStoreHandle::append(ConstBuffer data) {
  return static_cast<int64_t>(ValueOrThrow(store().Append(
      absl::string_view(static_cast<const char*>(data.data), data.size))));
}

void DenseStoreHandle::gather_into(ConstBuffer indices,
                                   MutableBuffer out) const {
  ThrowIfError(
      store().Gather(Indices(Int64s(indices, "indices")),
                     absl::MakeSpan(static_cast<char*>(out.data), out.size)));
}

void DenseStoreHandle::delete_records(ConstBuffer indices) {
  ThrowIfError(store().Delete(Indices(Int64s(indices, "indices"))));
}

int64_t DenseStoreHandle::append_bytes(const Bytes& data) {
  return static_cast<int64_t>(ValueOrThrow(store().Append(data)));
}

Bytes DenseStoreHandle::gather(const Int64Array& indices) const {
  Bytes out(indices.size() * store().record_bytes(), '\0');
  ThrowIfError(store().Gather(Indices(indices), absl::MakeSpan(out)));
  return out;
}

void DenseStoreHandle::delete_indices(const Int64Array& indices) {
  ThrowIfError(store().Delete(Indices(indices)));
}

void DenseStoreHandle::compact() { ThrowIfError(store().Compact()); }

StoreStatistics DenseStoreHandle::stats() const {
  return ToStatistics(ValueOrThrow(store().Stats()));
}

void DenseStoreHandle::sync() { ThrowIfError(store().Sync()); }

void DenseStoreHandle::close() { store_.reset(); }

RaggedStoreHandle::RaggedStoreHandle(const Filesystem& fs,
                                     const std::string& path)
    : vfs_(fs.vfs()), store_(ValueOrThrow(RaggedStore::Open(*vfs_, path))) {}

RaggedStoreHandle::RaggedStoreHandle(const Filesystem& fs,
                                     const std::string& path,
                                     const std::string& dtype,
                                     const std::string& codec,
                                     const Bytes& dictionary)
    : vfs_(fs.vfs()),
      store_(ValueOrThrow(RaggedStore::Create(*vfs_, path, dtype,
                                              Options(codec, dictionary)))) {}

RaggedStoreHandle::~RaggedStoreHandle() = default;

RaggedStore& RaggedStoreHandle::store() const { return Require(store_); }

std::string RaggedStoreHandle::dtype() const { return store().dtype(); }

int64_t RaggedStoreHandle::item_size() const { return store().item_size(); }

int64_t RaggedStoreHandle::size() const {
  return static_cast<int64_t>(store().size());
}

std::string RaggedStoreHandle::codec() const {
  return std::string(store().codec());
}

int64_t RaggedStoreHandle::append_packed(ConstBuffer data,
                                         ConstBuffer byte_sizes,
                                         ConstBuffer shapes) {
  const absl::Span<const int64_t> sizes = Int64s(byte_sizes, "byte_sizes");
  const absl::Span<const int64_t> flat = Int64s(shapes, "shapes");
  std::vector<RaggedRecord> records(sizes.size());
  const char* bytes = static_cast<const char*>(data.data);
  size_t offset = 0, position = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const uint64_t size = NonNegative(sizes[i], "byte size");
    if (size > data.size - offset) {
      ThrowIfError(absl::InvalidArgumentError(
          "append: the record sizes exceed the data"));
    }
    records[i].data = absl::string_view(bytes + offset, size);
    offset += size;
    if (position >= flat.size() ||
        NonNegative(flat[position], "ndim") > flat.size() - position - 1) {
      ThrowIfError(absl::InvalidArgumentError("append: shapes are truncated"));
    }
    const size_t ndim = flat[position++];
    for (size_t d = 0; d < ndim; ++d) {
      records[i].shape.push_back(NonNegative(flat[position++], "dimension"));
    }
  }
  if (offset != data.size || position != flat.size()) {
    ThrowIfError(absl::InvalidArgumentError(
        "append: data or shapes left over after the last record"));
  }
  return static_cast<int64_t>(ValueOrThrow(store().Append(records)));
}

Int64Array RaggedStoreHandle::shapes(ConstBuffer indices) const {
  const auto shapes =
      ValueOrThrow(store().Shapes(Indices(Int64s(indices, "indices"))));
  Int64Array flat;
  for (const auto& shape : shapes) {
    flat.push_back(static_cast<int64_t>(shape.size()));
    for (uint64_t dim : shape) flat.push_back(static_cast<int64_t>(dim));
  }
  return flat;
}

void RaggedStoreHandle::gather_packed(ConstBuffer indices,
                                      ConstBuffer byte_sizes,
                                      MutableBuffer out) const {
  const absl::Span<const int64_t> sizes = Int64s(byte_sizes, "byte_sizes");
  const std::vector<uint64_t> index = Indices(Int64s(indices, "indices"));
  if (sizes.size() != index.size()) {
    ThrowIfError(absl::InvalidArgumentError(
        "gather: one byte size per index is needed"));
  }
  std::vector<absl::Span<char>> slots(index.size());
  char* bytes = static_cast<char*>(out.data);
  size_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const uint64_t size = NonNegative(sizes[i], "byte size");
    if (size > out.size - offset) {
      ThrowIfError(absl::InvalidArgumentError(
          "gather: the destination is smaller than the records"));
    }
    slots[i] = absl::MakeSpan(bytes + offset, size);
    offset += size;
  }
  ThrowIfError(store().Gather(index, slots));
}

void RaggedStoreHandle::delete_records(ConstBuffer indices) {
  ThrowIfError(store().Delete(Indices(Int64s(indices, "indices"))));
}

void RaggedStoreHandle::compact() { ThrowIfError(store().Compact()); }

StoreStatistics RaggedStoreHandle::stats() const {
  return ToStatistics(ValueOrThrow(store().Stats()));
}

void RaggedStoreHandle::sync() { ThrowIfError(store().Sync()); }

void RaggedStoreHandle::close() { store_.reset(); }

}  // namespace loaderx::binding
