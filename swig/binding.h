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

// Memory the caller owns and lets native code fill: a writable, contiguous
// Python buffer (a numpy array). Valid only during the call.
struct MutableBuffer {
  void* data = nullptr;
  size_t size = 0;
};

// A failed operation. `code` is the `absl::StatusCode` value; `busy` marks a
// lock held by another handle or process.
class BindingError : public std::runtime_error {
 public:
  BindingError(int code, bool busy, const std::string& message)
      : std::runtime_error(message), code_(code), busy_(busy) {}
  int code() const { return code_; }
  bool busy() const { return busy_; }

 private:
  int code_;
  bool busy_;
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

 private:
  std::string name_;
  std::shared_ptr<Vfs> vfs_;
};

// The step-based index sampler (`loaderx/sampler.h`). `mode` is
// "sequential", "iid" or "cyclic"; the seed's 64 bits are used as given.
class IndexSampler {
 public:
  IndexSampler(int64_t length, int64_t batch_size, const std::string& mode,
               int64_t seed);
  ~IndexSampler();
  IndexSampler(const IndexSampler&) = delete;
  IndexSampler& operator=(const IndexSampler&) = delete;

  // Fill `out` (exactly `batch_size` int64 values) with the current step's
  // batch and advance, or with batch `step` (the cursor stays).
  void next_into(MutableBuffer out);
  void batch_into(int64_t step, MutableBuffer out);
  // The same, returned as a new array.
  Int64Array next();
  Int64Array batch(int64_t step);

  void seek(int64_t step);
  int64_t step() const;
  int64_t length() const;
  int64_t batch_size() const;
  std::string mode() const;
  int64_t seed() const;
  int64_t batches_per_cycle() const;

 private:
  std::unique_ptr<Sampler> sampler_;
};

}  // namespace loaderx::binding

#endif  // LOADERX_SWIG_BINDING_H_
