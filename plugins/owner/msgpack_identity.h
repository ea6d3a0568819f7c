// The msgpack encoding of a type identity shared by the Dense and Ragged
// owners: a map holding exactly "dtype" (a string) and, for dense stores,
// "item_shape" (an array of non-negative integers). Decoding rejects any
// other key, a missing one, a wrong type, or trailing bytes.

#ifndef LOADERX_PLUGINS_OWNER_MSGPACK_IDENTITY_H_
#define LOADERX_PLUGINS_OWNER_MSGPACK_IDENTITY_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "loaderx/typed_owner.h"

namespace loaderx::msgpack_identity {

std::string Encode(const TypeIdentity& identity, bool with_item_shape);

// DataLoss describing what is wrong.
absl::StatusOr<TypeIdentity> Decode(absl::string_view bytes,
                                    bool with_item_shape);

}  // namespace loaderx::msgpack_identity

#endif  // LOADERX_PLUGINS_OWNER_MSGPACK_IDENTITY_H_
