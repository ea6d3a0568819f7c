#include "swig/store_binding.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "loaderx/dense_store.h"
#include "loaderx/error_code.h"
#include "loaderx/ragged_store.h"
#include "loaderx/vfs.h"
#include "loaderx/zstd_dictionary.h"
#include "swig/binding_status.h"

namespace loaderx::binding {
namespace {

template <typename T>
absl::Span<const T> Values(ConstBuffer buffer, absl::string_view what) {
  if (buffer.size % sizeof(T) != 0) {
    ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
        what, ": ", buffer.size, " bytes are not a whole number of ", sizeof(T),
        "-byte integers")));
  }
  return absl::MakeConstSpan(static_cast<const T*>(buffer.data),
                             buffer.size / sizeof(T));
}

// A count or dimension from an int64: negative is InvalidArgument.
uint64_t Count(int64_t value, absl::string_view what) {
  if (value < 0) {
    ThrowIfError(absl::InvalidArgumentError(
        absl::StrCat(what, " must not be negative, got ", value)));
  }
  return static_cast<uint64_t>(value);
}

// Java's indices: a negative long is out of range, as any index past the
// end is.
std::vector<uint64_t> JavaIndices(const Int64Array& values) {
  std::vector<uint64_t> indices(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] < 0) {
      ThrowIfError(absl::OutOfRangeError(absl::StrCat(
          "index ", values[i], " (position ", i, ") is negative")));
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

std::vector<uint64_t> Shape(const Int64Array& dims) {
  std::vector<uint64_t> shape;
  for (int64_t dim : dims)
    shape.push_back(Count(dim, "an item_shape dimension"));
  return shape;
}

template <typename Store>
Store& Require(const std::unique_ptr<Store>& store) {
  if (store == nullptr) {
    ThrowIfError(absl::FailedPreconditionError("the store is closed"));
  }
  return *store;
}

}  // namespace

void OpenRequest::set_dtype(const DType& dtype) { request_.dtype = dtype; }
void OpenRequest::set_item_shape(const Int64Array& item_shape) {
  request_.item_shape = Shape(item_shape);
}
void OpenRequest::set_codec(const std::string& codec) {
  request_.codec = codec;
}
void OpenRequest::set_dictionary(const Bytes& dictionary) {
  request_.dictionary = dictionary;
}
void OpenRequest::set_level(int level) { request_.level = level; }

Bytes train_zstd_dictionary(ConstBuffer data, ConstBuffer byte_sizes,
                            int64_t capacity) {
  std::vector<absl::string_view> samples;
  const char* bytes = static_cast<const char*>(data.data);
  size_t offset = 0;
  for (int64_t size : Values<int64_t>(byte_sizes, "byte_sizes")) {
    const uint64_t n = Count(size, "a sample size");
    if (n > data.size - offset) {
      ThrowIfError(absl::InvalidArgumentError(
          "train: the sample sizes exceed the data"));
    }
    samples.emplace_back(bytes + offset, n);
    offset += n;
  }
  return ValueOrThrow(TrainZstdDictionary(
      samples, static_cast<size_t>(Count(capacity, "capacity"))));
}

std::string error_code_message(int code) {
  return std::string(ErrorCodeMessage(static_cast<ErrorCode>(code)));
}

DenseStoreHandle::DenseStoreHandle(const Filesystem& fs,
                                   const std::string& path)
    : vfs_(fs.vfs()), store_(ValueOrThrow(DenseStore::Open(*vfs_, path))) {}

DenseStoreHandle::DenseStoreHandle(const Filesystem& fs,
                                   const std::string& path, const DType& dtype,
                                   const Int64Array& item_shape,
                                   const std::string& codec,
                                   const Bytes& dictionary)
    : vfs_(fs.vfs()),
      store_(ValueOrThrow(DenseStore::Create(
          *vfs_, path, TypeIdentity{dtype, Shape(item_shape)},
          Options(codec, dictionary)))) {}

DenseStoreHandle::DenseStoreHandle(const Filesystem& fs,
                                   const std::string& path,
                                   const OpenRequest& request)
    : vfs_(fs.vfs()),
      store_(ValueOrThrow(
          DenseStore::OpenOrCreate(*vfs_, path, request.request()))) {}

DenseStoreHandle::~DenseStoreHandle() = default;

DenseStore& DenseStoreHandle::store() const { return Require(store_); }

DType DenseStoreHandle::dtype() const { return store().identity().dtype; }

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

bool DenseStoreHandle::has_dict() const { return store().has_dictionary(); }

int64_t DenseStoreHandle::append(ConstBuffer data) {
  return static_cast<int64_t>(ValueOrThrow(store().Append(
      absl::string_view(static_cast<const char*>(data.data), data.size))));
}

void DenseStoreHandle::gather_into(ConstBuffer indices,
                                   MutableBuffer out) const {
  ThrowIfError(
      store().Gather(Values<uint64_t>(indices, "indices"),
                     absl::MakeSpan(static_cast<char*>(out.data), out.size)));
}

