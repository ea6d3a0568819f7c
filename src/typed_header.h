// store.zr: the typed header of a Dense or Ragged store, written once at
// creation after the engine (and dictionary) are durable, and validated
// before a typed store is exposed. Little-endian, byte-aligned:
//
//   offset  size  field
//        0     4  magic            "ZRTY"
//        4     1  version          1
//        5     1  kind             the owner's kind tag (1 dense, 2 ragged)
//        6     2  reserved         zero
//        8     8  record_width     bytes per dense record; 0 for ragged
//       16     4  identity_bytes   length of the identity that follows
//       20    12  reserved         zero
//       32     …  identity         the owner's encoding (msgpack)
//
// The codec is not here: it lives only in the physical header (meta.zr).

#ifndef LOADERX_SRC_TYPED_HEADER_H_
#define LOADERX_SRC_TYPED_HEADER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace loaderx {

inline constexpr absl::string_view kTypedHeaderFile = "store.zr";

struct TypedHeader {
  uint8_t kind = 0;
  uint64_t record_width = 0;
  std::string identity;
};

std::string EncodeTypedHeader(const TypedHeader& header);

// DataLoss naming `path` for anything but a version-1 typed header whose
// identity fills the rest of the file exactly.
absl::StatusOr<TypedHeader> DecodeTypedHeader(absl::string_view bytes,
                                              absl::string_view path);

}  // namespace loaderx

#endif  // LOADERX_SRC_TYPED_HEADER_H_
