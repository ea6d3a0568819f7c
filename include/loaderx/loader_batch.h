// A `Batch` is what `DataLoader::Next` hands out: one step's records from
// every stream of the loader, gathered at the same indices, so record i of
// every stream is the same record of the data set. Each stream's records
// sit in one buffer owned by the batch (`StreamBatch`), laid out so a
// binding can expose it without copying:
//
//   dense    one C-order `(size(), *item_shape)` array: record i at byte
//            i * record_bytes;
//   ragged   one buffer of the records' payloads, record i at `offset(i)`
//            with its own `shape(i)`; nothing is padded to a common shape.
//            Every offset is a multiple of the item size; the stream picks
//            the layout (the store adapter takes the store's: back to back
//            in batch order; `PrepareRagged` puts each record on a
//            `kRecordAlignment` boundary and zeroes the gaps).
//
// Every buffer starts on a `kBufferAlignment` (page) boundary. The loader
// reuses batches: once the last `std::shared_ptr` to a batch is dropped,
// its buffers go back to the loader's ring and are overwritten by a later
// step. A batch therefore stays valid exactly as long as someone holds it,
// before or after its loader closes; bindings keep it alive from the
// arrays or buffers they hand out.
//
// Thread safety: a batch is never written by the loader while anyone holds
// it; const methods may be called from many threads. The buffers are
// writable (`mutable_data`), e.g. for in-place normalisation.
//
// The `Prepare*` methods are how a `LoaderStream` fills a `StreamBatch`;
// nothing else calls them.

#ifndef LOADERX_LOADER_BATCH_H_
#define LOADERX_LOADER_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loaderx/dtype.h"
#include "loaderx/shaped_record.h"

namespace loaderx {

enum class StreamKind : uint8_t {
  kDense = 0,   // Every record one item of `item_shape`.
  kRagged = 1,  // Every record its own shape.
};

// What a stream's records are, in numpy terms; fixed for a loader's life.
struct StreamType {
  StreamKind kind = StreamKind::kDense;
  // The records' numpy dtype (simple or structured, see `dtype.h`).
  DType dtype;
  // Bytes per element of `dtype` (numpy's `itemsize`).
  uint64_t item_size = 0;
  // Dense: the shape of one record (empty: scalars). Ragged: empty.
  std::vector<uint64_t> item_shape;

  // Dense: item_size * prod(item_shape). Ragged: 0.
  uint64_t record_bytes() const;

  friend bool operator==(const StreamType&, const StreamType&) = default;
};

// A stream as a loader names it.
struct StreamSpec {
  std::string name;
  StreamType type;
};

// One stream's records in one batch.
class StreamBatch {
 public:
  // Where every buffer starts: a page boundary (docs/design.md,
  // "DataLoader", says why).
  static constexpr size_t kBufferAlignment = 4096;
  // Where `PrepareRagged` starts every record within the buffer.
  static constexpr size_t kRecordAlignment = 64;

  explicit StreamBatch(std::shared_ptr<const StreamSpec> spec);
  ~StreamBatch();
  StreamBatch(const StreamBatch&) = delete;
  StreamBatch& operator=(const StreamBatch&) = delete;

  const StreamSpec& spec() const { return *spec_; }
  const std::string& name() const { return spec_->name; }
  const StreamType& type() const { return spec_->type; }

  // Records in this batch.
  size_t size() const { return offsets_.size(); }

  // The buffer (see the top of this file for its layout); `data_bytes()`
  // bytes of it are in use. Null while nothing was ever prepared.
  const char* data() const { return data_; }
  char* mutable_data() { return data_; }
  uint64_t data_bytes() const { return data_bytes_; }
  // Bytes allocated; only grows, and only when a step needs more.
  uint64_t capacity() const { return capacity_; }
  // A share of the allocation behind `data()` (null while there is none):
  // it keeps those bytes allocated, not unchanged, after the batch goes
  // back to the ring (where later steps overwrite them), grows its buffer
  // or is freed. For a binding whose views cannot be revoked (Java's direct
  // `ByteBuffer`s): a view read after its batch's release then reads some
  // step's records, never freed memory.
  std::shared_ptr<const void> allocation() const { return allocation_; }

