// What the C++ store benchmarks build their data sets from: image-like
// records and a way to start a store directory afresh.

#ifndef LOADERX_TOOLS_BENCH_BENCH_DATA_H_
#define LOADERX_TOOLS_BENCH_BENCH_DATA_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "loaderx/vfs.h"

namespace loaderx {

// Record `i` of `bytes` bytes: a smooth gradient with 3 bits of noise in
// every other byte, an image-like record that zstd shrinks about 1.8x, close
// to the reference's structured data (1.74x).
std::string ImageLikeRecord(uint64_t i, uint64_t bytes);

// Removes the store directory `dir` and the files in it, if it exists.
absl::Status RemoveStoreDirectory(Vfs& vfs, const std::string& dir);

}  // namespace loaderx

#endif  // LOADERX_TOOLS_BENCH_BENCH_DATA_H_
