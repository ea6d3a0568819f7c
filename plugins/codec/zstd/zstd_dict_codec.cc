// The "zstd_dict" codec (tag 2): every record is its own zstd frame,
// compressed at level 19 against one shared dictionary. The dictionary
// carries the structure records have in common, which per-record compression
// cannot see, while each record stays independently decodable. The codec
// digests the dictionary once (`ZSTD_CDict` for writing, `ZSTD_DDict` for
// reading); both are immutable and shared, without locks, by every context.
//
// A dictionary is required: without one this codec refuses to exist, so no
// store can be written or read in a state that lacks it.

#include <zstd.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "loaderx/codec.h"
#include "loaderx/codec_registry.h"
#include "loaderx/spi/status_macros.h"
#include "plugins/codec/zstd/zstd_frames.h"

namespace loaderx {
namespace {

struct FreeCDict {
  void operator()(ZSTD_CDict* dictionary) const { ZSTD_freeCDict(dictionary); }
};
struct FreeDDict {
  void operator()(ZSTD_DDict* dictionary) const { ZSTD_freeDDict(dictionary); }
};

class ZstdDictCodec final : public zstd_frames::FrameCodec {
 public:
  static constexpr char kName[] = "zstd_dict";
  static constexpr uint8_t kTag = static_cast<uint8_t>(CodecTag::kZstdDict);
  static constexpr int kDefaultLevel = 19;

  static absl::StatusOr<std::unique_ptr<Codec>> Create(
      const CodecOptions& options) {
    if (options.dictionary.empty()) {
      return absl::InvalidArgumentError(
          "zstd_dict codec: a dictionary is required (train one on the "
          "settled data first)");
    }
    const int level = options.level == 0 ? kDefaultLevel : options.level;
    LOADERX_RETURN_IF_ERROR(zstd_frames::CheckLevel(kName, level));
    const std::string& bytes = options.dictionary;
    std::unique_ptr<ZSTD_CDict, FreeCDict> compression(
        ZSTD_createCDict(bytes.data(), bytes.size(), level));
    std::unique_ptr<ZSTD_DDict, FreeDDict> decompression(
        ZSTD_createDDict(bytes.data(), bytes.size()));
    if (compression == nullptr || decompression == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("zstd_dict codec: zstd cannot load the ", bytes.size(),
                       "-byte dictionary"));
    }
    return std::make_unique<ZstdDictCodec>(std::move(compression),
                                           std::move(decompression));
  }

  ZstdDictCodec(std::unique_ptr<ZSTD_CDict, FreeCDict> compression,
                std::unique_ptr<ZSTD_DDict, FreeDDict> decompression)
      : FrameCodec(/*level=*/0, compression.get(), decompression.get()),
        compression_(std::move(compression)),
        decompression_(std::move(decompression)) {}

  absl::string_view name() const override { return kName; }
  uint8_t tag() const override { return kTag; }
  bool uses_dictionary() const override { return true; }

 private:
  const std::unique_ptr<ZSTD_CDict, FreeCDict> compression_;
  const std::unique_ptr<ZSTD_DDict, FreeDDict> decompression_;
};

const CodecRegistration kRegistration(ZstdDictCodec::kName, ZstdDictCodec::kTag,
                                      &ZstdDictCodec::Create);

}  // namespace
}  // namespace loaderx
