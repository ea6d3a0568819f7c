#include "src/loader_pipeline.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace loaderx {
namespace {

// `status` with the step and stream it happened at, its code and payloads
// (e.g. the busy marker) kept.
absl::Status AtStep(const absl::Status& status, uint64_t step,
                    const std::string& stream) {
  absl::Status annotated(status.code(),
                         absl::StrCat("step ", step, ", stream '", stream,
                                      "': ", status.message()));
  status.ForEachPayload(
      [&](absl::string_view type_url, const absl::Cord& payload) {
        // Through a string: copying a Cord needs Abseil's cordz library,
        // which Debian's build does not link in.
        annotated.SetPayload(type_url, absl::Cord(std::string(payload)));
      });
  return annotated;
}

// The deleter of a leased batch: brings its slot back to the ring if the
// pipeline still exists, frees it otherwise.
struct ReturnToRing {
  std::weak_ptr<LoaderPipeline> pipeline;

  void operator()(Batch* batch) const {
    std::unique_ptr<BatchSlot> slot(static_cast<BatchSlot*>(batch));
    if (std::shared_ptr<LoaderPipeline> owner = pipeline.lock()) {
      owner->Recycle(std::move(slot));
    }
  }
};

}  // namespace

LoaderPipeline::LoaderPipeline(
    std::vector<std::shared_ptr<const LoaderStream>> streams,
    std::vector<std::shared_ptr<const StreamSpec>> specs, size_t max_indices,
    ThreadPool& pool, const DataLoaderOptions& options)
    : streams_(std::move(streams)),
      specs_(std::move(specs)),
      max_indices_(max_indices),
      pool_(&pool),
      use_workers_(pool.workers() > 0),
      prefetch_(static_cast<size_t>(options.prefetch)),
      max_concurrent_(options.max_concurrent_gathers),
      gather_while_waiting_(options.gather_while_waiting) {}

LoaderPipeline::~LoaderPipeline() { Close(); }

size_t LoaderPipeline::HeldLocked() const {
  return pipeline_.size() + orphans_.size() + free_.size() + acquired_;
}

bool LoaderPipeline::HasRoomLocked() const {
  return pipeline_.size() + orphans_.size() + acquired_ < prefetch_;
}

std::unique_ptr<BatchSlot> LoaderPipeline::AcquireSlot() {
  {
    std::lock_guard lock(mu_);
    if (closed_ || !HasRoomLocked()) return nullptr;
    ++acquired_;
    if (!free_.empty()) {
      std::unique_ptr<BatchSlot> slot = std::move(free_.back());
      free_.pop_back();
      return slot;
    }
    ++stats_.batches_created;
  }
  // A new slot's buffers are allocated by its first gather.
  return std::make_unique<BatchSlot>(specs_, max_indices_);
}

void LoaderPipeline::Enqueue(std::unique_ptr<BatchSlot> slot) {
  std::lock_guard lock(mu_);
  --acquired_;
  if (closed_) return;  // `slot` is freed after the lock is released.
  slot->state = BatchSlot::State::kQueued;
  slot->discarded = false;
  slot->status = absl::OkStatus();
  pipeline_.push_back(std::move(slot));
  ++queued_;
  ScheduleLocked();
}

BatchSlot* LoaderPipeline::ClaimLocked(BatchSlot* preferred,
                                       bool only_preferred) {
  if (closed_ || running_ >= max_concurrent_ || queued_ == 0) return nullptr;
  BatchSlot* claimed = nullptr;
  if (preferred != nullptr && preferred->state == BatchSlot::State::kQueued) {
    claimed = preferred;
  } else if (!only_preferred) {
    for (const std::unique_ptr<BatchSlot>& slot : pipeline_) {
      if (slot->state == BatchSlot::State::kQueued) {
        claimed = slot.get();
        break;
      }
    }
  }
  if (claimed == nullptr) return nullptr;
  claimed->state = BatchSlot::State::kRunning;
  --queued_;
  ++running_;
  return claimed;
}

void LoaderPipeline::ScheduleLocked() {
  if (!use_workers_ || closed_) return;
  // A task per step that may start now, counting tasks already queued.
  const int startable = std::min(queued_, max_concurrent_ - running_);
  for (; scheduled_ < startable; ++scheduled_) {
    // Under `mu_`, so `Close` cannot finish (and the pool go away) between
    // the check above and this call. The pool never calls back into us
    // from `Schedule`: it has workers.
    pool_->Schedule([self = shared_from_this()] { self->WorkerTask(); });
  }
}

void LoaderPipeline::WorkerTask() {
  BatchSlot* slot;
  {
    std::lock_guard lock(mu_);
    --scheduled_;
    // Null when the consumer took the step meanwhile, or after `Close`.
    slot = ClaimLocked(nullptr, /*only_preferred=*/false);
  }
  if (slot != nullptr) Run(slot);
}

