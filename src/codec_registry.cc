#include "loaderx/codec_registry.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/registration.h"

namespace loaderx {

Registry<CodecDescriptor>& CodecRegistry() {
  // Never destroyed: plugins may be looked up from other static destructors.
  static auto* registry = new Registry<CodecDescriptor>("codec");
  return *registry;
}

absl::StatusOr<std::unique_ptr<Codec>> CreateCodec(
    absl::string_view name, const CodecOptions& options) {
  absl::StatusOr<CodecDescriptor> descriptor = CodecRegistry().Find(name);
  if (!descriptor.ok()) return descriptor.status();
  return descriptor->factory(options);
}

absl::StatusOr<std::unique_ptr<Codec>> CreateCodecByTag(
    uint8_t tag, const CodecOptions& options) {
  auto found = FindByTag(CodecRegistry(), tag);
  if (!found.has_value()) {
    return absl::NotFoundError(
        absl::StrCat("no codec is registered with tag ", tag,
                     " (a store written by a newer loaderx, or a codec plugin "
                     "that is not linked in)"));
  }
  return found->second.factory(options);
}

CodecRegistration::CodecRegistration(absl::string_view name, uint8_t tag,
                                     CodecFactory factory) {
  RegisterTaggedOrDie(CodecRegistry(), name,
                      CodecDescriptor{tag, std::move(factory)});
}

}  // namespace loaderx
