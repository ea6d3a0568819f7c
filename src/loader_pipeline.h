// `LoaderPipeline` is the machinery under `DataLoader`: the ring of reusable
// batches, the gathers that fill them on a `ThreadPool`, and the hand-over
// to the consumer in step order. `DataLoader` keeps the sampler and the API;
// the pipeline never sees a sampler, only batches whose step and indices
// are already set.
//
// A batch slot is, at any time, in exactly one place:
//
//   free_      a spare, its buffers kept for the next step
//   pipeline_  a step, in step order: queued, being gathered, or done
//   orphans_   dropped by `DiscardAll` or `Close` while being gathered; it
//              goes back to `free_` (or is freed) when its gather ends
//   leased     handed out as a `std::shared_ptr<Batch>`; its deleter brings
//              it back through `Recycle`
//
// Bounds: pipeline_ + orphans_ (+ the one slot the consumer is filling) <=
// `prefetch`, and everything the pipeline holds <= `prefetch + 1`; at most
// `max_concurrent` gathers run at once. Gathers run in pool tasks, one step
// per task, each task queued only when a step is waiting and the
// concurrency bound allows it, so a loader never occupies a worker that has
// nothing to do; the consumer gathers a step itself when no worker has
// started it, and (`gather_while_waiting`) helps with later steps while it
// waits.
//
// Thread safety: everything is guarded by `mu_`. The consumer calls
// `AcquireSlot`, `Enqueue`, `TakeOldest` and `DiscardAll` (one thread at a
// time); `Close`, `Recycle` and `stats` may come from any thread. Pool
// tasks and leased batches hold the pipeline by `shared_ptr` / `weak_ptr`,
// so either may outlive the `DataLoader`; after `Close` they touch nothing
// but the pipeline itself (not the pool, not the streams).

#ifndef LOADERX_SRC_LOADER_PIPELINE_H_
#define LOADERX_SRC_LOADER_PIPELINE_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "loaderx/data_loader.h"
#include "loaderx/loader_batch.h"
#include "loaderx/loader_stream.h"
#include "loaderx/thread_pool.h"

namespace loaderx {

// A ring slot: a `Batch` plus the pipeline's bookkeeping for it.
class BatchSlot final : public Batch {
 public:
  enum class State { kQueued, kRunning, kDone };

  BatchSlot(absl::Span<const std::shared_ptr<const StreamSpec>> specs,
            size_t max_indices)
      : Batch(specs, max_indices) {}

  // Where the sampler writes the step's indices; `Assign` then says how
  // many it wrote.
  absl::Span<uint64_t> mutable_indices() { return absl::MakeSpan(indices_); }
  void Assign(uint64_t step, size_t size) {
    step_ = step;
    size_ = size;
  }

  // Guarded by the pipeline's `mu_`.
  State state = State::kQueued;
  bool discarded = false;
  absl::Status status;  // Of the gather, once `kDone`.
};

class LoaderPipeline : public std::enable_shared_from_this<LoaderPipeline> {
 public:
  // `pool` must outlive the pipeline's `Close`. One spec per stream;
  // `options` as `DataLoader` resolved them.
  LoaderPipeline(std::vector<std::shared_ptr<const LoaderStream>> streams,
                 std::vector<std::shared_ptr<const StreamSpec>> specs,
                 size_t max_indices, ThreadPool& pool,
                 const DataLoaderOptions& options);
  ~LoaderPipeline();
  LoaderPipeline(const LoaderPipeline&) = delete;
  LoaderPipeline& operator=(const LoaderPipeline&) = delete;

  // A slot for the next step, or null when the pipeline is full or closed.
  // The caller sets its step and indices and passes it to `Enqueue`.
  std::unique_ptr<BatchSlot> AcquireSlot();
  // Queues an acquired slot for gathering (drops it once closed).
  void Enqueue(std::unique_ptr<BatchSlot> slot);

  // What `TakeOldest` got.
  struct Taken {
    enum class Outcome {
      kStep,        // The oldest step: `batch` is its batch or its error.
      kClosed,      // Nothing taken; `batch` says FailedPrecondition.
      kNoneQueued,  // Nothing was queued; there is room now: refill, retry.
    };
    Outcome outcome;
    absl::StatusOr<std::shared_ptr<Batch>> batch;
  };
  // Waits for the oldest queued step and takes it out. With nothing queued
  // (orphans of a `DiscardAll` filling the prefetch bound), waits until
  // there is room for a step instead.
  Taken TakeOldest();

  // Drops every queued step; gathers in flight finish as orphans.
  void DiscardAll();
  // Drops everything, waits for the gathers in flight, releases the
  // streams. Idempotent.
  void Close();
  bool closed() const;

  // A slot coming back from a leased batch, from any thread.
  void Recycle(std::unique_ptr<BatchSlot> slot);

  DataLoaderStats stats() const;

 private:
  // Slots the pipeline holds (everything but leased ones).
  size_t HeldLocked() const;
  // Whether a step may be acquired (the prefetch bound).
  bool HasRoomLocked() const;
  // Marks `preferred` running if it is queued, or else (unless
  // `only_preferred`) the oldest queued slot, when the concurrency bound
  // allows; null if there is none to run.
  BatchSlot* ClaimLocked(BatchSlot* preferred, bool only_preferred);
  // Empties `pipeline_`: running slots become orphans, the others go to
  // `into`.
  void DropStepsLocked(std::vector<std::unique_ptr<BatchSlot>>& into);
  // Queues pool tasks for the steps that may start now.
  void ScheduleLocked();
  // A pool task: gathers one step if one is waiting.
  void WorkerTask();
  // Gathers a claimed slot (without `mu_`), then records the outcome.
  void Run(BatchSlot* slot);
  absl::Status GatherStreams(BatchSlot& slot, uint64_t& allocations) const;

  // Read without `mu_` by gathers; cleared by `Close` once none runs.
  std::vector<std::shared_ptr<const LoaderStream>> streams_;
  const std::vector<std::shared_ptr<const StreamSpec>> specs_;
  const size_t max_indices_;
  ThreadPool* const pool_;  // Used only while not closed.
  const bool use_workers_;  // The pool has workers to schedule on.
  const size_t prefetch_;
  const int max_concurrent_;
  const bool gather_while_waiting_;

  mutable std::mutex mu_;
  std::condition_variable changed_;  // A gather ended, or `Close`.
  // Everything below is guarded by `mu_`.
  bool closed_ = false;
  std::deque<std::unique_ptr<BatchSlot>> pipeline_;  // In step order.
  std::vector<std::unique_ptr<BatchSlot>> orphans_;
  std::vector<std::unique_ptr<BatchSlot>> free_;
  size_t acquired_ = 0;  // Acquired, not yet enqueued.
  int queued_ = 0;       // Slots in `pipeline_` in kQueued.
  int running_ = 0;      // Gathers in flight, orphans' included.
  int scheduled_ = 0;    // Pool tasks queued, not yet started.
  DataLoaderStats stats_;
};

}  // namespace loaderx

#endif  // LOADERX_SRC_LOADER_PIPELINE_H_
