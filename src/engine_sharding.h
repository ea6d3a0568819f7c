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

// Shards for a gather of `records` records totalling `bytes` decoded
// bytes: one (run inline on the caller: no hand-off) while the batch is
// cheap, else one per `kGatherShardCost` of work, up to `concurrency`.
// Work is counted in byte-equivalents of a raw copy: a record's bytes
// (times `kDecodeCostFactor` when they are decompressed) plus a fixed cost
// for its table entry, checksum and bounds.
//
// The constants come from tools/bench/callgrind_per_record.sh (64 B
// records, mapped store): a raw record costs ~310 instructions (~100 ns),
// a zstd one ~1,100, of which the fixed part is the same ~300; handing a
// batch to a second thread costs ~1,000 instructions plus a futex wake, and
// the wake-up latency of a sleeping worker (tens of microseconds on these
// VMs) is what a shard must outweigh: ~256 KiB of copying or ~800 small
// raw records per shard, ~50-80 us of work, is the switch.
inline constexpr uint64_t kGatherRecordCost = 256;
inline constexpr uint64_t kDecodeCostFactor = 4;
inline constexpr uint64_t kGatherShardCost = 256 << 10;
//
// A long batch is cut finer than one shard per thread: up to
// `kShardsPerThread` per thread, none under `kFineShardCost` of work (about
// a millisecond). Shards are claimed as threads come free
// (`ThreadPool::ParallelFor`), so a core the host preempts, or a run of
// slow records, holds the batch back by one shard instead of half of it.
// 4 KiB zstd, batch 4096, against a bare decode: on a quiet VM two and
// eight shards measured alike (0.86-0.93x); in a noisy hour two gave
// 0.84-0.91x and eight 0.85-1.20x. Short batches keep one shard per
// thread: five shards of 64 B records measured slower than two.
inline constexpr uint64_t kShardsPerThread = 4;
inline constexpr uint64_t kFineShardCost = 4 << 20;
inline int GatherShards(uint64_t records, uint64_t bytes, bool decodes,
                        int concurrency) {
  const uint64_t work =
      (decodes ? kDecodeCostFactor : 1) * (bytes + records * kGatherRecordCost);
  const int threads = ShardsFor(work, concurrency, kGatherShardCost);
  if (threads <= 1) return threads;
  const uint64_t fine = std::min<uint64_t>(
      work / kFineShardCost,
      uint64_t{static_cast<unsigned>(threads)} * kShardsPerThread);
  return static_cast<int>(std::max<uint64_t>(threads, fine));
}

// How many records a thread claims at a time from its shard of a
// sharded gather (`ShardRanges`): about `kGatherPieceCost` of work, at
// least one record. Small enough that a thread the host slows down holds
// the batch back by little (a piece of 64 B records takes a few
// microseconds), large enough that claiming (one compare-and-swap on a
// line the thread mostly owns) costs nothing measurable.
inline constexpr uint64_t kGatherPieceCost = 64 << 10;
inline uint64_t GatherPieceRecords(uint64_t records, uint64_t bytes,
                                   bool decodes) {
  if (records == 0) return 1;
  const uint64_t per_record =
      (decodes ? kDecodeCostFactor : 1) * (bytes / records + kGatherRecordCost);
  return std::max<uint64_t>(1, kGatherPieceCost / per_record);
}

}  // namespace loaderx

#endif  // LOADERX_SRC_ENGINE_SHARDING_H_
