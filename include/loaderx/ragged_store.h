// `RaggedStore` is the ragged contract: records of one dtype whose shapes
// differ arbitrarily. Each record keeps its exact shape, written with it and
// restored on read (a scalar's shape () included); nothing is inferred and
// nothing is padded. Physically a record is a payload/shape pair (engine
// records 2i and 2i+1), appended and deleted together. Zero-byte arrays are
// rejected: physical records are nonempty.
//
// Reading is two calls: `Shapes` tells the caller how big each record is,
// `Gather` fills the caller's buffers. Locking, thread safety and error
// codes are those of `DenseStore`.

#ifndef LOADERX_RAGGED_STORE_H_
#define LOADERX_RAGGED_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loaderx/store_options.h"
#include "loaderx/vfs.h"

namespace loaderx {

class RecordEngine;

// One record to append: `data` holds prod(shape) items of the store's dtype.
struct RaggedRecord {
  absl::string_view data;
  std::vector<uint64_t> shape;
};

class RaggedStore {
 public:
  // A shape has at most this many dimensions (numpy's limit).
  static constexpr size_t kMaxDimensions = 64;

  static absl::StatusOr<std::unique_ptr<RaggedStore>> Create(
      Vfs& vfs, absl::string_view path, absl::string_view dtype,
      const StoreOptions& options = {});
  static absl::StatusOr<std::unique_ptr<RaggedStore>> Open(
      Vfs& vfs, absl::string_view path, const StoreOptions& options = {});

  ~RaggedStore();
  RaggedStore(const RaggedStore&) = delete;
  RaggedStore& operator=(const RaggedStore&) = delete;

  const std::string& dtype() const { return dtype_; }
  uint32_t item_size() const { return item_size_; }
  uint64_t size() const;
  absl::string_view codec() const;

  // Appends `records` (at least one) in one commit; returns the first index.
  absl::StatusOr<uint64_t> Append(absl::Span<const RaggedRecord> records);

  // The shapes of the records at `indices`.
  absl::StatusOr<std::vector<std::vector<uint64_t>>> Shapes(
      absl::Span<const uint64_t> indices) const;

  // Reads record `indices[i]` into `destinations[i]`, which must be exactly
  // prod(shape) * item_size() bytes.
  absl::Status Gather(absl::Span<const uint64_t> indices,
                      absl::Span<const absl::Span<char>> destinations) const;

  absl::Status Delete(absl::Span<const uint64_t> indices);
  absl::Status Compact();
  absl::StatusOr<StoreStats> Stats() const;
  absl::Status Sync();

  // Reads every record once and checks it against the checksum written
  // with it (records without one are checked only for decoding), reporting
  // every damaged record by index instead of stopping at the first. Memory:
  // one record buffer per thread. May run alongside gathers and appends;
  // covers the records present when it starts.
  absl::StatusOr<VerifyReport> Verify() const;

  // Whether this handle was opened read-only (`StoreOptions::read_only`).
  bool read_only() const;

 private:
  RaggedStore(std::unique_ptr<RecordEngine> engine, std::string dtype,
              uint32_t item_size, bool typed_header_verified);
  // DataLoss if record `index`'s shape does not decode or does not
  // describe its payload's size.
  absl::Status CheckShape(uint64_t index) const;

  std::unique_ptr<RecordEngine> engine_;
  std::string dtype_;
  uint32_t item_size_;
  bool typed_header_verified_;
};

}  // namespace loaderx

#endif  // LOADERX_RAGGED_STORE_H_
