#include "src/compaction_plan.h"

#include <deque>
#include <vector>

namespace loaderx {
namespace {

using store_format::RecordLoc;

struct Pending {
  PlacedRecord record;
  bool staged = false;
};

// Where a record of `size` bytes goes when the next free byte is `at`: a
// record never straddles chunks.
StorePosition Place(StorePosition at, uint64_t size, uint64_t capacity) {
  if (at.offset > 0 && at.offset + size > capacity) return {at.chunk + 1, 0};
  return at;
}

RecordLoc Moved(const RecordLoc& loc, StorePosition to) {
  RecordLoc moved = loc;
  moved.chunk_id = to.chunk;
  moved.offset = static_cast<uint32_t>(to.offset);
  return moved;
}

}  // namespace

CompactionPlan PlanCompaction(const std::vector<PlacedRecord>& records,
                              StorePosition frontier,
                              const CompactionLimits& limits) {
  std::deque<Pending> queue;
  for (const PlacedRecord& record : records) queue.push_back({record, false});
  CompactionPlan plan;
  StorePosition packed;           // The next free byte of the packed region.
  StorePosition tail = frontier;  // The committed frontier.
  const uint64_t capacity = limits.chunk_capacity;

  while (!queue.empty()) {
    const Pending front = queue.front();
    const RecordLoc& source = front.record.loc;
    const StorePosition place = Place(packed, source.phys_length, capacity);
    if (!(place < StartOf(source))) {
      // Already packed (or its packed place would be higher): it stays.
      packed = EndOf(source);
      queue.pop_front();
      continue;
    }
    // Until the batch commits, nothing may be written from here on.
    const StorePosition limit = StartOf(source);
    if (StorePosition{place.chunk, place.offset + source.phys_length} <=
        limit) {
      CompactionBatch batch;
      batch.frontier = tail;
      uint64_t bytes = 0;
      while (!queue.empty() && batch.moves.size() < limits.max_batch_records) {
        const PlacedRecord& next = queue.front().record;
        const uint64_t size = next.loc.phys_length;
        if (!batch.moves.empty() && bytes + size > limits.max_batch_bytes) {
          break;
        }
        const StorePosition to = Place(packed, size, capacity);
        const StorePosition end{to.chunk, to.offset + size};
        if (!(end <= limit)) break;
        batch.moves.push_back({next.index, next.loc, Moved(next.loc, to)});
        bytes += size;
        packed = end;
        queue.pop_front();
      }
      plan.batches.push_back(std::move(batch));
      continue;
    }
    if (front.staged) {
      // Staged once and its packed place still overlaps it: it stays.
      packed = EndOf(source);
      queue.pop_front();
      continue;
    }
    // Stage the next records past the frontier; they come back later.
    CompactionBatch batch;
    batch.staging = true;
    std::vector<Pending> staged;
    uint64_t bytes = 0;
    while (!queue.empty() && !queue.front().staged &&
           batch.moves.size() < limits.max_batch_records) {
      const PlacedRecord& next = queue.front().record;
      const uint64_t size = next.loc.phys_length;
      if (!batch.moves.empty() && bytes + size > limits.max_batch_bytes) break;
      const RecordLoc to = Moved(next.loc, Place(tail, size, capacity));
      batch.moves.push_back({next.index, next.loc, to});
      staged.push_back({{next.index, to}, true});
      tail = EndOf(to);
      bytes += size;
      queue.pop_front();
    }
    batch.frontier = tail;
    plan.batches.push_back(std::move(batch));
    for (const Pending& pending : staged) queue.push_back(pending);
  }
  plan.frontier = packed;
  return plan;
}

}  // namespace loaderx
