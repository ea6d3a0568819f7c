// How the engine splits a batch of records across its thread pool.

#ifndef LOADERX_SRC_ENGINE_SHARDING_H_
#define LOADERX_SRC_ENGINE_SHARDING_H_

#include <algorithm>
#include <cstdint>

namespace loaderx {

// Shards for `count` items: enough to use every thread, none too small to
// be worth handing over.
inline int ShardsFor(uint64_t count, int concurrency, uint64_t min_per_shard) {
  const uint64_t useful = std::max<uint64_t>(1, count / min_per_shard);
  return static_cast<int>(std::min<uint64_t>(useful, concurrency));
}

}  // namespace loaderx

#endif  // LOADERX_SRC_ENGINE_SHARDING_H_
