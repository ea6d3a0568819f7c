// The plan of a crash-safe compaction: which live records move where, in
// which batches, such that no batch ever writes over bytes that a durable
// record-table entry still points at. Pure: no I/O, so every case is tested
// directly.
//
// Records are packed in physical order from the start of chunk 0 (rolling
// over to the next chunk where one would not fit), so none moves to a
// higher address. A batch is committed as a whole (its copies are made
// durable, then its table entries), so until it commits every record in it
// still lives at its old place. Hence:
//
// - A direct batch moves records straight to their packed places, all of
//   which lie below the first source of the batch: the space between the
//   packed region and the first record not yet moved holds only bytes no
//   live entry refers to. Its size bounds the batch.
// - Where that gap is smaller than the next record (a record whose packed
//   place overlaps its own bytes), a staging batch copies the next records
//   past the committed frontier instead (the frontier grows to cover them).
//   Their old places join the gap, so the direct batches after it move at
//   least as many bytes; the staged records, now physically last, get their
//   packed places in a later direct batch. A record is staged at most once:
//   one that still cannot move afterwards stays where it is.
//
// Every batch holds at most `max_batch_bytes` bytes (a single larger record
// goes alone) and `max_batch_records` records, so the commit cost is O(1)
// syncs per batch, not per record.

#ifndef LOADERX_SRC_COMPACTION_PLAN_H_
#define LOADERX_SRC_COMPACTION_PLAN_H_

#include <cstdint>
#include <vector>

#include "src/store_format.h"

namespace loaderx {

// A byte position in the store: (chunk, offset), ordered lexicographically.
struct StorePosition {
  uint32_t chunk = 0;
  uint64_t offset = 0;  // May be 2^32 (the end of a full chunk).

  friend bool operator==(const StorePosition&, const StorePosition&) = default;
  friend auto operator<=>(const StorePosition&, const StorePosition&) = default;
};

struct PlacedRecord {
  uint64_t index = 0;
  store_format::RecordLoc loc;
};

struct CompactionMove {
  uint64_t index = 0;
  store_format::RecordLoc from;
  store_format::RecordLoc to;
};

struct CompactionBatch {
  std::vector<CompactionMove> moves;
  // The committed frontier while this batch's entries are live: past its
  // copies for a staging batch, else unchanged.
  StorePosition frontier;
  bool staging = false;
};

struct CompactionPlan {
  std::vector<CompactionBatch> batches;
  // The frontier once every batch has committed: the end of the packed
  // records.
  StorePosition frontier;
};

struct CompactionLimits {
  uint64_t chunk_capacity = store_format::kChunkCapacity - 1;
  uint64_t max_batch_bytes = 64 << 20;
  uint64_t max_batch_records = 1 << 16;
};

// `records` are every live record, sorted by position, none overlapping
// another, all below `frontier` (the caller validates this first).
CompactionPlan PlanCompaction(const std::vector<PlacedRecord>& records,
                              StorePosition frontier,
                              const CompactionLimits& limits);

inline StorePosition StartOf(const store_format::RecordLoc& loc) {
  return {loc.chunk_id, loc.offset};
}
inline StorePosition EndOf(const store_format::RecordLoc& loc) {
  return {loc.chunk_id, uint64_t{loc.offset} + loc.phys_length};
}

}  // namespace loaderx

#endif  // LOADERX_SRC_COMPACTION_PLAN_H_
