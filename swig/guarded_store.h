// `GuardedStore` owns a binding handle's `TypedStore` and keeps `Close`
// from racing the calls in flight: Python and Java threads may call a handle
// from many threads at once, and a close (or a garbage collector's
// finaliser) from any of them must never free the store under a gather.
//
// Every call runs under the guard's `StoreAccessLock`
// (src/store_access_lock.h): reads, appends, syncs and statistics share it
// (the engine allows them to overlap), while `Delete` and `Compact` (which
// must not overlap any other call) and `Close` take it alone. `Close`
// therefore waits for the calls in flight to finish; every call that starts
// after it fails with FailedPrecondition ("the store is closed") instead of
// touching freed memory. The lock prefers exclusive callers, so a close
// queued behind a stream of overlapping gathers gets its turn.
//
// Not seen by SWIG; shared by the binding's implementation files.

#ifndef LOADERX_SWIG_GUARDED_STORE_H_
#define LOADERX_SWIG_GUARDED_STORE_H_

#include <memory>
#include <utility>

#include "loaderx/typed_store.h"
#include "src/store_access_lock.h"

namespace loaderx::binding {

class GuardedStore {
 public:
  explicit GuardedStore(std::unique_ptr<TypedStore> store);
  // Closes, waiting for the calls in flight.
  ~GuardedStore();
  GuardedStore(const GuardedStore&) = delete;
  GuardedStore& operator=(const GuardedStore&) = delete;

  // `call(TypedStore&)`'s result, run while other shared calls may run too:
  // for the calls the engine lets overlap (reads, appends, syncs). Throws
  // FailedPrecondition if the store is closed.
  template <typename Call>
  decltype(auto) Shared(Call&& call) const {
    const Access access(*this, /*exclusive=*/false);
    return std::forward<Call>(call)(*store_);
  }

  // `call(TypedStore&)`'s result, run with no other call in flight. Throws
  // FailedPrecondition if the store is closed.
  template <typename Call>
  decltype(auto) Exclusive(Call&& call) {
    const Access access(*this, /*exclusive=*/true);
    return std::forward<Call>(call)(*store_);
  }

  // The store itself, for a loader that reads it past this handle's
  // `Close` (the store and its lock are released when the last share goes).
  // Throws FailedPrecondition if the store is closed.
  std::shared_ptr<TypedStore> Share() const;

  // Waits for the calls in flight, then releases this handle's share of the
  // store (its lock goes with the last share). Later calls do nothing.
  void Close();

 private:
  // One call's hold on the lock, released by the destructor.
  class Access {
   public:
    // Throws FailedPrecondition (holding nothing) if the store is closed.
    Access(const GuardedStore& guard, bool exclusive);
    ~Access();
    Access(const Access&) = delete;
    Access& operator=(const Access&) = delete;

   private:
    void Lock() const;
    void Unlock() const;

    const GuardedStore& guard_;
    bool exclusive_;
  };

  // `Close` may take it on a closed store.
  mutable StoreAccessLock lock_;
  // Changes only under the exclusive lock, so a holder of either lock may
  // use it.
  std::shared_ptr<TypedStore> store_;
};

}  // namespace loaderx::binding

#endif  // LOADERX_SWIG_GUARDED_STORE_H_
