// The codec registry: codec plugins register under a name and a persisted
// tag, and the engine creates them by name (when a store is created) or by
// tag (when an existing store's header is read). A plugin registers itself
// with a namespace-scope `CodecRegistration` in its `.cc`, built
// `alwayslink = 1`:
//
//   namespace {
//   const loaderx::CodecRegistration kRegistration(
//       MyCodec::kName, MyCodec::kTag, &MyCodec::Create);
//   }  // namespace
//
// Both the name and the tag must be unique; a clash aborts at start-up.

#ifndef LOADERX_CODEC_REGISTRY_H_
#define LOADERX_CODEC_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "loaderx/codec.h"
#include "loaderx/registry.h"

namespace loaderx {

using CodecFactory =
    std::function<absl::StatusOr<std::unique_ptr<Codec>>(const CodecOptions&)>;

struct CodecDescriptor {
  uint8_t tag;
  CodecFactory factory;
};

// The process-wide codec registry.
Registry<CodecDescriptor>& CodecRegistry();

// Creates the codec registered as `name`; NotFound names the registered
// ones, InvalidArgument if `options` do not suit the codec.
absl::StatusOr<std::unique_ptr<Codec>> CreateCodec(
    absl::string_view name, const CodecOptions& options = {});

// Creates the codec registered with `tag` (as read from a store header);
// NotFound if no codec has that tag.
absl::StatusOr<std::unique_ptr<Codec>> CreateCodecByTag(
    uint8_t tag, const CodecOptions& options = {});

// Registers a codec when constructed; aborts on a duplicate name or tag.
class CodecRegistration {
 public:
  CodecRegistration(absl::string_view name, uint8_t tag, CodecFactory factory);
};

}  // namespace loaderx

#endif  // LOADERX_CODEC_REGISTRY_H_
