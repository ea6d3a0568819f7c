// `DataLoader` is the endless, step-based loader of loaderx: batches of
// index-aligned records from named streams (`LoaderStream`: dense and ragged
// stores through `loaderx/store_streams.h`, or a source of one's own), the
// indices drawn by one `Sampler`, gathered ahead of the consumer on the
// shared `ThreadPool` into a ring of reusable batches.
//
//   LOADERX_ASSIGN_OR_RETURN(auto images, DenseStoreStream(*image_store));
//   LOADERX_ASSIGN_OR_RETURN(auto labels, DenseStoreStream(*label_store));
//   LOADERX_ASSIGN_OR_RETURN(
//       std::unique_ptr<DataLoader> loader,
//       DataLoader::Create({{"image", std::move(images)},
//                           {"label", std::move(labels)}}));
//   for (;;) {
//     LOADERX_ASSIGN_OR_RETURN(std::shared_ptr<Batch> batch, loader->Next());
//     ...  // batch->stream(0).data(): a (B, *item_shape) array
//   }
//
// Semantics (docs/design.md, "DataLoader", has the reasons):
// - Step order: `Next` returns step `step()`, then `step() + 1`, ...; the
//   sampler draws every step's indices in step order on the consumer's
//   thread, so a loader visits exactly the records its sampler would, and
//   for a given seed the order is loaderx 1.7.7's.
// - Endless: there are no epochs (the sampler wraps or reshuffles).
// - Prefetch: up to `prefetch` steps after the last one returned are
//   gathered or being gathered, at most `max_concurrent_gathers` at once.
//   Work starts with the first `Next`, not at creation. Memory: the loader
//   holds at most `prefetch + 1` batches (the extra one a spare for the
//   next refill); the batches the consumer holds are the consumer's.
// - Seek: `Seek(step)` drops everything prefetched and continues exactly at
//   `step`, as if the loader had been created there: the same batches an
//   uninterrupted run returns for `step` onwards.
// - Errors: a failed gather is returned by the `Next` that would have
//   returned that step, with its code kept and "step S, stream 'name'"
//   added; that step is then consumed (`step()` moves past it) and the next
//   `Next` returns the following step, so a transient error costs one batch
//   and a lasting one fails each step that meets it. Errors of other steps
//   are not reported early.
// - Close: `Close` (and the destructor) stops prefetching, waits for the
//   gathers in flight and leaves no task of its own running; later calls
//   fail with FailedPrecondition. Batches already handed out stay valid.
//   The streams are not closed (they are the caller's).
//
// Thread safety: `Next`, `Seek`, `step`, `sampler` and `size` are for one
// consumer thread at a time. `Close` and `stats` may be called from any
// thread at any time (short of the destructor); a `Next` blocked in another
// thread then returns FailedPrecondition. Batches may be read and released
// from any thread, before or after the loader closes. The consumer may run
// on a thread of the loader's own pool, and the pool may have no workers
// at all: the consumer then gathers each step itself when it needs it
// (nothing is prefetched, nothing deadlocks).

#ifndef LOADERX_DATA_LOADER_H_
#define LOADERX_DATA_LOADER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "loaderx/loader_batch.h"
#include "loaderx/loader_state.h"
#include "loaderx/loader_stream.h"
#include "loaderx/sampler.h"
#include "loaderx/thread_pool.h"

