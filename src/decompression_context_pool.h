// A free list of one codec's decompression contexts, shared by the threads
// of every gather on an engine: a shard leases a context for its run of
// records and hands it back when done, so a batch creates no context once
// the pool holds as many as run at once (a zstd context is a ~100 KiB
// allocation and table setup: per batch it cost more than decoding a
// batch of small records). Contexts are never shared while leased; the
// free list is bounded by the most ever leased at once. Thread-safe.

#ifndef LOADERX_SRC_DECOMPRESSION_CONTEXT_POOL_H_
#define LOADERX_SRC_DECOMPRESSION_CONTEXT_POOL_H_

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "loaderx/codec.h"

namespace loaderx {

class DecompressionContextPool {
 public:
  // A leased context, returned to its pool when the lease dies.
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&& other) noexcept = default;
    ~Lease() {
      if (context_ != nullptr) pool_->Return(std::move(context_));
    }
    DecompressionContext* get() const { return context_.get(); }

   private:
    friend class DecompressionContextPool;
    Lease(DecompressionContextPool* pool,
          std::unique_ptr<DecompressionContext> context)
        : pool_(pool), context_(std::move(context)) {}

    DecompressionContextPool* pool_ = nullptr;
    std::unique_ptr<DecompressionContext> context_;
  };

  // `codec` must outlive the pool and every lease.
  explicit DecompressionContextPool(const Codec& codec) : codec_(codec) {}
  DecompressionContextPool(const DecompressionContextPool&) = delete;
  DecompressionContextPool& operator=(const DecompressionContextPool&) = delete;

  // A free context, or a new one (the codec's error if it cannot make one).
  absl::StatusOr<Lease> Acquire() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        Lease lease(this, std::move(free_.back()));
        free_.pop_back();
        return lease;
      }
    }
    absl::StatusOr<std::unique_ptr<DecompressionContext>> context =
        codec_.NewDecompressionContext();
    if (!context.ok()) return context.status();
    return Lease(this, *std::move(context));
  }

 private:
  void Return(std::unique_ptr<DecompressionContext> context) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(context));
  }

  const Codec& codec_;
  std::mutex mu_;  // Guards free_.
  std::vector<std::unique_ptr<DecompressionContext>> free_;
};

}  // namespace loaderx

#endif  // LOADERX_SRC_DECOMPRESSION_CONTEXT_POOL_H_
