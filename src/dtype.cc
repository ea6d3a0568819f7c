#include "loaderx/spi/dtype.h"

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace loaderx {

absl::StatusOr<uint32_t> DTypeItemSize(absl::string_view dtype) {
  auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("dtype \"", dtype, "\" is not supported: ", why,
                     " (want numpy's dtype.str, e.g. \"<f4\" or \"|u1\")"));
  };
  if (dtype.size() < 3) return invalid("too short");
  const char order = dtype[0];
  const char kind = dtype[1];
  uint32_t size = 0;
  if (!absl::SimpleAtoi(dtype.substr(2), &size)) {
    return invalid("no item size");
  }
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    return invalid("unknown byte order");
  }
  bool valid_size = false;
  switch (kind) {
    case 'b':
      valid_size = size == 1;
      break;
    case 'i':
    case 'u':
      valid_size = size == 1 || size == 2 || size == 4 || size == 8;
      break;
    case 'f':
      valid_size = size == 2 || size == 4 || size == 8 || size == 16;
      break;
    case 'c':
      valid_size = size == 8 || size == 16 || size == 32;
      break;
    default:
      return invalid("only bool, integer, float and complex dtypes");
  }
  if (!valid_size) return invalid("no such item size for this kind");
  return size;
}

}  // namespace loaderx
