// The records a typed store takes and gives as arrays: `ShapedRecord` (an
// append's input: bytes, a shape, optionally their dtype) and
// `ShapedBatch` (where a batch read put each record in its one buffer). See
// `typed_store.h`.

#ifndef LOADERX_SHAPED_RECORD_H_
#define LOADERX_SHAPED_RECORD_H_

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

// Where `TypedStore::Read` put a batch of records in its buffer.
struct ShapedBatch {
  std::vector<std::vector<uint64_t>> shapes;  // Record i's shape.
  std::vector<uint64_t> offsets;              // Record i's first byte.
  uint64_t total_bytes = 0;                   // The buffer's size.
};

// Called once by `Read` with the batch's size in bytes; returns exactly that
// many writable bytes, or an error (which `Read` returns).
using BatchAllocator =
    absl::FunctionRef<absl::StatusOr<absl::Span<char>>(uint64_t)>;

}  // namespace loaderx

#endif  // LOADERX_SHAPED_RECORD_H_