absl::Status LoaderPipeline::GatherStreams(BatchSlot& slot,
                                           uint64_t& allocations) const {
  for (size_t i = 0; i < streams_.size(); ++i) {
    StreamBatch& out = slot.mutable_stream(i);
    const uint64_t capacity = out.capacity();
    absl::Status status = streams_[i]->Gather(slot.indices(), out);
    if (out.capacity() != capacity) ++allocations;
    if (status.ok() && out.size() != slot.size()) {
      status = absl::InternalError(absl::StrCat("the stream filled ",
                                                out.size(), " records for ",
                                                slot.size(), " indices"));
    }
    if (!status.ok()) return AtStep(status, slot.step(), out.name());
  }
  return absl::OkStatus();
}

void LoaderPipeline::Run(BatchSlot* slot) {
  uint64_t allocations = 0;
  absl::Status status = GatherStreams(*slot, allocations);
  std::unique_ptr<BatchSlot> orphan;
  std::lock_guard lock(mu_);
  --running_;
  ++stats_.gathers_completed;
  stats_.buffer_allocations += allocations;
  if (slot->discarded) {
    auto it = std::find_if(orphans_.begin(), orphans_.end(),
                           [slot](const std::unique_ptr<BatchSlot>& o) {
                             return o.get() == slot;
                           });
    orphan = std::move(*it);
    orphans_.erase(it);
    // Back to the spares; freed (after the lock, `orphan` being declared
    // before it) once closed.
    if (!closed_) free_.push_back(std::move(orphan));
  } else {
    slot->status = std::move(status);
    slot->state = BatchSlot::State::kDone;
  }
  ScheduleLocked();
  changed_.notify_all();
}

LoaderPipeline::Taken LoaderPipeline::TakeOldest() {
  std::unique_lock lock(mu_);
  for (;;) {
    if (closed_) {
      return {Taken::Outcome::kClosed,
              absl::FailedPreconditionError("the loader is closed")};
    }
    if (pipeline_.empty()) {
      changed_.wait(lock, [this] { return closed_ || HasRoomLocked(); });
      if (closed_) continue;
      return {Taken::Outcome::kNoneQueued,
              absl::UnavailableError("no step queued")};
    }
    BatchSlot* oldest = pipeline_.front().get();
    if (oldest->state == BatchSlot::State::kDone) break;
    // Gather the oldest step here if no worker has started it; while a
    // worker gathers it, help with the next queued step rather than idle.
    if (BatchSlot* slot = ClaimLocked(oldest, !gather_while_waiting_);
        slot != nullptr) {
      lock.unlock();
      Run(slot);
      lock.lock();
      continue;
    }
    changed_.wait(lock);
  }
  std::unique_ptr<BatchSlot> slot = std::move(pipeline_.front());
  pipeline_.pop_front();
  absl::Status status = std::move(slot->status);
  lock.unlock();
  if (!status.ok()) {
    Recycle(std::move(slot));
    return {Taken::Outcome::kStep, std::move(status)};
  }
  return {
      Taken::Outcome::kStep,
      std::shared_ptr<Batch>(slot.release(), ReturnToRing{weak_from_this()})};
}

void LoaderPipeline::DropStepsLocked(
    std::vector<std::unique_ptr<BatchSlot>>& into) {
  for (std::unique_ptr<BatchSlot>& slot : pipeline_) {
    if (slot->state == BatchSlot::State::kRunning) {
      slot->discarded = true;
      orphans_.push_back(std::move(slot));
    } else {
      into.push_back(std::move(slot));
    }
  }
  pipeline_.clear();
  queued_ = 0;
}

void LoaderPipeline::DiscardAll() {
  std::lock_guard lock(mu_);
  // Into the spares: moving between the pipeline's own places keeps
  // `HeldLocked()`.
  DropStepsLocked(free_);
}

void LoaderPipeline::Close() {
  std::vector<std::unique_ptr<BatchSlot>> dropped;
  std::vector<std::shared_ptr<const LoaderStream>> streams;
  {
    std::unique_lock lock(mu_);
    if (!closed_) {
      closed_ = true;
      DropStepsLocked(dropped);
      for (std::unique_ptr<BatchSlot>& slot : free_) {
        dropped.push_back(std::move(slot));
      }
      free_.clear();
      changed_.notify_all();  // A `TakeOldest` waiting in another thread.
    }
    // Gathers in flight end as orphans and free their slots.
    changed_.wait(lock, [this] { return running_ == 0; });
    streams.swap(streams_);
  }
  // `dropped` and `streams` are released here, without the lock.
}

bool LoaderPipeline::closed() const {
  std::lock_guard lock(mu_);
  return closed_;
}

void LoaderPipeline::Recycle(std::unique_ptr<BatchSlot> slot) {
  std::unique_ptr<BatchSlot> unwanted;
  std::lock_guard lock(mu_);
  if (closed_ || HeldLocked() >= prefetch_ + 1) {
    unwanted = std::move(slot);  // Freed after the lock is released.
    return;
  }
  free_.push_back(std::move(slot));
}

DataLoaderStats LoaderPipeline::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

}  // namespace loaderx