void DenseStoreHandle::delete_records(ConstBuffer indices) {
  ThrowIfError(store().Delete(Values<uint64_t>(indices, "indices")));
}

int64_t DenseStoreHandle::append_bytes(const Bytes& data) {
  return static_cast<int64_t>(ValueOrThrow(store().Append(data)));
}

Bytes DenseStoreHandle::gather(const Int64Array& indices) const {
  const std::vector<uint64_t> checked = JavaIndices(indices);
  Bytes out(checked.size() * store().record_bytes(), '\0');
  ThrowIfError(store().Gather(checked, absl::MakeSpan(out)));
  return out;
}

void DenseStoreHandle::delete_indices(const Int64Array& indices) {
  ThrowIfError(store().Delete(JavaIndices(indices)));
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
                                     const DType& dtype,
                                     const std::string& codec,
                                     const Bytes& dictionary)
    : vfs_(fs.vfs()),
      store_(ValueOrThrow(RaggedStore::Create(*vfs_, path, dtype,
                                              Options(codec, dictionary)))) {}

RaggedStoreHandle::RaggedStoreHandle(const Filesystem& fs,
                                     const std::string& path,
                                     const OpenRequest& request)
    : vfs_(fs.vfs()),
      store_(ValueOrThrow(
          RaggedStore::OpenOrCreate(*vfs_, path, request.request()))) {}

RaggedStoreHandle::~RaggedStoreHandle() = default;

RaggedStore& RaggedStoreHandle::store() const { return Require(store_); }

DType RaggedStoreHandle::dtype() const { return store().dtype(); }

int64_t RaggedStoreHandle::item_size() const {
  return static_cast<int64_t>(store().item_size());
}

int64_t RaggedStoreHandle::size() const {
  return static_cast<int64_t>(store().size());
}

std::string RaggedStoreHandle::codec() const {
  return std::string(store().codec());
}

bool RaggedStoreHandle::has_dict() const { return store().has_dictionary(); }

int64_t RaggedStoreHandle::append_packed(ConstBuffer data,
                                         ConstBuffer byte_sizes,
                                         ConstBuffer shapes) {
  const absl::Span<const int64_t> sizes =
      Values<int64_t>(byte_sizes, "byte_sizes");
  const absl::Span<const int64_t> flat = Values<int64_t>(shapes, "shapes");
  std::vector<RaggedRecord> records(sizes.size());
  const char* bytes = static_cast<const char*>(data.data);
  size_t offset = 0, position = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const uint64_t size = Count(sizes[i], "a record size");
    if (size > data.size - offset) {
      ThrowIfError(absl::InvalidArgumentError(
          "append: the record sizes exceed the data"));
    }
    records[i].data = absl::string_view(bytes + offset, size);
    offset += size;
    if (position >= flat.size() ||
        Count(flat[position], "ndim") > flat.size() - position - 1) {
      ThrowIfError(absl::InvalidArgumentError("append: shapes are truncated"));
    }
    const size_t ndim = flat[position++];
    for (size_t d = 0; d < ndim; ++d) {
      records[i].shape.push_back(Count(flat[position++], "a dimension"));
    }
  }
  if (offset != data.size || position != flat.size()) {
    ThrowIfError(absl::InvalidArgumentError(
        "append: data or shapes left over after the last record"));
  }
  return static_cast<int64_t>(ValueOrThrow(store().Append(records)));
}

Int64Array RaggedStoreHandle::read(ConstBuffer indices,
                                   OutputBuffer& out) const {
  const RaggedBatch batch = ValueOrThrow(store().Read(
      Values<uint64_t>(indices, "indices"),
      [&](uint64_t bytes) -> absl::StatusOr<absl::Span<char>> {
        char* buffer = out.Allocate(bytes);
        if (buffer == nullptr) {
          return WithErrorCode(
              absl::ResourceExhaustedError(absl::StrCat(
                  "read: cannot allocate ", bytes, " bytes for the batch")),
              ErrorCode::kOutOfMemory);
        }
        return absl::MakeSpan(buffer, bytes);
      }));
  Int64Array flat;
  for (const auto& shape : batch.shapes) {
    flat.push_back(static_cast<int64_t>(shape.size()));
    for (uint64_t dim : shape) flat.push_back(static_cast<int64_t>(dim));
  }
  return flat;
}

void RaggedStoreHandle::delete_records(ConstBuffer indices) {
  ThrowIfError(store().Delete(Values<uint64_t>(indices, "indices")));
}

void RaggedStoreHandle::compact() { ThrowIfError(store().Compact()); }

StoreStatistics RaggedStoreHandle::stats() const {
  return ToStatistics(ValueOrThrow(store().Stats()));
}

void RaggedStoreHandle::sync() { ThrowIfError(store().Sync()); }

void RaggedStoreHandle::close() { store_.reset(); }

}  // namespace loaderx::binding
