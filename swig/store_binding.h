// The stores' part of the binding surface (see `binding.h` for the plain
// types, buffers and errors): dense and ragged store handles on a
// `Filesystem`, the reference's open-or-create request, dictionary training
// and the reference's error messages.
//
// Dtypes cross as `loaderx::DType`: in Python a numpy dtype identity, the
// `dtype.str` string or the `dtype.descr` list (see `loaderx.i`); in Java the
// `dtype.str` string (simple dtypes), and `DTypeToString` on the way out.
// Record indices are uint64 buffers in Python (range-checked as uint64,
// never narrowed first) and `long[]` in Java (negative values are out of
// range).

#ifndef LOADERX_SWIG_STORE_BINDING_H_
#define LOADERX_SWIG_STORE_BINDING_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "loaderx/dtype.h"
#include "loaderx/store_options.h"
#include "swig/binding.h"

namespace loaderx {
class DenseStore;
class RaggedStore;
}  // namespace loaderx

namespace loaderx::binding {

// Store statistics: records, live_bytes, chunk_bytes, reclaimable.
struct StoreStatistics {
  int64_t records;
  int64_t live_bytes;
  int64_t chunk_bytes;
  int64_t reclaimable;
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

  const StoreRequest& request() const { return request_; }

 private:
  StoreRequest request_;
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

// A dense store (`loaderx/dense_store.h`) on a `Filesystem`, which it keeps
// alive. The Python forms read and fill buffers in place, the Java forms
// copy arrays.
class DenseStoreHandle {
 public:
  // Opens the dense store at `path`.
  DenseStoreHandle(const Filesystem& fs, const std::string& path);
  // Creates one of `dtype` x `item_shape` with `codec` (and `dictionary`
  // for zstd_dict); AlreadyExists if a store is there.
  DenseStoreHandle(const Filesystem& fs, const std::string& path,
                   const loaderx::DType& dtype, const Int64Array& item_shape,
                   const std::string& codec, const Bytes& dictionary);
  // Opens or creates, as the reference's constructor.
  DenseStoreHandle(const Filesystem& fs, const std::string& path,
                   const OpenRequest& request);
  ~DenseStoreHandle();

  loaderx::DType dtype() const;
  Int64Array item_shape() const;
  int64_t record_bytes() const;
  int64_t size() const;
  std::string codec() const;
  bool has_dict() const;

  // Python: `data` holds whole records back to back; `indices` uint64.
  int64_t append(ConstBuffer data);
  void gather_into(ConstBuffer indices, MutableBuffer out) const;
  void delete_records(ConstBuffer indices);
  // Java.
  int64_t append_bytes(const Bytes& data);
  Bytes gather(const Int64Array& indices) const;
  void delete_indices(const Int64Array& indices);

  void compact();
  StoreStatistics stats() const;
  void sync();
  // Releases the store (and its lock); later calls fail with
  // FailedPrecondition.
  void close();

 private:
  DenseStore& store() const;

  std::shared_ptr<Vfs> vfs_;
  std::unique_ptr<DenseStore> store_;
};

// A ragged store (`loaderx/ragged_store.h`). Records travel packed: their
// bytes back to back, with per-record byte sizes (int64), and shapes
// flattened (int64) as [ndim, dim0, dim1, ..., ndim, ...].
class RaggedStoreHandle {
 public:
  RaggedStoreHandle(const Filesystem& fs, const std::string& path);
  RaggedStoreHandle(const Filesystem& fs, const std::string& path,
                    const loaderx::DType& dtype, const std::string& codec,
                    const Bytes& dictionary);
  RaggedStoreHandle(const Filesystem& fs, const std::string& path,
                    const OpenRequest& request);
  ~RaggedStoreHandle();

  loaderx::DType dtype() const;
  int64_t item_size() const;
  int64_t size() const;
  std::string codec() const;
  bool has_dict() const;

  int64_t append_packed(ConstBuffer data, ConstBuffer byte_sizes,
                        ConstBuffer shapes);
  // Reads the records at `indices` (uint64) in one pass: their payloads go
  // back to back into one `out` buffer of exactly their size, and the
  // flattened shapes are returned (record i's bytes are prod(shape) *
  // item_size, validated).
  Int64Array read(ConstBuffer indices, OutputBuffer& out) const;
  void delete_records(ConstBuffer indices);

  void compact();
  StoreStatistics stats() const;
  void sync();
  void close();

 private:
  RaggedStore& store() const;

  std::shared_ptr<Vfs> vfs_;
  std::unique_ptr<RaggedStore> store_;
};

// Trains a zstd dictionary of at most `capacity` bytes on samples packed
// back to back in `data`, `byte_sizes` (int64) long each, as zstd's trainer
// does with default parameters. Too few or too small samples: the
// reference's -9.
Bytes train_zstd_dictionary(ConstBuffer data, ConstBuffer byte_sizes,
                            int64_t capacity);

// The reference's message for store error `code` ("index out of range").
std::string error_code_message(int code);

}  // namespace loaderx::binding

#endif  // LOADERX_SWIG_STORE_BINDING_H_
