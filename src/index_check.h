// The one check every indexed call makes before touching storage.

#ifndef LOADERX_SRC_INDEX_CHECK_H_
#define LOADERX_SRC_INDEX_CHECK_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"

namespace loaderx {

// OutOfRange naming the first index not below `length`, and its position.
inline absl::Status CheckIndices(absl::Span<const uint64_t> indices,
                                 uint64_t length) {
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] >= length) {
      return absl::OutOfRangeError(
          absl::StrCat("index ", indices[i], " (position ", i,
                       ") is out of range for ", length, " records"));
    }
  }
  return absl::OkStatus();
}

}  // namespace loaderx

#endif  // LOADERX_SRC_INDEX_CHECK_H_
