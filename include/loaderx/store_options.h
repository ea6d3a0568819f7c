// What the typed stores (`DenseStore`, `RaggedStore`) are created or opened
// with, and what they report about themselves.

#ifndef LOADERX_STORE_OPTIONS_H_
#define LOADERX_STORE_OPTIONS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loaderx/dtype.h"
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

// The reference's open-or-create constructor, `DenseStore(path, dtype=None,
// item_shape=None, codec=None, dict_bytes=None)`, as a request: every field
// is optional. At a path holding a store, each given field is checked
// against it (a mismatch is InvalidArgument; so is a dictionary, which only
// a creation takes). Anywhere else the store is created from the fields:
// `dtype` (and `item_shape` for dense stores) are required, the codec
// defaults to "zstd".
struct StoreRequest {
  std::optional<DType> dtype;
  std::optional<std::vector<uint64_t>> item_shape;  // Dense stores only.
  std::optional<std::string> codec;
  std::optional<std::string> dictionary;
  // As in `StoreOptions`.
  int level = 0;
  std::shared_ptr<ThreadPool> thread_pool;
};

struct StoreStats {
  uint64_t records = 0;     // Live (logical) records.
  uint64_t live_bytes = 0;  // Bytes stored for them (ragged: shapes too).
  // How far the chunks reach: tail_chunk * 2^32 + tail_offset, the
  // reference's measure (the bytes written, for a single-chunk store).
  uint64_t chunk_bytes = 0;
  // chunk_bytes - live_bytes: an upper bound on what `Compact` reclaims.
  uint64_t reclaimable = 0;
};

}  // namespace loaderx

#endif  // LOADERX_STORE_OPTIONS_H_
