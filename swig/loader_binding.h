// The loader's part of the binding surface (see `binding.h` for the plain
// types and errors, `store_binding.h` for the stores): `LoaderHandle` over
// `loaderx::DataLoader`, one surface for Python and Java.
//
//   LoaderStreams streams;
//   streams.add_store("image", image_store);   // any StoreHandle
//   streams.add_store("label", label_store);
//   LoaderHandle loader(streams, /*batch_size=*/256, /*mode=*/2,
//                       /*seed=*/42, /*prefetch=*/4);
//   LoaderBatch* batch = loader.next();        // the caller owns it
//   BatchMemory images = batch->buffer(0);     // no copy
//   ...
//   batch->release();                          // or delete it
//
// Batches without copies. A `LoaderBatch` holds one engine `Batch` until
// `release()` (or its destruction); while it is held, the engine's ring
// never writes its buffers (the ring allocates another batch instead), so
// they can be handed to the language as they are. `buffer(s)` returns a
// `BatchMemory`: a pointer and size plus its own share of the batch, so a
// language object made from it (Python: a buffer-protocol object, the
// `base` of the numpy arrays; Java: a direct `ByteBuffer`, see `loaderx.i`)
// can outlive the `LoaderBatch`. Python's typemap keeps that share in the
// buffer object, so the arrays keep the batch alive by themselves. Java's
// direct buffers cannot hold a share and cannot be revoked, and holding
// the batch until the garbage collector finds a buffer unreachable would
// keep batches out of the ring for as long: Java's `Batch` instead goes
// back to the ring at its `close()` and keeps a `BufferShare` (the stream
// buffer's allocation, not the batch) per buffer it hands out, dropped by a
// `Cleaner` once the buffer is unreachable, so a buffer read after close
// reads a later step's bytes, never freed memory.
//
// Layouts (`loaderx/loader_batch.h`): a dense stream's buffer is one C-order
// `(size(), *item_shape)` array; a ragged stream's holds record i at byte
// `offsets(s)[i]` with shape `dims(s)[...]` (`ranks(s)[i]` dimensions,
// records' dimensions back to back), every offset a multiple of the item
// size. Every buffer starts on a 4096-byte boundary.
//
// Semantics are `DataLoader`'s: batches in step order, endless, `seek` exact,
// a gather error thrown by the `next` that would have returned that step
// (which the loader then moves past), `close` waiting for gathers in flight.
// Numbers are unsigned 64-bit (Java: `long`s with the same bits).
//
// Thread safety: `next`, `seek` and the accessors are for one consumer
// thread at a time; `close` and `stats` may come from any thread (a `next`
// blocked meanwhile throws FailedPrecondition). A `LoaderBatch` and its
// `BatchMemory` may be used and released from any thread, before or after
// the loader closes.

#ifndef LOADERX_SWIG_LOADER_BINDING_H_
#define LOADERX_SWIG_LOADER_BINDING_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "loaderx/dtype.h"
#include "swig/binding.h"
#include "swig/store_binding.h"

namespace loaderx {
class Batch;
class DataLoader;
class LoaderStream;
}  // namespace loaderx

namespace loaderx::binding {

class SetHandle;

// Bytes inside a batch, with a share of the batch that keeps them valid:
// whoever holds a copy of `owner` holds the batch out of the ring.
struct BatchMemory {
  std::shared_ptr<const void> owner;
  char* data = nullptr;
  uint64_t size = 0;
  // Stream buffers are writable (in-place transforms); the indices are not.
  bool writable = false;
};

// The named streams a loader reads, in batch order.
class LoaderStreams {
 public:
  // A store of any kind: fixed-width kinds are dense streams, shaped ones
  // ragged. The loader shares the store: closing `store`'s handle while a
  // loader reads it leaves the store open (and locked) until that loader
  // closes. FailedPrecondition if the handle is closed.
  void add_store(const std::string& name, const StoreHandle& store);
  // A store set (`SetHandle`): dense or ragged as its members are. The
  // loader shares the set. FailedPrecondition if the handle is closed.
  void add_set(const std::string& name, const SetHandle& set);
  // A dense uint64 stream whose record i is i: for a loader whose records
  // come from elsewhere (a language's own sources, gathered at each batch's
  // `indices()`). `length` (> 0) records.
  void add_index_stream(const std::string& name, uint64_t length);

  int64_t size() const;

 private:
  friend class LoaderHandle;
  struct Named {
    std::string name;
    std::shared_ptr<const LoaderStream> stream;
  };
  std::vector<Named> streams_;
};

// Counters of the engine's ring (`DataLoaderStats`).
struct LoaderStatistics {
  int64_t batches_created;
  int64_t buffer_allocations;
  int64_t gathers_completed;
};

// A share of one stream buffer's allocation (`StreamBatch::allocation`):
// those bytes stay allocated while it lives, whatever happens to the batch
// or the loader. Deleting it drops the share; any thread.
class BufferShare {
 public:
  explicit BufferShare(std::shared_ptr<const void> allocation)
      : allocation_(std::move(allocation)) {}
  BufferShare(const BufferShare&) = delete;
  BufferShare& operator=(const BufferShare&) = delete;

