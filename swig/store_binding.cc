#include "swig/store_binding.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "loaderx/error_code.h"
#include "loaderx/spi/limits.h"
#include "loaderx/thread_pool.h"
#include "loaderx/typed_store.h"
#include "loaderx/vfs.h"
#include "loaderx/zstd_dictionary.h"
#include "swig/binding_status.h"
#include "swig/guarded_store.h"
#include "swig/resolved_indices.h"

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

StoreStatistics ToStatistics(const StoreStats& stats) {
  return StoreStatistics{static_cast<int64_t>(stats.records),
                         static_cast<int64_t>(stats.live_bytes),
                         static_cast<int64_t>(stats.chunk_bytes),
                         static_cast<int64_t>(stats.reclaimable)};
}

std::vector<uint64_t> Shape(const Int64Array& dims) {
  std::vector<uint64_t> shape;
  for (int64_t dim : dims)
    shape.push_back(Count(dim, "an item_shape dimension"));
  return shape;
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
void OpenRequest::set_read_only(bool read_only) {
  request_.read_only = read_only;
}

Bytes train_zstd_dictionary(ConstBuffer data, ConstBuffer byte_sizes,
                            int64_t capacity) {
  if (capacity <= 0) {
    ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
        "train: the dictionary target must be positive, got ", capacity)));
  }
  std::vector<absl::string_view> samples;
  const char* bytes = static_cast<const char*>(data.data);
  size_t offset = 0;
  for (int64_t size : Values<int64_t>(byte_sizes, "byte_sizes")) {
    const uint64_t n = Count(size, "a sample size");
    if (n > data.size - offset) {
      ThrowIfError(absl::InvalidArgumentError(
          "train: the sample sizes exceed the sample buffer"));
    }
    samples.emplace_back(bytes + offset, n);
    offset += n;
  }
  if (offset != data.size) {
    ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
        "train: the sample sizes cover ", offset, " of the sample buffer's ",
        data.size, " bytes; they must cover it exactly")));
  }
  return ValueOrThrow(
      TrainZstdDictionary(samples, static_cast<size_t>(capacity)));
}

int num_threads() { return DefaultThreadCount(); }

void set_num_threads(int threads) {
  if (threads < 1) {
    ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
        "set_num_threads: at least 1 thread (the caller), got ", threads)));
  }
  SetDefaultThreadCount(threads);
}

int64_t max_record_bytes() { return static_cast<int64_t>(kMaxRecordBytes); }

std::string error_code_message(int code) {
  return std::string(ErrorCodeMessage(static_cast<ErrorCode>(code)));
}

VerifyResult::VerifyResult(const VerifyReport& report)
    : records_(static_cast<int64_t>(report.records)),
      verified_(static_cast<int64_t>(report.verified)),
      unverified_(static_cast<int64_t>(report.unverified)),
      damaged_(report.damaged.begin(), report.damaged.end()),
      problems_(report.problems),
      metadata_verified_(report.metadata_verified),
      removed_records_(static_cast<int64_t>(report.removed_records)),
      metadata_problems_(report.metadata_problems),
      notes_(report.notes) {}

StoreHandle::StoreHandle(const Filesystem& fs, const std::string& path,
                         const std::string& kind, const OpenRequest& request)
    : StoreHandle(fs, ValueOrThrow(TypedStore::OpenOrCreate(
                          *fs.vfs(), path, kind, request.request()))) {}

StoreHandle::StoreHandle(const Filesystem& fs,
                         std::unique_ptr<TypedStore> store)
    : vfs_(fs.vfs()),
      store_(std::make_unique<GuardedStore>(std::move(store))) {}

StoreHandle::~StoreHandle() = default;

std::string StoreHandle::kind() const {
  return store_->Shared(
      [](TypedStore& store) { return std::string(store.kind()); });
}

bool StoreHandle::fixed_width() const {
  return store_->Shared([](TypedStore& store) { return store.fixed_width(); });
}

DType StoreHandle::dtype() const {
  return store_->Shared([](TypedStore& store) { return store.dtype(); });
}

Int64Array StoreHandle::item_shape() const {
  return store_->Shared([](TypedStore& store) {
    const auto& shape = store.identity().item_shape;
    return Int64Array(shape.begin(), shape.end());
  });
}

int64_t StoreHandle::record_bytes() const {
  return store_->Shared([](TypedStore& store) {
    return static_cast<int64_t>(store.record_bytes());
  });
}

int64_t StoreHandle::item_size() const {
  return store_->Shared([](TypedStore& store) {
    return static_cast<int64_t>(store.item_size());
  });
}

int64_t StoreHandle::size() const {
  return store_->Shared(
      [](TypedStore& store) { return static_cast<int64_t>(store.size()); });
}

