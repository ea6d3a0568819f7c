// Fuzzes the command line's .npy header parser with arbitrary bytes:
// parsing returns a header or an error, never crashes or reads past the
// input, and a parsed (C-order) header survives re-encoding unchanged.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "tools/cli/npy_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto header = loaderx::cli::ParseNpyHeader(bytes);
  if (!header.ok() || header->fortran_order) return 0;
  if (header->data_offset > size) std::abort();
  const std::string encoded =
      loaderx::cli::EncodeNpyHeader(header->dtype, header->shape);
  auto again = loaderx::cli::ParseNpyHeader(encoded);
  if (!again.ok() || !(again->dtype == header->dtype) ||
      again->shape != header->shape || again->data_offset != encoded.size()) {
    std::fprintf(stderr, "a parsed header changed through re-encoding\n");
    std::abort();
  }
  return 0;
}
