#include "src/shape_record.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/base/optimization.h"
#include "absl/numeric/int128.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "loaderx/error_code.h"
#include "loaderx/spi/little_endian.h"
#include "loaderx/spi/status_macros.h"

namespace loaderx {

std::string EncodeShapeRecord(absl::Span<const uint64_t> shape) {
  std::string out(8 * (shape.size() + 1), '\0');
  StoreLittle<uint64_t>(&out[0], shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    StoreLittle<uint64_t>(&out[8 * (d + 1)], shape[d]);
  }
  return out;
}

std::optional<uint64_t> ShapeBytes(absl::Span<const uint64_t> shape,
                                   uint64_t item_size, uint64_t limit) {
  for (uint64_t dim : shape) {
    if (dim == 0) return 0;
  }
  if (item_size > limit) return std::nullopt;
  // 128-bit products: no division per dimension, no overflow.
  uint64_t total = item_size;
  for (uint64_t dim : shape) {
    const absl::uint128 product = absl::uint128(total) * dim;
    if (product > limit) return std::nullopt;
    total = absl::Uint128Low64(product);
  }
  return total;
}

absl::Status AppendShapeRecord(absl::string_view bytes, uint64_t item_size,
                               uint64_t payload_bytes, uint64_t index,
                               BatchShapes& shapes) {
  auto corrupt = [&](absl::string_view why) {
    return CorruptRecordError(
        absl::StrCat("record ", index, ": its shape record ", why));
  };
  if (ABSL_PREDICT_FALSE(bytes.size() < 8 || bytes.size() % 8 != 0)) {
    return corrupt(absl::StrCat("has ", bytes.size(),
                                " bytes, not a nonzero multiple of 8"));
  }
  const uint64_t rank = LoadLittle<uint64_t>(bytes.data());
  if (ABSL_PREDICT_FALSE(rank > kMaxShapeDimensions ||
                         bytes.size() / 8 != rank + 1)) {
    return corrupt(absl::StrCat("declares rank ", rank, " in ",
                                bytes.size() / 8, " words"));
  }
  uint64_t dims[kMaxShapeDimensions];
  // One pass: each dimension loaded, nonzero, and the running product (of
  // 128 bits, so exact) no more than the payload's size.
  uint64_t product = item_size;
  bool fits = true;
  for (uint64_t d = 0; d < rank; ++d) {
    dims[d] = LoadLittle<uint64_t>(&bytes[8 * (d + 1)]);
    const absl::uint128 next = absl::uint128(product) * dims[d];
    fits &= dims[d] != 0 && next <= payload_bytes;
    product = absl::Uint128Low64(next);
  }
  const absl::Span<const uint64_t> shape(dims, rank);
  if (ABSL_PREDICT_FALSE(!fits || product != payload_bytes ||
                         payload_bytes == 0)) {
    return corrupt(absl::StrCat("(", absl::StrJoin(shape, ", "), ") of ",
                                item_size, "-byte items disagrees with its ",
                                payload_bytes, "-byte payload"));
  }
  shapes.Add(shape);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<uint64_t>> DecodeShapeRecord(absl::string_view bytes,
                                                        uint64_t item_size,
                                                        uint64_t payload_bytes,
                                                        uint64_t index) {
  BatchShapes shapes;
  LOADERX_RETURN_IF_ERROR(
      AppendShapeRecord(bytes, item_size, payload_bytes, index, shapes));
  return std::vector<uint64_t>(shapes[0].begin(), shapes[0].end());
}

}  // namespace loaderx
