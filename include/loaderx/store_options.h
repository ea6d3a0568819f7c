// What the typed stores (`DenseStore`, `RaggedStore`) are created with, and
// what they report about themselves.

#ifndef LOADERX_STORE_OPTIONS_H_
#define LOADERX_STORE_OPTIONS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "loaderx/thread_pool.h"

namespace loaderx {

struct StoreOptions {
  // The store's one codec, fixed at creation: "raw", "zstd" (the default)
  // or "zstd_dict" (which needs `dictionary`), or a registered plugin's.
  std::string codec = "zstd";
  // The trained dictionary for "zstd_dict"; must be empty otherwise.
  std::string dictionary;
  // The compression level for appends through this handle, or 0 for the
  // codec's default (zstd 3, zstd_dict 19). Not persisted: a level shapes
  // how records are written, and any level's frames read back alike.
  // Codecs without levels ignore it; an out-of-range level is
  // InvalidArgument at create or open.
  int level = 0;
  // The pool compression and gathers run on; null (the default) means the
  // process's shared `DefaultThreadPool()` (see `loaderx/thread_pool.h`).
  std::shared_ptr<ThreadPool> thread_pool;
};

struct StoreStats {
  uint64_t records = 0;      // Live (logical) records.
  uint64_t live_bytes = 0;   // Bytes stored for them.
  uint64_t chunk_bytes = 0;  // Bytes of all chunk files.
  // chunk_bytes - live_bytes: an upper bound on what `Compact` reclaims.
  uint64_t reclaimable = 0;
};

}  // namespace loaderx

#endif  // LOADERX_STORE_OPTIONS_H_
