// One zstd frame per record: the codec base shared by "zstd" and
// "zstd_dict".
//
// A compression context is a `ZSTD_CCtx` configured once (a level, or a
// reference to the shared `ZSTD_CDict`) and reused for every record it
// compresses with `ZSTD_compress2`; a decompression context is a `ZSTD_DCtx`
// that decodes each frame straight into the caller's destination and
// checks that it decoded exactly the destination's size (zstd never writes
// past the destination: a frame that holds more fails).

#ifndef LOADERX_PLUGINS_CODEC_ZSTD_ZSTD_FRAMES_H_
#define LOADERX_PLUGINS_CODEC_ZSTD_ZSTD_FRAMES_H_

#include <memory>

#include "absl/status/statusor.h"
#include "loaderx/codec.h"

struct ZSTD_CDict_s;
struct ZSTD_DDict_s;

namespace loaderx::zstd_frames {

// The levels zstd accepts; InvalidArgument naming `codec` otherwise.
absl::Status CheckLevel(absl::string_view codec, int level);

// What both zstd codecs share: bounds and per-thread contexts. Compression
// contexts use `level`, or `compression_dictionary` (which then fixes the
// level) when it is not null; decompression contexts use
// `decompression_dictionary` when it is not null. A subclass owns the
// dictionaries, which outlive every context by the `Codec` contract.
class FrameCodec : public Codec {
 public:
  // zstd's decoder bounds every read and write by its spans and is fuzzed
  // for hostile frames (OSS-Fuzz).
  bool decodes_untrusted_input() const final { return true; }
  size_t CompressBound(size_t source_size) const final;
  uint64_t MaxDecodedSize(uint64_t stored_size) const final;
  absl::StatusOr<std::unique_ptr<CompressionContext>> NewCompressionContext()
      const final;
  absl::StatusOr<std::unique_ptr<DecompressionContext>>
  NewDecompressionContext() const final;

 protected:
  FrameCodec(int level, const ZSTD_CDict_s* compression_dictionary,
             const ZSTD_DDict_s* decompression_dictionary)
      : level_(level),
        compression_dictionary_(compression_dictionary),
        decompression_dictionary_(decompression_dictionary) {}

 private:
  const int level_;
  const ZSTD_CDict_s* const compression_dictionary_;
  const ZSTD_DDict_s* const decompression_dictionary_;
};

}  // namespace loaderx::zstd_frames

#endif  // LOADERX_PLUGINS_CODEC_ZSTD_ZSTD_FRAMES_H_
