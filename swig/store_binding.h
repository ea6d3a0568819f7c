// The stores' part of the binding surface (see `binding.h` for the plain
// types, buffers and errors): typed store handles on a `Filesystem`, the
// reference's open-or-create request, dictionary training, the size of the
// shared thread pool and the reference's error messages.
//
// Dtypes cross as `loaderx::DType`: in Python a numpy dtype identity, the
// `dtype.str` string or the `dtype.descr` list (see `loaderx.i`); in Java the
// `dtype.str` string (simple dtypes), and `DTypeToString` on the way out.
// Record indices are numpy buffers in Python (`IndexBuffer`: uint64 arrays
// range-checked as they are, never narrowed first) and `long[]` in Java
// (an unsigned `IndexBuffer`; negative values are out of range).

#ifndef LOADERX_SWIG_STORE_BINDING_H_
#define LOADERX_SWIG_STORE_BINDING_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "loaderx/dtype.h"
#include "loaderx/shaped_record.h"
#include "loaderx/store_options.h"
#include "swig/binding.h"

namespace loaderx {
class TypedStore;
}  // namespace loaderx

namespace loaderx::binding {

class GuardedStore;

// Store statistics: records, live_bytes, chunk_bytes, reclaimable.
struct StoreStatistics {
  int64_t records;
  int64_t live_bytes;
  int64_t chunk_bytes;
  int64_t reclaimable;
};

// What a compaction would do (`loaderx::CompactionEstimate`);
// available_bytes is -1 when the filesystem does not say.
struct CompactionEstimateFields {
  int64_t moves;
  int64_t batches;
  int64_t reclaimed_bytes;
  int64_t needed_bytes;
  int64_t available_bytes;
};

// The reference's constructor arguments (`loaderx::StoreRequest`): a field
// not set is the reference's None.
class OpenRequest {
 public:
  void set_dtype(const loaderx::DType& dtype);
  // Negative dimensions: InvalidArgument.
  void set_item_shape(const Int64Array& item_shape);
  void set_codec(const std::string& codec);
  void set_dictionary(const Bytes& dictionary);
  void set_level(int level);
  // Opens without writing (a shared lock other read-only handles may hold
  // too); never creates a store. Writes through the handle then fail with
  // FailedPrecondition.
  void set_read_only(bool read_only);

  const StoreRequest& request() const { return request_; }

 private:
  StoreRequest request_;
};

// What `StoreHandle::verify` found (`loaderx::VerifyReport`): counts of
// records examined, verified against their checksums and unverified (no
// checksum: written by loaderx 1.7.7), the damaged records' indices
// (ascending), a line on each of the first few, and whether store.zr (and
// dict.zr) matched their checksums. Counts are int64 (Java `long`).
class VerifyResult {
 public:
  explicit VerifyResult(const VerifyReport& report);

  int64_t records() const { return records_; }
  int64_t verified() const { return verified_; }
  int64_t unverified() const { return unverified_; }
  Int64Array damaged() const { return damaged_; }
  std::vector<std::string> problems() const { return problems_; }
  bool metadata_verified() const { return metadata_verified_; }
  // Records removed past the length by another writer or by damage, the
  // metadata problems (that one among them) and notes.
  int64_t removed_records() const { return removed_records_; }
  std::vector<std::string> metadata_problems() const {
    return metadata_problems_;
  }
  std::vector<std::string> notes() const { return notes_; }
  // No damaged record and no metadata problem.
  bool ok() const { return damaged_.empty() && metadata_problems_.empty(); }

 private:
  int64_t records_;
  int64_t verified_;
  int64_t unverified_;
  Int64Array damaged_;
  std::vector<std::string> problems_;
  bool metadata_verified_;
  int64_t removed_records_;
  std::vector<std::string> metadata_problems_;
  std::vector<std::string> notes_;
};

// Memory the native code asks its caller for once during a call, when it
// knows how much it needs (Python: a `bytearray` that the call returns).
class OutputBuffer {
 public:
  virtual ~OutputBuffer() = default;
  // `size` writable bytes, valid until the call returns; null (with the
  // language's error pending) if they cannot be had.
  virtual char* Allocate(size_t size) = 0;
};

// How far a long call has got, passed on to a callback of the caller's
// (Python: any callable `progress(done, total)`; Java: an
// `org.loaderx.VerifyProgress`). Each language implements it in its
// typemaps, as `OutputBuffer`; it lives for the length of one call.
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  // Passes `done` of `total` to the callback. Called from the threads doing
  // the work (the caller's and the thread pool's), never two at once, with
  // no language lock held: the sink takes what its language needs (the GIL;
  // the calling thread's JNIEnv, attaching a thread the JVM does not know).
  // False if the callback raised: the sink keeps the exception for
  // `RestoreError`, and the call reports nothing more.
  virtual bool Report(uint64_t done, uint64_t total) = 0;
  // On the calling thread, after the work, once a `Report` returned false:
  // makes the kept exception the language's pending one. The call then
  // throws `CallbackRaised`, and the wrapper returns to raise it.
  virtual void RestoreError() = 0;
};

