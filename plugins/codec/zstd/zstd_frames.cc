#include "plugins/codec/zstd/zstd_frames.h"

#include <zstd.h>

#include <memory>

#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace loaderx::zstd_frames {
namespace {

struct FreeCCtx {
  void operator()(ZSTD_CCtx* context) const { ZSTD_freeCCtx(context); }
};
struct FreeDCtx {
  void operator()(ZSTD_DCtx* context) const { ZSTD_freeDCtx(context); }
};

class FrameCompression final : public CompressionContext {
 public:
  explicit FrameCompression(std::unique_ptr<ZSTD_CCtx, FreeCCtx> context)
      : context_(std::move(context)) {}

  absl::StatusOr<size_t> Compress(absl::string_view src,
                                  absl::Span<char> dst) override {
    if (dst.size() < ZSTD_compressBound(src.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "zstd compress: destination of ", dst.size(),
          " bytes is smaller than the bound ", ZSTD_compressBound(src.size())));
    }
    const size_t written = ZSTD_compress2(context_.get(), dst.data(),
                                          dst.size(), src.data(), src.size());
    if (ZSTD_isError(written)) {
      return absl::InternalError(
          absl::StrCat("zstd compress of ", src.size(),
                       " bytes failed: ", ZSTD_getErrorName(written)));
    }
    return written;
  }

 private:
  std::unique_ptr<ZSTD_CCtx, FreeCCtx> context_;
};

class FrameDecompression final : public DecompressionContext {
 public:
  explicit FrameDecompression(std::unique_ptr<ZSTD_DCtx, FreeDCtx> context)
      : context_(std::move(context)) {}

  absl::Status Decompress(absl::string_view src,
                          absl::Span<char> dst) override {
    // zstd bounds the decode by `dst`, so a frame that holds more fails
    // and one that holds less decodes short: the frame's header is read
    // again only to word what went wrong.
    const size_t decoded = ZSTD_decompressDCtx(
        context_.get(), dst.data(), dst.size(), src.data(), src.size());
    if (ABSL_PREDICT_TRUE(!ZSTD_isError(decoded) && decoded == dst.size())) {
      return absl::OkStatus();
    }
    const unsigned long long declared =
        ZSTD_getFrameContentSize(src.data(), src.size());
    if (declared == ZSTD_CONTENTSIZE_ERROR) {
      return absl::DataLossError(
          absl::StrCat("zstd decompress: the stored record (", src.size(),
                       " bytes) is not a zstd frame"));
    }
    if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != dst.size()) {
      return absl::DataLossError(
          absl::StrCat("zstd decompress: the stored frame holds ", declared,
                       " bytes, expected ", dst.size()));
    }
    if (ZSTD_isError(decoded)) {
      return absl::DataLossError(
          absl::StrCat("zstd decompress of a ", src.size(),
                       "-byte frame failed: ", ZSTD_getErrorName(decoded)));
    }
    return absl::DataLossError(absl::StrCat(
        "zstd decompress: decoded ", decoded, " bytes, expected ", dst.size()));
  }

 private:
  std::unique_ptr<ZSTD_DCtx, FreeDCtx> context_;
};

absl::Status CheckZstd(size_t result, absl::string_view what) {
  if (ZSTD_isError(result)) {
    return absl::InternalError(
        absl::StrCat(what, ": ", ZSTD_getErrorName(result)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckLevel(absl::string_view codec, int level) {
  if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel() || level == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        codec, ": compression level ", level, " is outside [", ZSTD_minCLevel(),
        ", ", ZSTD_maxCLevel(), "] (0 means the default)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<CompressionContext>>
FrameCodec::NewCompressionContext() const {
  const ZSTD_CDict* dictionary = compression_dictionary_;
  std::unique_ptr<ZSTD_CCtx, FreeCCtx> context(ZSTD_createCCtx());
  if (context == nullptr) {
    return absl::ResourceExhaustedError("cannot allocate a ZSTD_CCtx");
  }
  if (dictionary != nullptr) {
    if (absl::Status s =
            CheckZstd(ZSTD_CCtx_refCDict(context.get(), dictionary),
                      "zstd: referencing the dictionary");
        !s.ok()) {
      return s;
    }
  } else if (absl::Status s =
                 CheckZstd(ZSTD_CCtx_setParameter(
                               context.get(), ZSTD_c_compressionLevel, level_),
                           "zstd: setting the compression level");
             !s.ok()) {
    return s;
  }
  return std::make_unique<FrameCompression>(std::move(context));
}

absl::StatusOr<std::unique_ptr<DecompressionContext>>
FrameCodec::NewDecompressionContext() const {
  const ZSTD_DDict* dictionary = decompression_dictionary_;
  std::unique_ptr<ZSTD_DCtx, FreeDCtx> context(ZSTD_createDCtx());
  if (context == nullptr) {
    return absl::ResourceExhaustedError("cannot allocate a ZSTD_DCtx");
  }
  if (dictionary != nullptr) {
    if (absl::Status s =
            CheckZstd(ZSTD_DCtx_refDDict(context.get(), dictionary),
                      "zstd: referencing the dictionary");
        !s.ok()) {
      return s;
    }
  }
  return std::make_unique<FrameDecompression>(std::move(context));
}

size_t FrameCodec::CompressBound(size_t source_size) const {
  return ZSTD_compressBound(source_size);
}

uint64_t FrameCodec::MaxDecodedSize(uint64_t stored_size) const {
  // The densest zstd encoding is a run of RLE blocks: 3 bytes of block
  // header and 1 byte of content for up to 128 KiB (the largest block) of
  // output each, after at least 6 bytes of frame header.
  constexpr uint64_t kMaxBlockBytes = uint64_t{1} << 17;
  constexpr uint64_t kFrameHeaderBytes = 6;
  constexpr uint64_t kRleBlockBytes = 4;
  if (stored_size < kFrameHeaderBytes + kRleBlockBytes) return 0;
  return (stored_size - kFrameHeaderBytes) / kRleBlockBytes * kMaxBlockBytes;
}

}  // namespace loaderx::zstd_frames