 private:
  std::shared_ptr<const void> allocation_;
};

// One step's batch, owning the engine's `Batch` until `release()`.
class LoaderBatch {
 public:
  explicit LoaderBatch(std::shared_ptr<Batch> batch);
  ~LoaderBatch();
  LoaderBatch(const LoaderBatch&) = delete;
  LoaderBatch& operator=(const LoaderBatch&) = delete;

  // The step this batch is, and its records per stream.
  uint64_t step() const;
  uint64_t size() const;
  int num_streams() const;
  std::string name(int stream) const;
  // "dense" or "ragged".
  std::string kind(int stream) const;

  // The record indices (the same for every stream), read-only.
  BatchMemory indices() const;
  // Stream `stream`'s records, writable (see the top of this file).
  BatchMemory buffer(int stream) const;
  // A share of stream `stream`'s buffer allocation (see the top of this
  // file); the caller owns the result.
  BufferShare* buffer_share(int stream) const;
  // Ragged layout of stream `stream` (dense streams: offsets i *
  // record_bytes, ranks and dims of `item_shape` for every record).
  Uint64Array offsets(int stream) const;
  Uint64Array ranks(int stream) const;
  Uint64Array dims(int stream) const;

  // Drops this object's share of the batch; `BatchMemory` handed out keeps
  // its own. Later calls other than `released` and `release` fail with
  // FailedPrecondition. Idempotent.
  void release();
  bool released() const;

 private:
  const Batch& batch() const;
  // InvalidArgument unless 0 <= stream < num_streams().
  int CheckedStream(int stream) const;

  std::shared_ptr<Batch> batch_;
};

// The engine's `DataLoader` over `streams` (copied: the loader keeps what it
// reads alive). `mode` is the sampler's number (0 sequential, 1 iid, 2
// cyclic, 3 iid_keyed); `prefetch` (>= 1) steps are gathered ahead on the
// shared thread pool; the loader is rank `rank` of `world_size` and reads
// its slice of every global batch of `batch_size`. InvalidArgument for no
// streams, unequal or zero sizes, a bad mode, batch size or prefetch, or a
// world size that does not divide the batch size.
class LoaderHandle {
 public:
  LoaderHandle(const LoaderStreams& streams, uint64_t batch_size, int mode,
               uint64_t seed, int prefetch, uint64_t rank = 0,
               uint64_t world_size = 1);
  ~LoaderHandle();
  LoaderHandle(const LoaderHandle&) = delete;
  LoaderHandle& operator=(const LoaderHandle&) = delete;

  // The batch at `step()`, then the next step. The caller owns the result.
  LoaderBatch* next();
  // The next `next` returns step `step`, as an uninterrupted run would.
  void seek(uint64_t step);
  // Stops prefetching and waits for the gathers in flight; batches already
  // handed out stay valid. Later `next` and `seek` calls fail with
  // FailedPrecondition; the accessors keep working. Idempotent.
  void close();
  bool closed() const;

  uint64_t step() const;
  // Records per stream (the sampler's length) and the sampler's settings.
  uint64_t size() const;
  uint64_t batch_size() const;
  int mode() const;
  uint64_t seed() const;
  int prefetch() const;
  uint64_t rank() const;
  uint64_t world_size() const;
  // The data set's fingerprint (`DataLoader::fingerprint`); with `step`,
  // `seed`, `mode`, `batch_size` and `size` the loader's whole state.
  uint64_t fingerprint() const;
  // Continues from a saved state (`DataLoader::Restore`): InvalidArgument,
  // changing nothing, unless all but `step` match this loader's.
  void restore(uint64_t step, uint64_t seed, int mode, uint64_t batch_size,
               uint64_t length, uint64_t fingerprint);

  // The streams, in batch order.
  int num_streams() const;
  std::string stream_name(int stream) const;
  std::string stream_kind(int stream) const;
  loaderx::DType stream_dtype(int stream) const;
  // Dense: the records' shape; ragged: empty.
  Int64Array stream_item_shape(int stream) const;

  LoaderStatistics stats() const;

 private:
  int CheckedStream(int stream) const;

  // Lives as long as the handle: `close` may run while another thread is
  // in `next`.
  const std::unique_ptr<DataLoader> loader_;
  std::atomic<bool> closed_{false};
};

}  // namespace loaderx::binding

#endif  // LOADERX_SWIG_LOADER_BINDING_H_
