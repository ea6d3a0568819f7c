#include "loaderx/loader_batch.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "loaderx/spi/status_macros.h"

namespace loaderx {
namespace {

constexpr std::align_val_t kAlignment{StreamBatch::kBufferAlignment};

uint64_t RoundUp(uint64_t value, uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// The largest buffer a batch asks for: far beyond any machine's memory, and
// small enough that rounding and growth arithmetic cannot overflow.
constexpr uint64_t kMaxBufferBytes = uint64_t{1} << 56;

}  // namespace

uint64_t StreamType::record_bytes() const {
  if (kind != StreamKind::kDense) return 0;
  uint64_t bytes = item_size;
  for (uint64_t dim : item_shape) bytes *= dim;
  return bytes;
}

StreamBatch::StreamBatch(std::shared_ptr<const StreamSpec> spec)
    : spec_(std::move(spec)) {}

StreamBatch::~StreamBatch() = default;

absl::Span<const uint64_t> StreamBatch::shape(size_t i) const {
  if (type().kind == StreamKind::kDense) return type().item_shape;
  return shapes_[i];
}

absl::Status StreamBatch::Reserve(uint64_t bytes) {
  if (bytes <= capacity_) return absl::OkStatus();
  if (bytes > kMaxBufferBytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "stream '", name(), "': a batch of ", bytes, " bytes is too large"));
  }
  // Ragged batches vary in size: grow by half again at least, so a run
  // settles after a few steps instead of reallocating whenever a batch
  // beats the largest so far.
  const uint64_t wanted = RoundUp(
      std::max(bytes, std::min(kMaxBufferBytes, capacity_ + capacity_ / 2)),
      kBufferAlignment);
  void* fresh = ::operator new(wanted, kAlignment, std::nothrow);
  if (fresh == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("stream '", name(), "': cannot allocate ", wanted,
                     " bytes for a batch"));
  }
  // The old allocation is freed once no `allocation()` share holds it.
  allocation_ = std::shared_ptr<char>(
      static_cast<char*>(fresh),
      [](char* bytes) { ::operator delete(bytes, kAlignment); });
  data_ = allocation_.get();
  capacity_ = wanted;
  return absl::OkStatus();
}

void StreamBatch::Clear() {
  data_bytes_ = 0;
  offsets_.clear();
  sizes_.clear();
  shapes_.Clear();
  destinations_.clear();
}

absl::StatusOr<absl::Span<char>> StreamBatch::PrepareDense(size_t records) {
  if (type().kind != StreamKind::kDense) {
    return absl::FailedPreconditionError(
        absl::StrCat("stream '", name(), "' is ragged, not dense"));
  }
  Clear();
  const uint64_t record = type().record_bytes();
  if (record != 0 && records > kMaxBufferBytes / record) {
    return absl::ResourceExhaustedError(
        absl::StrCat("stream '", name(), "': ", records, " records of ", record,
                     " bytes are too large for one batch"));
  }
  if (absl::Status reserved = Reserve(records * record); !reserved.ok()) {
    return reserved;
  }
  offsets_.resize(records);
  sizes_.assign(records, record);
  for (size_t i = 0; i < records; ++i) offsets_[i] = i * record;
  data_bytes_ = records * record;
  return absl::Span<char>(data_, data_bytes_);
}

absl::StatusOr<uint64_t> StreamBatch::RaggedRecordBytes(
    size_t i, absl::Span<const uint64_t> shape) const {
  uint64_t bytes = type().item_size;
  for (uint64_t dim : shape) {
    if (dim != 0 && bytes > kMaxBufferBytes / dim) {
      return absl::InvalidArgumentError(
          absl::StrCat("stream '", name(), "': record ", i, " of shape (",
                       absl::StrJoin(shape, ", "), ") is too large"));
    }
    bytes *= dim;
  }
  if (bytes == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("stream '", name(), "': record ", i, " of shape (",
                     absl::StrJoin(shape, ", "), ") is empty"));
  }
  return bytes;
}

absl::Status StreamBatch::CheckRagged() const {
  if (type().kind == StreamKind::kRagged) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("stream '", name(), "' is dense, not ragged"));
}

