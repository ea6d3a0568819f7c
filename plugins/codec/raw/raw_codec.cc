// The "raw" codec (tag 0): a record is stored as its own bytes. It says so
// (`stores_verbatim`), so the engine's write path skips it and writes caller
// buffers with `pwritev` directly, and reads go straight into destinations;
// its contexts still give every store one `Codec` shape, and their checks
// (exact sizes both ways) keep a truncated record from being read as a short
// one.

#include <cstring>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "loaderx/codec.h"
#include "loaderx/codec_registry.h"

namespace loaderx {
namespace {

class RawCompression final : public CompressionContext {
 public:
  absl::StatusOr<size_t> Compress(absl::string_view src,
                                  absl::Span<char> dst) override {
    if (dst.size() < src.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("raw compress: destination of ", dst.size(),
                       " bytes is smaller than the bound ", src.size()));
    }
    if (!src.empty()) std::memcpy(dst.data(), src.data(), src.size());
    return src.size();
  }
};

class RawDecompression final : public DecompressionContext {
 public:
  absl::Status Decompress(absl::string_view src,
                          absl::Span<char> dst) override {
    if (src.size() != dst.size()) {
      return absl::DataLossError(
          absl::StrCat("raw decompress: stored record has ", src.size(),
                       " bytes, expected ", dst.size()));
    }
    if (!src.empty()) std::memcpy(dst.data(), src.data(), src.size());
    return absl::OkStatus();
  }
};

class RawCodec final : public Codec {
 public:
  static constexpr char kName[] = "raw";
  static constexpr uint8_t kTag = static_cast<uint8_t>(CodecTag::kRaw);

  static absl::StatusOr<std::unique_ptr<Codec>> Create(
      const CodecOptions& options) {
    if (!options.dictionary.empty()) {
      return absl::InvalidArgumentError(
          "raw codec: a raw store takes no dictionary");
    }
    return std::make_unique<RawCodec>();
  }

  absl::string_view name() const override { return kName; }
  uint8_t tag() const override { return kTag; }
  bool uses_dictionary() const override { return false; }
  bool stores_verbatim() const override { return true; }
  size_t CompressBound(size_t source_size) const override {
    return source_size;
  }
  absl::StatusOr<std::unique_ptr<CompressionContext>> NewCompressionContext()
      const override {
    return std::make_unique<RawCompression>();
  }
  absl::StatusOr<std::unique_ptr<DecompressionContext>>
  NewDecompressionContext() const override {
    return std::make_unique<RawDecompression>();
  }
};

const CodecRegistration kRegistration(RawCodec::kName, RawCodec::kTag,
                                      &RawCodec::Create);

}  // namespace
}  // namespace loaderx
