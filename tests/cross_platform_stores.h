// A deterministic set of stores for the cross-platform file test
// (`cross_platform_store_test.cc`): the same calls on Linux ("posix") and
// on Windows ("win32") must leave the same bytes in every file, and each
// platform must read, and keep writing, the stores the other one wrote.
//
//   dense_raw/      DenseStore "<f4" (3, 5), raw: three appends, a delete,
//                   a compaction
//   dense_zstd/     DenseStore "<u2" (64,), zstd, compressed on the shared
//                   thread pool
//   dense_struct/   DenseStore of a structured dtype (a subarray field and
//                   padding: a msgpack descr tree in store.zr), zstd
//   ragged_dict/    RaggedStore "<i4", zstd_dict with a fixed dictionary;
//                   records of 0 to 3 dimensions
//   engine_chunks/  the record engine with 4 KiB chunks: records of varying
//                   size spread over many chunk files, and a delete
//
// `ExtendStoreSet` appends a second batch to every store; the checks know
// which records each store holds before and after.

#ifndef LOADERX_TESTS_CROSS_PLATFORM_STORES_H_
#define LOADERX_TESTS_CROSS_PLATFORM_STORES_H_

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "loaderx/vfs.h"

namespace loaderx {

// Writes the set into `directory`, which must exist and be empty.
absl::Status WriteStoreSet(Vfs& vfs, absl::string_view directory);

// Opens every store of the set in `directory` and appends the second batch.
absl::Status ExtendStoreSet(Vfs& vfs, absl::string_view directory);

// Opens every store of the set in `directory` and checks that it holds
// exactly the records it should (with the second batch if `extended`).
absl::Status VerifyStoreSet(Vfs& vfs, absl::string_view directory,
                            bool extended);

// Copies every file and directory under `from` into `to` (which must exist
// and be empty).
absl::Status CopyTree(Vfs& vfs, absl::string_view from, absl::string_view to);

// Every file under `directory` by its `/`-separated path relative to it,
// with its contents.
absl::StatusOr<std::map<std::string, std::string>> ReadTree(
    Vfs& vfs, absl::string_view directory);

}  // namespace loaderx

#endif  // LOADERX_TESTS_CROSS_PLATFORM_STORES_H_