void StreamBatch::AddRaggedRecord(uint64_t offset, uint64_t bytes) {
  offsets_.push_back(offset);
  sizes_.push_back(bytes);
}

absl::StatusOr<absl::Span<const absl::Span<char>>> StreamBatch::PrepareRagged(
    absl::Span<const std::vector<uint64_t>> shapes) {
  LOADERX_RETURN_IF_ERROR(CheckRagged());
  Clear();
  // Lay the records out first: sizes, aligned offsets, shapes.
  uint64_t end = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    absl::StatusOr<uint64_t> bytes = RaggedRecordBytes(i, shapes[i]);
    const uint64_t start = RoundUp(end, kRecordAlignment);
    if (bytes.ok() && start > kMaxBufferBytes - *bytes) {
      bytes = absl::ResourceExhaustedError(absl::StrCat(
          "stream '", name(), "': the batch is too large for one buffer"));
    }
    if (!bytes.ok()) {
      Clear();
      return bytes.status();
    }
    AddRaggedRecord(start, *bytes);
    shapes_.Add(shapes[i]);
    end = start + *bytes;
  }
  if (absl::Status reserved = Reserve(end); !reserved.ok()) {
    Clear();
    return reserved;
  }
  data_bytes_ = end;
  // Zero the alignment gaps, so the whole buffer has defined contents.
  uint64_t previous_end = 0;
  destinations_.resize(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    std::memset(data_ + previous_end, 0, offsets_[i] - previous_end);
    destinations_[i] = mutable_record(i);
    previous_end = offsets_[i] + sizes_[i];
  }
  return absl::Span<const absl::Span<char>>(destinations_);
}

absl::StatusOr<absl::Span<char>> StreamBatch::AllocateRagged(uint64_t bytes) {
  LOADERX_RETURN_IF_ERROR(CheckRagged());
  Clear();
  LOADERX_RETURN_IF_ERROR(Reserve(bytes));
  data_bytes_ = bytes;
  return absl::Span<char>(data_, bytes);
}

absl::Status StreamBatch::SetRaggedLayout(BatchShapes shapes,
                                          absl::Span<const uint64_t> offsets) {
  LOADERX_RETURN_IF_ERROR(CheckRagged());
  const uint64_t buffer_bytes = data_bytes_;
  Clear();
  absl::Status status;
  if (shapes.size() != offsets.size()) {
    status = absl::InvalidArgumentError(
        absl::StrCat("stream '", name(), "': ", shapes.size(), " shapes for ",
                     offsets.size(), " offsets"));
  }
  for (size_t i = 0; status.ok() && i < shapes.size(); ++i) {
    absl::StatusOr<uint64_t> bytes = RaggedRecordBytes(i, shapes[i]);
    if (bytes.ok() &&
        (offsets[i] % type().item_size != 0 || offsets[i] > buffer_bytes ||
         *bytes > buffer_bytes - offsets[i])) {
      bytes = absl::InvalidArgumentError(absl::StrCat(
          "stream '", name(), "': record ", i, " of ", *bytes,
          " bytes at offset ", offsets[i], " does not fit a buffer of ",
          buffer_bytes, " bytes on item boundaries"));
    }
    if (!bytes.ok()) {
      status = bytes.status();
    } else {
      AddRaggedRecord(offsets[i], *bytes);
    }
  }
  if (!status.ok()) {
    Clear();
    return status;
  }
  shapes_ = std::move(shapes);
  data_bytes_ = buffer_bytes;
  return absl::OkStatus();
}

Batch::Batch(absl::Span<const std::shared_ptr<const StreamSpec>> specs,
             size_t max_indices)
    : indices_(max_indices) {
  streams_.reserve(specs.size());
  for (const std::shared_ptr<const StreamSpec>& spec : specs) {
    streams_.push_back(std::make_unique<StreamBatch>(spec));
  }
}

Batch::~Batch() = default;

const StreamBatch* Batch::Find(absl::string_view name) const {
  for (const std::unique_ptr<StreamBatch>& stream : streams_) {
    if (stream->name() == name) return stream.get();
  }
  return nullptr;
}

StreamBatch* Batch::FindMutable(absl::string_view name) {
  return const_cast<StreamBatch*>(std::as_const(*this).Find(name));
}

}  // namespace loaderx
