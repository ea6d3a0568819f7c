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

// Shards for a gather of `records` records totalling `bytes`: one (run
// inline on the caller, no hand-off) while the batch is cheap, else one per
// `kGatherShardCost` of work up to `concurrency`. A record's work is its
// bytes plus a fixed cost, in byte-equivalents, for its table entry,
// checksum and bounds (tools/bench/callgrind_per_record.sh measures both).
inline constexpr uint64_t kGatherRecordCost = 256;
inline constexpr uint64_t kGatherShardCost = 256 << 10;
inline int GatherShards(uint64_t records, uint64_t bytes, int concurrency) {
  const uint64_t work = bytes + records * kGatherRecordCost;
  return ShardsFor(work, concurrency, kGatherShardCost);
}

}  // namespace loaderx

#endif  // LOADERX_SRC_ENGINE_SHARDING_H_
