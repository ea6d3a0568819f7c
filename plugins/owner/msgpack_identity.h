// The msgpack encoding of a type identity shared by the Dense and Ragged
// owners, byte for byte what the reference's Python layer writes with
// msgpack-python's defaults (`msgpack.dumps` of a dict: str type, minimal
// integer widths, keys in insertion order):
//
//   dense   {"dtype": <d>, "item_shape": [dims...]}   starts 82 a5 "dtype"
//   ragged  {"dtype": <d>}                            starts 81 a5 "dtype"
//
// where <d> is numpy's `dtype.str` as a string for simple dtypes, or
// `dtype.descr` for structured ones: an array of fields, each
// [name, type] or [name, type, [dims...]], the name a string or a
// [title, name] pair, the type a string or (nested) another field array.
// Example (dense "<i2", item_shape (4, 16)):
//
//   82 a5 6474797065 a3 3c6932 aa 6974656d5f7368617065 92 04 10
//
// Decoding accepts exactly these forms: any other key, a missing one, a
// value of another msgpack type, a field of another length, trailing bytes
// or nesting deeper than `kMaxDTypeDepth` are DataLoss. It checks the shape
// of the encoding only; the dtype itself is validated by `DTypeItemSize`.

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
