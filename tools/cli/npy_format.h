// The .npy file format (numpy's `numpy.lib.format`, versions 1.0, 2.0 and
// 3.0), parsed strictly and written exactly as numpy writes it:
//
//   offset  size  field
//        0     6  magic "\x93NUMPY"
//        6     1  major version (1, 2 or 3)
//        7     1  minor version (0)
//        8   2|4  header length H, little-endian (u16 for 1.0, u32 after)
//    10|12     H  header: a Python dict literal, latin-1 (3.0: UTF-8),
//                 {'descr': <dtype>, 'fortran_order': <bool>,
//                  'shape': <tuple of ints>, }  padded with spaces and
//                 ending in '\n' so the data starts 64-byte aligned
//     then        the array's bytes, C (or Fortran) order
//
// `descr` is numpy's `dtype.str` ('<f4') or `dtype.descr` (a list of
// field tuples), converted to a `DType` and validated by the engine's
// `DTypeItemSize`. The parser takes only the literal forms numpy writes
// (strings, ints, True/False, tuples, lists, the dict), with bounds on
// the header's length, nesting and dimensions, so it is safe on any bytes.

#ifndef LOADERX_TOOLS_CLI_NPY_FORMAT_H_
#define LOADERX_TOOLS_CLI_NPY_FORMAT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loaderx/dtype.h"

namespace loaderx::cli {

// The longest header accepted (numpy's own reader stops at 10,000 bytes by
// default; structured dtypes with many fields need more).
inline constexpr uint64_t kMaxNpyHeaderBytes = 1 << 20;
// The bytes before the header's text: magic, version and length.
inline constexpr size_t kNpyPreambleV1 = 10;
inline constexpr size_t kNpyPreambleV2 = 12;

struct NpyHeader {
  DType dtype;
  bool fortran_order = false;
  std::vector<uint64_t> shape;
  uint64_t item_size = 0;    // Bytes per element.
  uint64_t data_offset = 0;  // Where the array's bytes start in the file.
  uint64_t data_bytes = 0;   // item_size * prod(shape).
};

// How many bytes of the file `ParseNpyHeader` needs, from its first
// `kNpyPreambleV2` (or fewer, at the end of a short file) bytes:
// InvalidArgument if they are not a .npy preamble.
absl::StatusOr<uint64_t> NpyHeaderLength(absl::string_view preamble);

// Parses the header at the start of `prefix`, which holds at least
// `NpyHeaderLength` bytes. InvalidArgument naming what is wrong for
// anything numpy would not have written (an object dtype, a malformed
// literal, a missing or extra key, an overflowing shape).
absl::StatusOr<NpyHeader> ParseNpyHeader(absl::string_view prefix);

// The header numpy (1.23 and later) writes for an array of `dtype` and
// `shape` in C order: the smallest version that holds it, its exact text,
// padding and alignment, so that a round trip is byte-identical.
std::string EncodeNpyHeader(const DType& dtype,
                            absl::Span<const uint64_t> shape);

}  // namespace loaderx::cli

#endif  // LOADERX_TOOLS_CLI_NPY_FORMAT_H_
