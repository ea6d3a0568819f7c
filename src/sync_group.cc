#include "src/sync_group.h"

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/error_code.h"
#include "loaderx/thread_pool.h"

namespace loaderx {
namespace {

// Threads that only wait on the device: enough for a store's largest
// usual group (a creation's five syncs, with the caller) to overlap whole.
constexpr int kSyncThreads = 4;

ThreadPool& SyncThreads() {
  // Never destroyed: a store synced from a static destructor still finds it.
  static ThreadPool* const pool = new ThreadPool(kSyncThreads);
  return *pool;
}

}  // namespace

size_t SyncGroup::Add(std::function<absl::Status()> sync) {
  syncs_.push_back(std::move(sync));
  return syncs_.size() - 1;
}

absl::Status SyncGroup::Run() {
  results_.assign(syncs_.size(),
                  absl::CancelledError("not run: an earlier sync failed"));
  if (concurrent_ && syncs_.size() > 1) {
    absl::Status ran = SyncThreads().TryParallelFor(
        static_cast<int>(syncs_.size()), [&](int i) {
          results_[i] = syncs_[i]();
          return absl::OkStatus();
        });
    if (!ran.ok()) return ran;  // A member threw (out of memory).
  } else {
    for (size_t i = 0; i < syncs_.size(); ++i) {
      results_[i] = syncs_[i]();
      if (!results_[i].ok()) return results_[i];
    }
    return absl::OkStatus();
  }
  absl::Status first;
  std::string others;
  size_t other_count = 0;
  for (const absl::Status& result : results_) {
    if (result.ok()) continue;
    if (first.ok()) {
      first = result;
    } else {
      absl::StrAppend(&others, "; ", result.message());
      ++other_count;
    }
  }
  if (other_count == 0) return first;
  // The tag (`ErrorCode`) of the first too, as the bindings map it.
  return WithErrorCode(
      absl::Status(
          first.code(),
          absl::StrCat(first.message(), " (and ", other_count,
                       " more failed syncs of the same group", others, ")")),
      ErrorCodeOf(first));
}

bool SyncGroup::all_succeeded(size_t first, size_t last) const {
  for (size_t i = first; i < last; ++i) {
    if (!results_[i].ok()) return false;
  }
  return true;
}

}  // namespace loaderx
