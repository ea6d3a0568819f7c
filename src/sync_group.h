// `SyncGroup` runs syncs whose order does not matter among themselves (each
// must be durable before something that comes after the whole group, none
// before another of the group) at once, so that their device flushes
// overlap instead of queueing one behind the other: a group costs about one
// flush, not one per member.
//
// The members run on a small pool of threads kept for blocking I/O, the
// calling thread taking its share, never on the process's compute pool
// (`DefaultThreadPool`): that pool is sized to the cores, and a worker
// parked in `fsync` would hold up every gather behind it. The caller claims
// members itself, so a group always finishes even when every sync thread is
// busy with another store's group, and a group run from a compute-pool
// task cannot deadlock. A group of one runs on the caller with no hand-off,
// and on a VFS whose `ConcurrentSyncs` says no, the members run one after
// another in the order they were added, stopping at the first failure (the
// same calls in the same order every run, for the fault VFS's power cuts).
//
// Not thread-safe: one thread builds and runs a group.

#ifndef LOADERX_SRC_SYNC_GROUP_H_
#define LOADERX_SRC_SYNC_GROUP_H_

#include <cstddef>
#include <functional>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/status/status.h"
#include "loaderx/vfs.h"

namespace loaderx {

class SyncGroup {
 public:
  // Members overlap if `vfs.ConcurrentSyncs()`.
  explicit SyncGroup(const Vfs& vfs) : concurrent_(vfs.ConcurrentSyncs()) {}
  SyncGroup(const SyncGroup&) = delete;
  SyncGroup& operator=(const SyncGroup&) = delete;

  // Adds a member; returns its number (0, 1, ... in the order added).
  size_t Add(std::function<absl::Status()> sync);
  size_t size() const { return syncs_.size(); }

  // Runs every member and returns once all have finished (run one after
  // another: once one failed). OK if all succeeded; else the failure of the
  // first member, in the order added, that failed, with the messages of
  // any other failures appended (none is dropped unreported). Call once.
  ABSL_MUST_USE_RESULT absl::Status Run();

  // After `Run`: whether member `i` ran and succeeded.
  bool succeeded(size_t i) const { return results_[i].ok(); }
  // Whether members `[first, last)` all did.
  bool all_succeeded(size_t first, size_t last) const;

 private:
  const bool concurrent_;
  std::vector<std::function<absl::Status()>> syncs_;
  std::vector<absl::Status> results_;  // Filled by `Run`.
};

}  // namespace loaderx

#endif  // LOADERX_SRC_SYNC_GROUP_H_
