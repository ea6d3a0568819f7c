// `Codec` is a store's one compression method, stamped into its physical
// header as a one-byte tag at creation and never changed. Every record is
// compressed and decompressed on its own, so random access never decodes a
// neighbour.
//
// A `Codec` object is immutable once created and safe to share across
// threads; it owns the optional shared dictionary. The mutable state lives in
// per-thread contexts: a worker creates one `CompressionContext` or
// `DecompressionContext` and reuses it for every record it handles, which is
// what keeps per-record setup off the hot path. A context must not be used by
// two threads at once and must not outlive its codec.
//
// The tags loaderx defines are persisted and never reused:
//
//   tag  name       algorithm
//   0    raw        none: the record's bytes as given
//   1    zstd       zstd, level 3
//   2    zstd_dict  zstd with a trained dictionary, level 19
//
// Tags 0..127 are reserved for loaderx; a user's codec takes a tag in
// 128..255.

#ifndef LOADERX_CODEC_H_
#define LOADERX_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/attributes.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace loaderx {

// The persisted codec tags of the built-in codecs.
enum class CodecTag : uint8_t {
  kRaw = 0,
  kZstd = 1,
  kZstdDict = 2,
};

// The first tag available to codecs defined outside loaderx.
inline constexpr uint8_t kFirstUserCodecTag = 128;

// What a codec is created with.
struct CodecOptions {
  // The shared dictionary, or empty for none. A codec that takes no
  // dictionary rejects a non-empty one; one that needs a dictionary rejects
  // an empty one (both InvalidArgument), so a store can never be opened
  // against the wrong dictionary state.
  std::string dictionary;
  // The compression level, or 0 for the codec's default. Ignored by codecs
  // without levels.
  int level = 0;
};

// Per-thread compression state. Not thread-safe; reuse across records.
class CompressionContext {
 public:
  CompressionContext() = default;
  CompressionContext(const CompressionContext&) = delete;
  CompressionContext& operator=(const CompressionContext&) = delete;
  virtual ~CompressionContext() = default;

  // Compresses `src` as one independent frame into the front of `dst` and
  // returns the frame's size. `dst.size()` must be at least
  // `Codec::CompressBound(src.size())`; InvalidArgument otherwise. A codec
  // never falls back to storing a record raw: an incompressible record's
  // frame may be larger than `src`.
  virtual absl::StatusOr<size_t> Compress(absl::string_view src,
                                          absl::Span<char> dst) = 0;
};

// Per-thread decompression state. Not thread-safe; reuse across records.
class DecompressionContext {
 public:
  DecompressionContext() = default;
  DecompressionContext(const DecompressionContext&) = delete;
  DecompressionContext& operator=(const DecompressionContext&) = delete;
  virtual ~DecompressionContext() = default;

  // Decodes the frame `src` straight into `dst`, whose size is the record's
  // original length: no intermediate buffer. DataLoss if `src` is not a valid
  // frame or does not decode to exactly `dst.size()` bytes; `dst` is then
  // unspecified.
  ABSL_MUST_USE_RESULT virtual absl::Status Decompress(
      absl::string_view src, absl::Span<char> dst) = 0;
};

class Codec {
 public:
  Codec() = default;
  Codec(const Codec&) = delete;
  Codec& operator=(const Codec&) = delete;
  virtual ~Codec() = default;

  // The registered name ("raw", "zstd", "zstd_dict", ...).
  virtual absl::string_view name() const = 0;

  // The persisted tag (see the table above).
  virtual uint8_t tag() const = 0;

  // Whether this codec compresses against a shared dictionary, which must
  // then be stored beside the data.
  virtual bool uses_dictionary() const = 0;

  // Whether a record's stored bytes are the record's own bytes: `Compress`
  // copies its input unchanged and `Decompress` checks the size and copies.
  // The engine then skips the codec on both paths (it writes the caller's
  // buffers as they are and reads records straight into their
  // destinations), so a verbatim codec of a user's gets the raw codec's
  // zero-copy paths. The default is false.
  virtual bool stores_verbatim() const { return false; }

  // Whether `Decompress` is safe on any input: a damaged or hostile frame
  // makes it fail or write wrong bytes into its destination, never read or
  // write outside its two spans, crash or hang (zstd's decoder is built
  // and fuzzed for untrusted input). The engine may then decode a record
  // before it checks the record's checksum: the frame comes into cache
  // while it is decoded, which hides its misses behind the decoding, and
  // the hash reads it from there. A record that fails its checksum fails
  // the read with the same error either way. The default is false: every
  // frame is checked before it is decoded.
  virtual bool decodes_untrusted_input() const { return false; }

  // The largest frame `Compress` can produce for `source_size` input bytes.
  virtual size_t CompressBound(size_t source_size) const = 0;

  // The most bytes a valid frame of `stored_size` bytes can decode to. The
  // engine refuses a record-table entry claiming more (a damaged length must
  // not make a reader allocate it). The default says nothing beyond the
  // format's own limit (2^31).
  virtual uint64_t MaxDecodedSize(uint64_t stored_size) const {
    return uint64_t{1} << 31;
  }

  // A new context for one worker. Errors are ResourceExhausted (allocation)
  // or Internal.
  virtual absl::StatusOr<std::unique_ptr<CompressionContext>>
  NewCompressionContext() const = 0;
  virtual absl::StatusOr<std::unique_ptr<DecompressionContext>>
  NewDecompressionContext() const = 0;
};

}  // namespace loaderx

#endif  // LOADERX_CODEC_H_