int64_t StoreHandle::fingerprint() const {
  return store_->Shared([](TypedStore& store) {
    return static_cast<int64_t>(ValueOrThrow(store.Fingerprint()));
  });
}

std::string StoreHandle::codec() const {
  return store_->Shared(
      [](TypedStore& store) { return std::string(store.codec()); });
}

bool StoreHandle::has_dict() const {
  return store_->Shared(
      [](TypedStore& store) { return store.has_dictionary(); });
}

int64_t StoreHandle::append_array(const DType& dtype, const Int64Array& shape,
                                  ConstBuffer data) {
  ShapedRecord batch;
  batch.data =
      absl::string_view(static_cast<const char*>(data.data), data.size);
  batch.shape = Shape(shape);
  // An empty simple dtype: bytes of the store's own dtype (Java).
  batch.dtype = dtype.structured || !dtype.str.empty() ? &dtype : nullptr;
  return store_->Shared([&](TypedStore& store) {
    // Appends are serialised inside the engine and overlap reads.
    return static_cast<int64_t>(ValueOrThrow(store.AppendBatch(batch)));
  });
}

int64_t StoreHandle::append_records(const RecordArrays& records) {
  std::vector<ShapedRecord> shaped(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    shaped[i].data = absl::string_view(
        static_cast<const char*>(records[i].data.data), records[i].data.size);
    shaped[i].shape = records[i].shape;
    shaped[i].dtype = &records[i].dtype;
  }
  return store_->Shared([&](TypedStore& store) {
    return static_cast<int64_t>(ValueOrThrow(store.Append(shaped)));
  });
}

void StoreHandle::gather_into(IndexBuffer indices, MutableBuffer out) const {
  store_->Shared([&](TypedStore& store) {
    const ResolvedIndices resolved(indices, store.size());
    ThrowIfError(store.GatherFixed(
        resolved.span(),
        absl::MakeSpan(static_cast<char*>(out.data), out.size)));
  });
}

BatchLayout StoreHandle::read(IndexBuffer indices, OutputBuffer& out) const {
  ShapedBatch batch = store_->Shared([&](TypedStore& store) {
    const ResolvedIndices resolved(indices, store.size());
    return ValueOrThrow(store.Read(
        resolved.span(),
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
  });
  return BatchLayout{std::move(batch.shapes), std::move(batch.offsets)};
}

void StoreHandle::delete_records(IndexBuffer indices) {
  store_->Exclusive([&](TypedStore& store) {
    const ResolvedIndices resolved(indices, store.size());
    ThrowIfError(store.Delete(resolved.span()));
  });
}

void StoreHandle::compact() {
  store_->Exclusive([](TypedStore& store) { ThrowIfError(store.Compact()); });
}

CompactionEstimateFields StoreHandle::estimate_compaction() const {
  return store_->Exclusive([](TypedStore& store) {
    const CompactionEstimate estimate =
        ValueOrThrow(store.EstimateCompaction());
    return CompactionEstimateFields{
        static_cast<int64_t>(estimate.moves),
        static_cast<int64_t>(estimate.batches),
        static_cast<int64_t>(estimate.reclaimed_bytes),
        static_cast<int64_t>(estimate.needed_bytes),
        estimate.available_bytes.has_value()
            ? static_cast<int64_t>(*estimate.available_bytes)
            : int64_t{-1}};
  });
}

void StoreHandle::accept_metadata_problems() {
  store_->Exclusive(
      [](TypedStore& store) { ThrowIfError(store.AcceptMetadataProblems()); });
}

StoreStatistics StoreHandle::stats() const {
  return store_->Shared([](TypedStore& store) {
    return ToStatistics(ValueOrThrow(store.Stats()));
  });
}

void StoreHandle::sync() {
  store_->Shared([](TypedStore& store) { ThrowIfError(store.Sync()); });
}

VerifyResult StoreHandle::verify(ProgressSink* progress) const {
  // The engine never reports twice at once, and its pool has finished
  // every report when `Verify` returns, so `failed` needs no lock.
  bool failed = false;
  VerifyProgress report;
  if (progress != nullptr) {
    report = [&](uint64_t done, uint64_t total) {
      if (!failed) failed = !progress->Report(done, total);
    };
  }
  VerifyResult result = store_->Shared([&](TypedStore& store) {
    return VerifyResult(ValueOrThrow(store.Verify(report)));
  });
  if (failed) {
    progress->RestoreError();
    throw CallbackRaised();
  }
  return result;
}

bool StoreHandle::read_only() const {
  return store_->Shared([](TypedStore& store) { return store.read_only(); });
}

void StoreHandle::close() { store_->Close(); }

}  // namespace loaderx::binding
