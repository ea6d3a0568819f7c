// The "zstd" codec (tag 1): every record is its own plain zstd frame, at
// level 3 unless the store asks for another. The general-purpose default:
// fast at both ends, and no dictionary to keep beside the data.

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "loaderx/codec.h"
#include "loaderx/codec_registry.h"
#include "loaderx/spi/status_macros.h"
#include "plugins/codec/zstd/zstd_frames.h"

namespace loaderx {
namespace {

class ZstdCodec final : public zstd_frames::FrameCodec {
 public:
  static constexpr char kName[] = "zstd";
  static constexpr uint8_t kTag = static_cast<uint8_t>(CodecTag::kZstd);
  static constexpr int kDefaultLevel = 3;

  static absl::StatusOr<std::unique_ptr<Codec>> Create(
      const CodecOptions& options) {
    if (!options.dictionary.empty()) {
      return absl::InvalidArgumentError(
          "zstd codec: a plain zstd store takes no dictionary (use "
          "zstd_dict)");
    }
    const int level = options.level == 0 ? kDefaultLevel : options.level;
    LOADERX_RETURN_IF_ERROR(zstd_frames::CheckLevel(kName, level));
    return std::make_unique<ZstdCodec>(level);
  }

  explicit ZstdCodec(int level) : FrameCodec(level, nullptr, nullptr) {}

  absl::string_view name() const override { return kName; }
  uint8_t tag() const override { return kTag; }
  bool uses_dictionary() const override { return false; }
};

const CodecRegistration kRegistration(ZstdCodec::kName, ZstdCodec::kTag,
                                      &ZstdCodec::Create);

}  // namespace
}  // namespace loaderx
