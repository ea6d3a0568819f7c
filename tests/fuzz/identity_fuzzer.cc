// Fuzzes the typed owners' identity decoders with arbitrary bytes (the
// identity part of store.zr): decoding returns an identity or an error,
// never crashes, and a decoded identity survives re-encoding unchanged.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "loaderx/typed_owner_registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (const char* kind : {"dense", "ragged"}) {
    auto owner = loaderx::FindTypedOwner(kind);
    if (!owner.ok()) std::abort();
    auto identity = (*owner)->DecodeIdentity(bytes);
    if (!identity.ok()) continue;
    auto encoded = (*owner)->EncodeIdentity(*identity);
    if (!encoded.ok()) {
      std::fprintf(stderr, "%s: a decoded identity does not encode: %s\n", kind,
                   std::string(encoded.status().message()).c_str());
      std::abort();
    }
    auto again = (*owner)->DecodeIdentity(*encoded);
    if (!again.ok() || !(*again == *identity)) {
      std::fprintf(stderr, "%s: identity changed through re-encoding\n", kind);
      std::abort();
    }
  }
  return 0;
}