// Record indices as a Python buffer (a numpy array) holds them: uint64 (used
// as they are), int64 (a negative index counts from the end, once) or a
// boolean mask (one flag per record, selecting the records it marks). Valid
// only during the call.
struct IndexBuffer {
  enum class Kind { kUnsigned, kSigned, kMask };
  Kind kind = Kind::kUnsigned;
  const void* data = nullptr;
  size_t count = 0;  // Elements.
  int ndim = 1;      // Of the buffer; a mask must be one-dimensional.
};

// One record to append as an array (Python: a (dtype identity, shape,
// bytes) tuple): `data` holds prod(shape) items of `dtype`. Valid only
// during the call.
struct RecordArray {
  loaderx::DType dtype;
  std::vector<uint64_t> shape;
  ConstBuffer data;
};
using RecordArrays = std::vector<RecordArray>;

// Where a batch read put each record in its buffer: record i has
// `shapes[i]` and starts at byte `offsets[i]` (Python: a (list of shape
// tuples, list of offsets) tuple).
struct BatchLayout {
  BatchShapes shapes;
  std::vector<uint64_t> offsets;
};

// A typed store (`loaderx/typed_store.h`) of any registered kind on a
// `Filesystem`, which it keeps alive: the dense and ragged stores and any
// owner linked into the binding. Every form reads and fills the caller's
// buffers in place (Python buffers, direct Java `ByteBuffer`s).
//
// Thread safety: any method may be called from many threads at once. Reads,
// appends, `sync`, `stats` and `verify` overlap; `delete_records` and
// `compact` wait for the calls in flight and run alone; `close` (and
// destruction) waits for them too, and every call after it fails with
// FailedPrecondition ("the store is closed"). See `guarded_store.h`.
class StoreHandle {
 public:
  // Opens or creates, as the reference's constructor, a store of `kind`
  // (empty: open whatever kind is there).
  StoreHandle(const Filesystem& fs, const std::string& path,
              const std::string& kind, const OpenRequest& request);
  virtual ~StoreHandle();

  std::string kind() const;
  // Whether records share one width and shape (the fixed-width layout) or
  // each carries its own shape.
  bool fixed_width() const;
  loaderx::DType dtype() const;
  // The records' shape in a fixed-width store; empty in a shaped one.
  Int64Array item_shape() const;
  // Bytes per record (fixed width; 0 for shaped stores) and per item.
  int64_t record_bytes() const;
  int64_t item_size() const;
  int64_t size() const;
  // `TypedStore::Fingerprint()` (the committed state), its bits as int64_t.
  int64_t fingerprint() const;
  std::string codec() const;
  bool has_dict() const;

  // `append_array` appends the records of one array whose first
  // axis counts them (a 0-d array is one record); `append_records` one
  // record per element. The store checks dtypes, shapes and sizes; an
  // empty simple `dtype` means bytes of the store's own dtype.
  int64_t append_array(const loaderx::DType& dtype, const Int64Array& shape,
                       ConstBuffer data);
  int64_t append_records(const RecordArrays& records);
  // Fixed-width stores: the records at `indices` into `out`, back to back.
  void gather_into(IndexBuffer indices, MutableBuffer out) const;
  // Reads the records at `indices` in one pass: their payloads go back to
  // back into one `out` buffer of exactly their size (validated shapes).
  BatchLayout read(IndexBuffer indices, OutputBuffer& out) const;
  void delete_records(IndexBuffer indices);

  void compact();
  CompactionEstimateFields estimate_compaction() const;
  void accept_metadata_problems();
  StoreStatistics stats() const;
  void sync();
  // Reads every record and checks it against its checksum, reporting every
  // damaged record (`TypedStore::Verify`). `progress`, if not null, is told
  // how far it has got (`VerifyProgress`); if it raises, it is told nothing
  // more, the verification runs to its end, and then the call throws
  // `CallbackRaised` with the callback's exception pending (an error of the
  // verification itself is thrown instead, as without `progress`).
  VerifyResult verify(ProgressSink* progress = nullptr) const;
  // Whether the handle was opened read-only.
  bool read_only() const;
  // Waits for the calls in flight, then releases the store (and its lock);
  // later calls fail with FailedPrecondition. Idempotent.
  void close();

 protected:
  StoreHandle(const Filesystem& fs, std::unique_ptr<TypedStore> store);

 private:
  friend class LoaderStreams;  // Shares the store with the loaders it feeds.

  std::shared_ptr<Vfs> vfs_;  // Declared first: outlives the store.
  std::unique_ptr<GuardedStore> store_;
};

// Trains a zstd dictionary of at most `capacity` (> 0) bytes on samples
// packed back to back in `data`, `byte_sizes` (int64, non-negative, summing
// to exactly the data's size) long each, as zstd's trainer does with
// default parameters. Too few or too small samples: the reference's -9.
Bytes train_zstd_dictionary(ConstBuffer data, ConstBuffer byte_sizes,
                            int64_t capacity);

// The process-wide thread pool every store's compression and gathers share
// (`loaderx/thread_pool.h`): how many threads a call may use, and setting
// it (at least 1) for stores opened afterwards.
int num_threads();
void set_num_threads(int threads);

// The largest record, in bytes (2^31).
int64_t max_record_bytes();

// The reference's message for store error `code` ("index out of range").
std::string error_code_message(int code);

}  // namespace loaderx::binding

#endif  // LOADERX_SWIG_STORE_BINDING_H_
