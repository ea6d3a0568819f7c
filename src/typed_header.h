// store.zr: the typed header of a Dense or Ragged store, the reference's
// layout byte for byte. Written once, last, at creation (after the engine
// and its dictionary are durable), and validated before a typed store is
// exposed. Little-endian, byte-aligned:
//
//   offset  size  field
//        0     4  magic         "LXST"
//        4     1  version       1
//        5     1  kind          the owner's kind tag (1 dense, 2 ragged)
//        6     2  reserved      zero
//        8     8  record_bytes  bytes per dense record; 0 for ragged
//       16     8  identity_len  length of the identity that follows
//       24     8  reserved      zero
//       32     …  identity      the owner's encoding (msgpack)
//
// The file is exactly 32 + identity_len bytes. The codec is not here: it
// lives only in the physical header (meta.zr). The reference writes the
// reserved fields as zero and does not read them; this reader insists on
// zero, so a header it accepts is one the reference wrote or could have.

#ifndef LOADERX_SRC_TYPED_HEADER_H_
#define LOADERX_SRC_TYPED_HEADER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace loaderx {

struct TypedHeader {
  uint8_t kind = 0;
  uint64_t record_bytes = 0;
  std::string identity;
};

std::string EncodeTypedHeader(const TypedHeader& header);

// DataLoss naming `path` for anything but a version-1 typed header whose
// identity fills the rest of the file exactly.
absl::StatusOr<TypedHeader> DecodeTypedHeader(absl::string_view bytes,
                                              absl::string_view path);

}  // namespace loaderx

#endif  // LOADERX_SRC_TYPED_HEADER_H_