namespace loaderx {

class LoaderPipeline;

// A stream as a loader is given it: its name in every batch, and the
// stream, which the loader shares (a non-owning `shared_ptr` with a no-op
// deleter is fine if the stream outlives the loader).
struct NamedStream {
  std::string name;
  std::shared_ptr<const LoaderStream> stream;
};

struct DataLoaderOptions {
  // The sampler: records per batch, mode and seed (1.7.7's defaults).
  uint64_t batch_size = 256;
  SamplerMode mode = SamplerMode::kCyclic;
  uint64_t seed = Sampler::kDefaultSeed;
  // Data-parallel training: this process is rank `rank` of `world_size`
  // and reads its slice of every global batch of `batch_size` records
  // (`loaderx/sampler.h`, "Rank sharding"); `world_size` must divide
  // `batch_size`. The default is one process reading whole batches.
  uint64_t rank = 0;
  uint64_t world_size = 1;
  // Steps gathered ahead of the consumer (at least 1).
  int prefetch = 4;
  // How many of those may be gathered at once; 0 (the default) means
  // min(prefetch, the pool's concurrency). Each gather also splits its
  // records across the pool, so 1 already uses every core for large
  // batches; more overlaps the gathers' serial parts (ragged shape reads,
  // small records). Clamped to `prefetch`.
  int max_concurrent_gathers = 0;
  // While `Next` waits for a step that another thread is gathering, it
  // gathers the next queued step itself instead of idling (within
  // `max_concurrent_gathers`). The default pool counts the caller as one of
  // its threads, so on a 2-core machine this is the difference between one
  // thread gathering and two. The price: a `Next` may return up to one
  // gather later than its own step was ready. false: `Next` waits for its
  // own step only (and still gathers that step itself if no worker has
  // started it).
  bool gather_while_waiting = true;
  // The pool gathers run on; null means the process's `DefaultThreadPool()`.
  std::shared_ptr<ThreadPool> thread_pool;
};

// Counters for tests and monitoring; a snapshot.
struct DataLoaderStats {
  // Batches (ring slots) ever made, and buffer (re)allocations across them:
  // both stop growing once the ring is warm.
  uint64_t batches_created = 0;
  uint64_t buffer_allocations = 0;
  // Steps whose gathers have finished, failed ones included.
  uint64_t gathers_completed = 0;
};

class DataLoader {
 public:
  // A loader over `streams` (at least one; names unique; every stream the
  // same nonzero size, which becomes the sampler's length). InvalidArgument
  // names the problem, e.g. every stream's size when they differ, and for a
  // bad option; nothing is read until the first `Next`.
  static absl::StatusOr<std::unique_ptr<DataLoader>> Create(
      std::vector<NamedStream> streams, const DataLoaderOptions& options = {});

  // `Close`s.
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  // The batch at `step()`, then moves to the next step. Blocks until that
  // step is gathered (gathering it on this thread if no worker has started
  // it). Returns the step's gather error as described at the top of this
  // file; FailedPrecondition once closed.
  absl::StatusOr<std::shared_ptr<Batch>> Next();

  // Continues from `step`: the next `Next` returns that step's batch, exactly
  // as an uninterrupted run would. Drops what was prefetched (gathers in
  // flight finish in the background, within the prefetch bound). Costs what
  // `Sampler::Seek` costs (kIid replays its stream). FailedPrecondition
  // once closed.
  absl::Status Seek(uint64_t step);

  // The checkpoint (`loaderx/loader_state.h`): six numbers, the next
  // `Next`'s step among them.
  LoaderState state() const;
  // Continues from a saved state: `CheckResumable` against this loader's
  // own state (InvalidArgument, changing nothing, if another data set,
  // batch size, length, mode or seed), then `Seek(saved.step)`. The world
  // size and rank may differ from the run that saved it.
  absl::Status Restore(const LoaderState& saved);
  // The data set's fingerprint: the streams' names, types and
  // `fingerprint()`s and the length, hashed when the loader was created.
  uint64_t fingerprint() const { return fingerprint_; }

  // Stops prefetching, waits for gathers in flight, frees the ring's
  // batches. Idempotent.
  void Close();

  // The step the next `Next` returns.
  uint64_t step() const { return step_; }
  // Records per stream (the sampler's length).
  uint64_t size() const { return sampler_.length(); }
  // The sampler the indices come from. Its own `step()` runs ahead of the
  // loader's by the steps drawn for prefetching.
  const Sampler& sampler() const { return sampler_; }
  // The streams' names and types, in batch order.
  absl::Span<const StreamSpec> streams() const { return specs_; }
  const DataLoaderOptions& options() const { return options_; }

  DataLoaderStats stats() const;

 private:
  DataLoader(Sampler sampler, std::vector<StreamSpec> specs,
             DataLoaderOptions options,
             std::shared_ptr<LoaderPipeline> pipeline, uint64_t fingerprint);

  // Draws indices for new steps until the pipeline is full.
  absl::Status Refill();

  Sampler sampler_;
  const std::vector<StreamSpec> specs_;
  const DataLoaderOptions options_;  // `thread_pool` resolved.
  // Shared with the pool tasks working for it; batches refer to it weakly.
  const std::shared_ptr<LoaderPipeline> pipeline_;
  uint64_t step_;  // The step `Next` returns.
  const uint64_t fingerprint_;
};

}  // namespace loaderx

#endif  // LOADERX_DATA_LOADER_H_
