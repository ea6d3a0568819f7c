// A strict parser for the Python literals a .npy header is made of: str
// ('...' or "...", with the escapes `repr` writes), non-negative int
// (Python 2's trailing L accepted), True, False, None, tuple, list and a
// dict with str keys. Anything else (expressions, floats, negative
// numbers, bytes literals) is InvalidArgument naming the offset. Input is
// UTF-8 text; strings come out UTF-8. Nesting is bounded by `max_depth` and
// integers by uint64, so the parser is safe on arbitrary bytes.

#ifndef LOADERX_TOOLS_CLI_PYTHON_LITERAL_H_
#define LOADERX_TOOLS_CLI_PYTHON_LITERAL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace loaderx::cli {

struct PyLiteral {
  enum class Kind { kNone, kBool, kInt, kString, kTuple, kList, kDict };
  Kind kind = Kind::kNone;
  bool boolean = false;
  uint64_t integer = 0;
  std::string text;  // kString.
  // kTuple and kList: the items; kDict: the values, in order, their keys
  // in `keys`.
  std::vector<PyLiteral> items;
  std::vector<std::string> keys;  // kDict.

  // The value of `key` in a dict, or null.
  const PyLiteral* Find(absl::string_view key) const;
};

// Parses `text`, which must hold exactly one literal (whitespace around it
// allowed).
absl::StatusOr<PyLiteral> ParsePyLiteral(absl::string_view text,
                                         int max_depth = 64);

// Appends code point `code` to `out` as UTF-8.
void AppendUtf8(uint32_t code, std::string& out);

}  // namespace loaderx::cli

#endif  // LOADERX_TOOLS_CLI_PYTHON_LITERAL_H_
