#include "plugins/owner/msgpack_identity.h"

#include <algorithm>
#include <cstdint>
#include <msgpack.hpp>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "loaderx/dtype.h"
#include "loaderx/spi/status_macros.h"

namespace loaderx::msgpack_identity {
namespace {

using Packer = msgpack::packer<msgpack::sbuffer>;

void PackString(Packer& packer, absl::string_view text) {
  packer.pack_str(static_cast<uint32_t>(text.size()));
  packer.pack_str_body(text.data(), static_cast<uint32_t>(text.size()));
}

void PackDims(Packer& packer, const std::vector<uint64_t>& dims) {
  packer.pack_array(static_cast<uint32_t>(dims.size()));
  for (uint64_t dim : dims) packer.pack(dim);  // Minimal width, as Python.
}

void PackDType(Packer& packer, const DType& dtype) {
  if (!dtype.structured) {
    PackString(packer, dtype.str);
    return;
  }
  packer.pack_array(static_cast<uint32_t>(dtype.fields.size()));
  for (const DTypeField& field : dtype.fields) {
    packer.pack_array(field.shape.empty() ? 2 : 3);
    if (field.has_title) {
      packer.pack_array(2);
      PackString(packer, field.title);
    }
    PackString(packer, field.name);
    PackDType(packer, field.type);
    if (!field.shape.empty()) PackDims(packer, field.shape);
  }
}

absl::Status Malformed(absl::string_view why) {
  return absl::DataLossError(absl::StrCat("malformed type identity: ", why));
}

// A map whose keys are not exactly the owner's. The phrase "type identity
// fields" is part of the contract: 1.7.7 says it, and the Python binding
// raises its TypeIdentityError (a ValueError) for a bad-format error that
// carries it.
absl::Status FieldsMismatch(absl::string_view why, bool with_item_shape) {
  return Malformed(
      absl::StrCat(why, " (the type identity fields are exactly ",
                   with_item_shape ? "dtype and item_shape" : "dtype", ")"));
}

absl::Span<const msgpack::object> Elements(const msgpack::object& array) {
  return absl::MakeConstSpan(array.via.array.ptr, array.via.array.size);
}

absl::StatusOr<std::vector<uint64_t>> DecodeDims(const msgpack::object& value,
                                                 absl::string_view what) {
  if (value.type != msgpack::type::ARRAY) {
    return Malformed(absl::StrCat(what, " is not an array"));
  }
  std::vector<uint64_t> dims;
  for (const msgpack::object& dim : Elements(value)) {
    if (dim.type != msgpack::type::POSITIVE_INTEGER) {
      return Malformed(absl::StrCat(what, " holds a non-integer"));
    }
    dims.push_back(dim.via.u64);
  }
  return dims;
}

absl::StatusOr<DType> DecodeDType(const msgpack::object& value, int depth);

absl::StatusOr<DTypeField> DecodeField(const msgpack::object& value,
                                       int depth) {
  if (value.type != msgpack::type::ARRAY ||
      (value.via.array.size != 2 && value.via.array.size != 3)) {
    return Malformed(
        "a dtype field is not [name, type] or [name, type, shape]");
  }
  absl::Span<const msgpack::object> parts = Elements(value);
  DTypeField field;
  const msgpack::object& name = parts[0];
  if (name.type == msgpack::type::ARRAY && name.via.array.size == 2 &&
      Elements(name)[0].type == msgpack::type::STR &&
      Elements(name)[1].type == msgpack::type::STR) {
    field.has_title = true;
    field.title = Elements(name)[0].as<std::string>();
    field.name = Elements(name)[1].as<std::string>();
  } else if (name.type == msgpack::type::STR) {
    field.name = name.as<std::string>();
  } else {
    return Malformed("a dtype field's name is not a string or [title, name]");
  }
  LOADERX_ASSIGN_OR_RETURN(field.type, DecodeDType(parts[1], depth + 1));
  if (parts.size() == 3) {
    LOADERX_ASSIGN_OR_RETURN(field.shape,
                             DecodeDims(parts[2], "a dtype field's shape"));
    if (field.shape.empty()) {
      return Malformed("a dtype field's shape is empty");
    }
  }
  return field;
}

absl::StatusOr<DType> DecodeDType(const msgpack::object& value, int depth) {
  if (value.type == msgpack::type::STR) {
    return DType::Simple(value.as<std::string>());
  }
  if (value.type != msgpack::type::ARRAY) {
    return Malformed("dtype is neither a string nor a field list");
  }
  if (depth >= kMaxDTypeDepth) {
    return Malformed(absl::StrCat("dtype nests deeper than ", kMaxDTypeDepth));
  }
  std::vector<DTypeField> fields;
  for (const msgpack::object& element : Elements(value)) {
    LOADERX_ASSIGN_OR_RETURN(DTypeField field, DecodeField(element, depth));
    fields.push_back(std::move(field));
  }
  return DType::Structured(std::move(fields));
}

absl::StatusOr<TypeIdentity> DecodeRoot(const msgpack::object& root,
                                        bool with_item_shape) {
  if (root.type != msgpack::type::MAP) return Malformed("not a map");
  TypeIdentity identity;
  std::set<std::string> seen;
  for (const msgpack::object_kv& entry :
       absl::MakeConstSpan(root.via.map.ptr, root.via.map.size)) {
    if (entry.key.type != msgpack::type::STR) {
      return Malformed("a key is not a string");
    }
    const std::string key = entry.key.as<std::string>();
    if (!seen.insert(key).second) {
      return Malformed(absl::StrCat("\"", key, "\" appears twice"));
    }
    if (key == "dtype") {
      LOADERX_ASSIGN_OR_RETURN(identity.dtype, DecodeDType(entry.val, 0));
    } else if (key == "item_shape" && with_item_shape) {
      LOADERX_ASSIGN_OR_RETURN(identity.item_shape,
                               DecodeDims(entry.val, "item_shape"));
    } else {
      return FieldsMismatch(absl::StrCat("unexpected field \"", key, "\""),
                            with_item_shape);
    }
  }
  if (!seen.count("dtype")) return FieldsMismatch("no dtype", with_item_shape);
  if (with_item_shape && !seen.count("item_shape")) {
    return FieldsMismatch("no item_shape", with_item_shape);
  }
  return identity;
}

}  // namespace

std::string Encode(const TypeIdentity& identity, bool with_item_shape) {
  msgpack::sbuffer buffer;
  Packer packer(&buffer);
  packer.pack_map(with_item_shape ? 2 : 1);
  PackString(packer, "dtype");
  PackDType(packer, identity.dtype);
  if (with_item_shape) {
    PackString(packer, "item_shape");
    PackDims(packer, identity.item_shape);
  }
  return std::string(buffer.data(), buffer.size());
}

absl::StatusOr<TypeIdentity> Decode(absl::string_view bytes,
                                    bool with_item_shape) {
  // Each level of a structured dtype is two arrays deep (fields, field).
  // Every element, pair and byte takes at least a byte of input, so no
  // declared size may exceed the input's: msgpack-c allocates an array's
  // declared size before reading its elements.
  const size_t most = std::min<size_t>(bytes.size(), 0xffffffff);
  const msgpack::unpack_limit limit(/*array=*/most, /*map=*/most, /*str=*/most,
                                    /*bin=*/most, /*ext=*/most,
                                    /*depth=*/2 * kMaxDTypeDepth + 4);
  // msgpack-c reports malformed input by throwing; nothing else here does.
  try {
    size_t offset = 0;
    msgpack::object_handle handle = msgpack::unpack(
        bytes.data(), bytes.size(), offset, nullptr, nullptr, limit);
    if (offset != bytes.size()) return Malformed("trailing bytes");
    return DecodeRoot(handle.get(), with_item_shape);
  } catch (const std::exception& error) {
    return Malformed(error.what());
  }
}

}  // namespace loaderx::msgpack_identity
