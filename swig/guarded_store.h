// `GuardedStore` owns a binding handle's `TypedStore` and keeps `Close`
// from racing the calls in flight: Python and Java threads may call a handle
// from many threads at once, and a close (or a garbage collector's
// finaliser) from any of them must never free the store under a gather.
//
// Every call runs under the guard's reader/writer lock: reads, appends,
// syncs and statistics share it (the engine allows them to overlap), while
// `Delete` and `Compact` (which must not overlap any other call) and `Close`
// take it alone. `Close` therefore waits for the calls in flight to finish;
// every call that starts after it fails with FailedPrecondition ("the store
// is closed") instead of touching freed memory. The lock is absl's
// starvation-free `Mutex`: a close waiting behind a stream of gathers gets
// its turn.
//
// Not seen by SWIG; shared by the binding's implementation files.

#ifndef LOADERX_SWIG_GUARDED_STORE_H_
#define LOADERX_SWIG_GUARDED_STORE_H_

#include <memory>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "loaderx/typed_store.h"
#include "swig/binding_status.h"

namespace loaderx::binding {

class GuardedStore {
 public:
  explicit GuardedStore(std::unique_ptr<TypedStore> store)
      : store_(std::move(store)) {}
  // Closes, waiting for the calls in flight.
  ~GuardedStore() { Close(); }
  GuardedStore(const GuardedStore&) = delete;
  GuardedStore& operator=(const GuardedStore&) = delete;

  // `call(TypedStore&)`'s result, run while other shared calls may run too:
  // for the calls the engine lets overlap (reads, appends, syncs). Throws
  // FailedPrecondition if the store is closed.
  template <typename Call>
  decltype(auto) Shared(Call&& call) const {
    absl::ReaderMutexLock lock(&mu_);
    return std::forward<Call>(call)(Open());
  }

  // `call(TypedStore&)`'s result, run with no other call in flight. Throws
  // FailedPrecondition if the store is closed.
  template <typename Call>
  decltype(auto) Exclusive(Call&& call) {
    absl::MutexLock lock(&mu_);
    return std::forward<Call>(call)(Open());
  }

  // The store itself, for a loader that reads it past this handle's
  // `Close` (the store and its lock are released when the last share goes).
  // Throws FailedPrecondition if the store is closed.
  std::shared_ptr<TypedStore> Share() const {
    absl::ReaderMutexLock lock(&mu_);
    Open();
    return store_;
  }

  // Waits for the calls in flight, then releases this handle's share of the
  // store (its lock goes with the last share). Later calls do nothing.
  void Close() {
    std::shared_ptr<TypedStore> released;
    {
      absl::MutexLock lock(&mu_);
      released = std::move(store_);
    }
    // The store's destructor (which may flush) runs outside the lock.
  }

 private:
  TypedStore& Open() const ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    if (store_ == nullptr) {
      ThrowIfError(absl::FailedPreconditionError("the store is closed"));
    }
    return *store_;
  }

  mutable absl::Mutex mu_;
  std::shared_ptr<TypedStore> store_ ABSL_GUARDED_BY(mu_);
};

}  // namespace loaderx::binding

#endif  // LOADERX_SWIG_GUARDED_STORE_H_