  // Record `i` (< size()): where it starts in the buffer, how many bytes it
  // has, its shape (dense: `item_shape`), and its bytes.
  uint64_t offset(size_t i) const { return offsets_[i]; }
  uint64_t record_bytes(size_t i) const { return sizes_[i]; }
  absl::Span<const uint64_t> shape(size_t i) const;
  absl::Span<const char> record(size_t i) const {
    return absl::Span<const char>(data_ + offsets_[i], sizes_[i]);
  }
  absl::Span<char> mutable_record(size_t i) {
    return absl::Span<char>(data_ + offsets_[i], sizes_[i]);
  }

  // Filling, for `LoaderStream`s. Each replaces what the batch held.
  //
  // Dense: lays out `records` records of `type().record_bytes()` back to
  // back and returns the whole buffer for the caller to fill.
  // FailedPrecondition on a ragged stream; ResourceExhausted if the bytes
  // cannot be allocated.
  absl::StatusOr<absl::Span<char>> PrepareDense(size_t records);
  // Ragged: lays out one record per shape (prod(shape) * item_size bytes
  // each) and returns one destination per record, `mutable_record(i)`.
  // InvalidArgument for an empty record or a size that overflows;
  // FailedPrecondition on a dense stream; ResourceExhausted as above.
  absl::StatusOr<absl::Span<const absl::Span<char>>> PrepareRagged(
      absl::Span<const std::vector<uint64_t>> shapes);
  // Ragged, for a stream whose source lays the records out itself (one
  // pass that learns the shapes and the total size together): returns a
  // buffer of exactly `bytes` bytes for the source to fill, after which
  // `SetRaggedLayout` says where each record is. Until then the batch holds
  // no records. Errors as `PrepareRagged`.
  absl::StatusOr<absl::Span<char>> AllocateRagged(uint64_t bytes);
  // Record i has `shapes[i]` and starts at `offsets[i]` of the buffer
  // `AllocateRagged` returned. InvalidArgument, leaving the batch empty,
  // unless every record is nonempty, starts at a multiple of the item size
  // and lies within that buffer.
  absl::Status SetRaggedLayout(BatchShapes shapes,
                               absl::Span<const uint64_t> offsets);
  // Empties the batch, keeping its buffer.
  void Clear();

 private:
  // Makes room for `bytes`, keeping nothing of what was there.
  absl::Status Reserve(uint64_t bytes);
  absl::Status CheckRagged() const;
  // prod(shape) * item_size for record `i`; InvalidArgument if it is 0 or
  // too large.
  absl::StatusOr<uint64_t> RaggedRecordBytes(
      size_t i, absl::Span<const uint64_t> shape) const;
  void AddRaggedRecord(uint64_t offset, uint64_t bytes);

  std::shared_ptr<const StreamSpec> spec_;
  // `capacity_` bytes, `kBufferAlignment`-aligned; `data_` is its pointer.
  std::shared_ptr<char> allocation_;
  char* data_ = nullptr;
  uint64_t capacity_ = 0;
  uint64_t data_bytes_ = 0;
  std::vector<uint64_t> offsets_;               // Per record.
  std::vector<uint64_t> sizes_;                 // Per record.
  BatchShapes shapes_;                          // Ragged, per record.
  std::vector<absl::Span<char>> destinations_;  // Ragged, per record.
};

// One step's batch across all of a loader's streams.
class Batch {
 public:
  virtual ~Batch();
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  // The step this batch is (the sampler's step that drew its indices).
  uint64_t step() const { return step_; }
  // The record indices, the same for every stream.
  absl::Span<const uint64_t> indices() const {
    return absl::Span<const uint64_t>(indices_.data(), size_);
  }
  // Records per stream: `indices().size()`.
  size_t size() const { return size_; }

  // The streams, in the loader's order.
  size_t num_streams() const { return streams_.size(); }
  const StreamBatch& stream(size_t i) const { return *streams_[i]; }
  StreamBatch& mutable_stream(size_t i) { return *streams_[i]; }
  // The stream called `name`, or null.
  const StreamBatch* Find(absl::string_view name) const;
  StreamBatch* FindMutable(absl::string_view name);

 protected:
  // Batches are made by their loader only: one per stream spec, room for
  // `max_indices` indices.
  Batch(absl::Span<const std::shared_ptr<const StreamSpec>> specs,
        size_t max_indices);

  std::vector<std::unique_ptr<StreamBatch>> streams_;
  std::vector<uint64_t> indices_;  // `size_` of them in use.
  size_t size_ = 0;
  uint64_t step_ = 0;
};

}  // namespace loaderx

#endif  // LOADERX_LOADER_BATCH_H_
