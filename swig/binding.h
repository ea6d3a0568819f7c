// The C++ surface the SWIG bindings wrap: plain types (strings, byte
// strings, vectors), objects that own what they need, and errors raised as
// `BindingError` so SWIG's exception handler can turn them into the target
// language's own exceptions (see `loaderx.i`). This is the only place in
// loaderx that throws: the engine returns `absl::Status`, and this layer
// converts at the boundary.
//
// Thread safety: as the engine objects underneath. A `Filesystem` may be
// used from many threads; a `FileLock` belongs to one owner.

#ifndef LOADERX_SWIG_BINDING_H_
#define LOADERX_SWIG_BINDING_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace loaderx {
class Sampler;
class Vfs;
class VfsFile;
}  // namespace loaderx

namespace loaderx::binding {

// Binary data: `bytes` in Python, `byte[]` in Java (a plain `std::string`
// is text: `str`, `String`).
using Bytes = std::string;

// Indices: a `long[]` in Java.
using Int64Array = std::vector<int64_t>;

// Unsigned 64-bit values (a loader batch's layout): a `long[]` in Java
// carrying the same bits.
using Uint64Array = std::vector<uint64_t>;

// Memory the caller owns and lets native code fill: a writable, contiguous
// Python buffer (a numpy array) or a direct Java `ByteBuffer` (its bytes
// from position to limit). Valid only during the call.
struct MutableBuffer {
  void* data = nullptr;
  size_t size = 0;
};

// Memory the caller owns and lets native code read: a contiguous Python
// buffer (bytes, a numpy array) or a direct Java `ByteBuffer`. Valid only
// during the call.
struct ConstBuffer {
  const void* data = nullptr;
  size_t size = 0;
};

// A failed operation: `status_code` is the `absl::StatusCode` value,
// `error_code` the reference's store code (`loaderx::ErrorCode`, see
// `loaderx/error_code.h`) that `ErrorCodeOf` gives for the status. The
// bindings pick their exception from both (Python: `loaderx.errors`; Java:
// `org.loaderx.Errors`).
class BindingError : public std::runtime_error {
 public:
  BindingError(int status_code, int error_code, const std::string& message)
      : std::runtime_error(message),
        status_code_(status_code),
        error_code_(error_code) {}
  int status_code() const { return status_code_; }
  int error_code() const { return error_code_; }
  // A lock held by another handle or process (the reference's -14).
  bool busy() const { return error_code_ == -14; }

 private:
  int status_code_;
  int error_code_;
};

// Thrown by a binding call after a callback of the caller's raised (see
// `ProgressSink`): the callback's own exception is already pending in the
// language, and the wrapper returns so that it is raised.
class CallbackRaised : public std::exception {
 public:
  const char* what() const noexcept override { return "a callback raised"; }
};

// The names of the registered plugins of `kind`: "vfs", "codec" or
// "typed_owner". Unknown kind: InvalidArgument.
std::vector<std::string> RegisteredPlugins(const std::string& kind);

// An exclusive lock on a file, held until `close()` or destruction.
class FileLock {
 public:
  FileLock(std::shared_ptr<Vfs> vfs, std::unique_ptr<VfsFile> file);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  // Releases the lock; later calls do nothing.
  void close();
  bool held() const;
  std::string path() const;

 private:
  std::shared_ptr<Vfs> vfs_;  // Keeps the filesystem alive under the handle.
  std::unique_ptr<VfsFile> file_;
  std::string path_;
};

// A registered filesystem, created by name ("posix", "memory", ...).
class Filesystem {
 public:
  // Unknown name: InvalidArgument naming the registered ones.
  explicit Filesystem(const std::string& name);

  std::string name() const { return name_; }

  bool exists(const std::string& path);
  std::vector<std::string> list(const std::string& path);
  void create_directory(const std::string& path);
  void remove_directory(const std::string& path);
  void remove(const std::string& path);
  void rename(const std::string& from, const std::string& to);

  // The whole file's contents.
  Bytes read_file(const std::string& path);
  // Creates or replaces the file; `sync` makes it durable before returning.
  void write_file(const std::string& path, const Bytes& data,
                  bool sync = false);

  // Takes the file's exclusive lock without blocking, creating the file if
  // needed. Busy if another handle or process holds it. The caller owns the
  // returned lock.
  FileLock* lock(const std::string& path);

  // The filesystem itself, for the stores opened on it.
  const std::shared_ptr<Vfs>& vfs() const { return vfs_; }

 private:
  std::string name_;
  std::shared_ptr<Vfs> vfs_;
};

// The step-based index sampler (`loaderx/sampler.h`), bit-exact with
// loaderx 1.7.7. `mode` is 1.7.7's number: 0 sequential, 1 iid, 2 cyclic,
// and 3 iid_keyed (a loaderx addition); anything else is InvalidArgument.
// Lengths, batch sizes, seeds, steps and indices are unsigned 64-bit and
// cross the boundary with all 64 bits: Python ints in [0, 2^64) (SWIG
// raises OverflowError outside it) and uint64 numpy arrays; Java `long`s
// (and native-order `ByteBuffer`s of them) that carry the same bits (values of
// 2^63 and above read as negative: use `Long.toUnsignedString`,
// `Long.compareUnsigned`).
class IndexSampler {
 public:
  // `rank` of `world_size` (`Sampler`'s rank sharding): writes that
  // rank's slice of every global batch of `batch_size`.
  IndexSampler(uint64_t length, uint64_t batch_size, int mode, uint64_t seed,
               uint64_t rank = 0, uint64_t world_size = 1);
  ~IndexSampler();
  IndexSampler(const IndexSampler&) = delete;
  IndexSampler& operator=(const IndexSampler&) = delete;

  // How many indices every batch holds (`Sampler::batch_length`).
  uint64_t batch_length() const;

  // Write the current step's batch to the front of `out` (a buffer of at
  // least `batch_length()` native-order uint64 values) and advance, or write
  // batch `step` without moving the cursor (IID replays its stream to get
  // there). Each returns how many indices it wrote.
  uint64_t next_into(MutableBuffer out);
  uint64_t batch_into(uint64_t step, MutableBuffer out) const;

  // Moves to `step` (IID replays its stream, O(step * batch_size)).
  void seek(uint64_t step);
  uint64_t step() const;
  uint64_t length() const;
  uint64_t batch_size() const;
  int mode() const;
  uint64_t seed() const;
  uint64_t batches_per_cycle() const;
  uint64_t rank() const;
  uint64_t world_size() const;

 private:
  std::unique_ptr<Sampler> sampler_;
};

}  // namespace loaderx::binding

#endif  // LOADERX_SWIG_BINDING_H_
