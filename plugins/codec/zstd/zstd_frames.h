// One zstd frame per record, shared by the "zstd" and "zstd_dict" codecs.
// A compression context is a `ZSTD_CCtx` configured once (a level, or a
// reference to the shared `ZSTD_CDict`) and reused for every record it
// compresses with `ZSTD_compress2`; a decompression context is a `ZSTD_DCtx`
// that decodes each frame straight into the caller's destination, after
// checking that the frame declares exactly the destination's size.

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

// A context compressing at `level`, or against `dictionary` (which then
// fixes the level) when it is not null. `dictionary` must outlive it.
absl::StatusOr<std::unique_ptr<CompressionContext>> NewCompressionContext(
    int level, const ZSTD_CDict_s* dictionary);

// A context decoding frames, against `dictionary` when it is not null.
// `dictionary` must outlive it.
absl::StatusOr<std::unique_ptr<DecompressionContext>> NewDecompressionContext(
    const ZSTD_DDict_s* dictionary);

size_t CompressBound(size_t source_size);

}  // namespace loaderx::zstd_frames

#endif  // LOADERX_PLUGINS_CODEC_ZSTD_ZSTD_FRAMES_H_
