// `LoaderStream` is what a `DataLoader` reads: a sequence of records at
// indices `[0, size())`, gathered a batch at a time into a reusable
// `StreamBatch`. It is the loader's only view of where records come from,
// so stores change behind it without the loader noticing: the adapters
// over `DenseStore` and `RaggedStore` (`loaderx/store_streams.h`) are the
// only code that knows both. A user's own source (a test stream, a
// generated data set, another storage format) implements it directly.
//
// Thread safety: `Gather` is called from the loader's pool threads and from
// its consumer thread, concurrently for different batches, so it must be
// safe to call from many threads at once; each call has its `StreamBatch` to
// itself. `type` and `size` must not change while a loader uses the stream.
// `Gather` must not call back into the loader that called it, and must not
// throw (a binding's stream turns its language's exceptions into statuses).

#ifndef LOADERX_LOADER_STREAM_H_
#define LOADERX_LOADER_STREAM_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "loaderx/loader_batch.h"

namespace loaderx {

class LoaderStream {
 public:
  LoaderStream() = default;
  LoaderStream(const LoaderStream&) = delete;
  LoaderStream& operator=(const LoaderStream&) = delete;
  virtual ~LoaderStream() = default;

  // What the records are. Dense streams fill batches with
  // `StreamBatch::PrepareDense`, ragged ones with `PrepareRagged`.
  virtual const StreamType& type() const = 0;

  // How many records there are; indices run over `[0, size())`.
  virtual uint64_t size() const = 0;

  // A number that identifies the records this stream serves (the store
  // adapters: the store's `Fingerprint()` when the stream was made), so a
  // saved loader state is not resumed over other data. 0, the default,
  // means the stream cannot tell; the loader then identifies it by its
  // name, type and size only.
  virtual uint64_t fingerprint() const { return 0; }

  // Replaces the contents of `out` with the records at `indices`, in order
  // (`out.size() == indices.size()` on success), reusing `out`'s buffer;
  // on failure `out` holds nothing worth reading (the adapters leave it
  // empty).
  // Any error is reported by the loader for the step being gathered, its
  // code kept: OutOfRange for an index past the end, DataLoss for a damaged
  // record, the VFS's error for a failed read.
  virtual absl::Status Gather(absl::Span<const uint64_t> indices,
                              StreamBatch& out) const = 0;
};

}  // namespace loaderx

#endif  // LOADERX_LOADER_STREAM_H_
