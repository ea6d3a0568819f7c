#include "plugins/owner/msgpack_identity.h"

#include <cstdint>
#include <msgpack.hpp>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"

namespace loaderx::msgpack_identity {

std::string Encode(const TypeIdentity& identity, bool with_item_shape) {
  msgpack::sbuffer buffer;
  msgpack::packer<msgpack::sbuffer> packer(&buffer);
  packer.pack_map(with_item_shape ? 2 : 1);
  packer.pack(std::string("dtype"));
  packer.pack(identity.dtype);
  if (with_item_shape) {
    packer.pack(std::string("item_shape"));
    packer.pack_array(static_cast<uint32_t>(identity.item_shape.size()));
    for (uint64_t dim : identity.item_shape) packer.pack(dim);
  }
  return std::string(buffer.data(), buffer.size());
}

absl::StatusOr<TypeIdentity> Decode(absl::string_view bytes,
                                    bool with_item_shape) {
  auto malformed = [](absl::string_view why) {
    return absl::DataLossError(absl::StrCat("malformed type identity: ", why));
  };
  // msgpack-c reports malformed input by throwing; nothing else here does.
  try {
    size_t offset = 0;
    msgpack::object_handle handle =
        msgpack::unpack(bytes.data(), bytes.size(), offset);
    if (offset != bytes.size()) return malformed("trailing bytes");
    const msgpack::object& root = handle.get();
    if (root.type != msgpack::type::MAP) return malformed("not a map");
    TypeIdentity identity;
    std::set<std::string> seen;
    for (const msgpack::object_kv& entry :
         absl::MakeConstSpan(root.via.map.ptr, root.via.map.size)) {
      if (entry.key.type != msgpack::type::STR) {
        return malformed("a key is not a string");
      }
      const std::string key = entry.key.as<std::string>();
      if (!seen.insert(key).second) {
        return malformed(absl::StrCat("\"", key, "\" appears twice"));
      }
      if (key == "dtype" && entry.val.type == msgpack::type::STR) {
        identity.dtype = entry.val.as<std::string>();
      } else if (key == "item_shape" && with_item_shape &&
                 entry.val.type == msgpack::type::ARRAY) {
        for (const msgpack::object& dim : absl::MakeConstSpan(
                 entry.val.via.array.ptr, entry.val.via.array.size)) {
          if (dim.type != msgpack::type::POSITIVE_INTEGER) {
            return malformed("item_shape holds a non-integer");
          }
          identity.item_shape.push_back(dim.via.u64);
        }
      } else {
        return malformed(absl::StrCat("unexpected field \"", key, "\""));
      }
    }
    if (!seen.count("dtype")) return malformed("no dtype");
    if (with_item_shape && !seen.count("item_shape")) {
      return malformed("no item_shape");
    }
    return identity;
  } catch (const std::exception& error) {
    return malformed(error.what());
  }
}

}  // namespace loaderx::msgpack_identity
