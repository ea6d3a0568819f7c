// The records a typed store takes and gives as arrays: `ShapedRecord` (an
// append's input: bytes, a shape, optionally their dtype), `BatchShapes`
// (a batch's shapes, kept flat) and `ShapedBatch` (where a batch read put
// each record in its one buffer). See `typed_store.h`.

#ifndef LOADERX_SHAPED_RECORD_H_
#define LOADERX_SHAPED_RECORD_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loaderx/dtype.h"

namespace loaderx {

// Caller-owned bytes as an array: `data` holds prod(`shape`) items of
// `dtype` in C order. `dtype` null means "the store's dtype"; a caller that
// holds typed arrays (a binding, with numpy's dtype) points it at theirs so
// the store checks it.
struct ShapedRecord {
  absl::string_view data;
  std::vector<uint64_t> shape;
  const DType* dtype = nullptr;
};

// The shapes of a batch's records, flat: every record's dimensions back to
// back and where each record's end, so a batch of any size costs two
// allocations, not one per record. `shapes[i]` is record i's shape, a span
// valid until the next `Add` or `Clear`.
class BatchShapes {
 public:
  BatchShapes() = default;
  // The shapes in `shapes`, in order.
  static BatchShapes Of(absl::Span<const std::vector<uint64_t>> shapes) {
    BatchShapes flat;
    for (const std::vector<uint64_t>& shape : shapes) flat.Add(shape);
    return flat;
  }

  size_t size() const { return ends_.size(); }
  bool empty() const { return ends_.empty(); }
  absl::Span<const uint64_t> operator[](size_t i) const {
    const size_t begin = i == 0 ? 0 : ends_[i - 1];
    return absl::MakeConstSpan(dims_).subspan(begin, ends_[i] - begin);
  }

  // Appends one record's shape.
  void Add(absl::Span<const uint64_t> shape) {
    dims_.insert(dims_.end(), shape.begin(), shape.end());
    ends_.push_back(dims_.size());
  }
  // Room for `records` more shapes of `dims` more dimensions in all.
  void Reserve(size_t records, size_t dims) {
    ends_.reserve(ends_.size() + records);
    dims_.reserve(dims_.size() + dims);
  }
  void Clear() {
    dims_.clear();
    ends_.clear();
  }

  // One vector per record, for callers that keep shapes apart.
  std::vector<std::vector<uint64_t>> ToVectors() const {
    std::vector<std::vector<uint64_t>> shapes(size());
    for (size_t i = 0; i < size(); ++i) {
      shapes[i].assign((*this)[i].begin(), (*this)[i].end());
    }
    return shapes;
  }

  friend bool operator==(const BatchShapes& a, const BatchShapes& b) {
    return a.ends_ == b.ends_ && a.dims_ == b.dims_;
  }
  friend bool operator!=(const BatchShapes& a, const BatchShapes& b) {
    return !(a == b);
  }

 private:
  std::vector<uint64_t> dims_;
  std::vector<size_t> ends_;  // Record i's dimensions end at dims_[ends_[i]].
};

// Where `TypedStore::Read` put a batch of records in its buffer.
struct ShapedBatch {
  BatchShapes shapes;             // Record i's shape.
  std::vector<uint64_t> offsets;  // Record i's first byte.
  uint64_t total_bytes = 0;       // The buffer's size.
};

// Called once by `Read` with the batch's size in bytes; returns exactly that
// many writable bytes, or an error (which `Read` returns).
using BatchAllocator =
    absl::FunctionRef<absl::StatusOr<absl::Span<char>>(uint64_t)>;

}  // namespace loaderx

#endif  // LOADERX_SHAPED_RECORD_H_
