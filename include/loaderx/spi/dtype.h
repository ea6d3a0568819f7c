// numpy dtype strings (`dtype.str`) as the typed stores persist them: a
// byte-order character, a kind and an item size, e.g. "<f4", "|u1", ">i8".
// Only the fixed-size numeric kinds a tensor store holds are accepted:
// b (bool), i, u, f, c, with the sizes numpy gives them.

#ifndef LOADERX_SPI_DTYPE_H_
#define LOADERX_SPI_DTYPE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace loaderx {

// The item size in bytes of `dtype`; InvalidArgument naming it otherwise.
absl::StatusOr<uint32_t> DTypeItemSize(absl::string_view dtype);

}  // namespace loaderx

#endif  // LOADERX_SPI_DTYPE_H_
