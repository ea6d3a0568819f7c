// `DType` is a numpy dtype as a typed store persists it: the value the
// reference's identity holds under "dtype" (see `typed_owner.h`). It is one
// of two forms, each exactly what numpy itself produces:
//
//   simple      numpy's `dtype.str`: a byte order ('<', '>', or '|' where
//               order does not apply), a kind and an item size, with a unit
//               for datetimes: "<f4", "|u1", "|b1", ">c16", "<U3" (3 code
//               points, 12 bytes), "|S5", "|V8", "<M8[ns]", "<m8[10ms]",
//               "<M8" (generic unit). Object dtypes ('O') are refused.
//   structured  numpy's `dtype.descr`: the fields in order, each a name (or
//               a title and a name), a type (simple or, for a nested
//               struct, structured) and, for a subarray field, a shape.
//               Gaps between fields and trailing space appear as padding
//               fields: an empty name and type "|V<bytes>".
//
// Validation (`DTypeItemSize`) accepts exactly these forms, so C++ knows the
// item size of any dtype a store holds, and Python rebuilds the identical
// `np.dtype` (offsets and itemsize included) from the fields.

#ifndef LOADERX_DTYPE_H_
#define LOADERX_DTYPE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace loaderx {

struct DTypeField;

struct DType {
  // A simple dtype; `str` is not validated here (see `DTypeItemSize`).
  static DType Simple(std::string str);
  // A structured dtype of `fields`, in order, padding included.
  static DType Structured(std::vector<DTypeField> fields);

  // Which form this is; a structured dtype may have no fields (`np.dtype([])`).
  bool structured = false;
  // The simple form: numpy's `dtype.str`. Empty for structured dtypes.
  std::string str;
  // The structured form: numpy's `dtype.descr`. Empty for simple dtypes.
  std::vector<DTypeField> fields;
};

struct DTypeField {
  // The field's name; empty for padding.
  std::string name;
  // The field's title, when it has one (`((title, name), type)` in numpy).
  bool has_title = false;
  std::string title;
  // The type of one element.
  DType type;
  // A subarray field's shape (numpy's third descr element); empty if the
  // field is not a subarray.
  std::vector<uint64_t> shape;
};

bool operator==(const DType& a, const DType& b);
bool operator==(const DTypeField& a, const DTypeField& b);

// Structured dtypes nest at most this deep.
inline constexpr int kMaxDTypeDepth = 32;

// The item size in bytes of `dtype` (numpy's `itemsize`), after checking
// that it is one of the forms above: InvalidArgument naming what is wrong
// otherwise (an unknown kind or size, an object dtype, a padding field that
// is not "|V<n>", a duplicate field name, an empty subarray shape, nesting
// deeper than `kMaxDTypeDepth`, a size past 2^63).
absl::StatusOr<uint64_t> DTypeItemSize(const DType& dtype);

// `dtype` as Python spells numpy's `dtype.str` or `dtype.descr`:
// "<f4", "[('x', '<i4'), ('y', '<f4', (2,))]". For messages, and for the
// bindings that take dtypes as text.
std::string DTypeToString(const DType& dtype);

}  // namespace loaderx

#endif  // LOADERX_DTYPE_H_
