// `StoreAccessLock`: calls that may overlap share it, calls that must run
// alone take it exclusively. A `TypedStore` lets reads and appends overlap
// while `Delete` and `Compact` (which rewrite table entries a concurrent
// reader could see half-applied, and move or truncate the files a reader
// has mapped) run alone; a binding's `GuardedStore` (swig/guarded_store.h)
// keeps its `Close` from racing the calls in flight the same way. Shared
// holders run together; an exclusive holder waits for the shared ones in
// flight and runs with none. The lock prefers exclusive callers: once one
// waits, new shared callers wait behind it, so a `Compact` or a close
// issued while a loader reads batch after batch gets its turn (glibc's
// rwlock, under `std::shared_mutex`, prefers readers and could starve it).
// Not reentrant: a holder must not take it again (the store's public calls
// take it once and call only the engine and the layout inside). Built on
// `std::mutex` and `std::condition_variable`, which ThreadSanitizer sees
// (Debian's Abseil is not instrumented).

#ifndef LOADERX_SRC_STORE_ACCESS_LOCK_H_
#define LOADERX_SRC_STORE_ACCESS_LOCK_H_

#include <condition_variable>
#include <mutex>

namespace loaderx {

class StoreAccessLock {
 public:
  void LockShared() {
    std::unique_lock<std::mutex> guard(mu_);
    changed_.wait(guard,
                  [&] { return !exclusive_ && exclusive_waiting_ == 0; });
    ++shared_;
  }
  void UnlockShared() {
    std::lock_guard<std::mutex> guard(mu_);
    if (--shared_ == 0) changed_.notify_all();
  }
  void LockExclusive() {
    std::unique_lock<std::mutex> guard(mu_);
    ++exclusive_waiting_;
    changed_.wait(guard, [&] { return !exclusive_ && shared_ == 0; });
    --exclusive_waiting_;
    exclusive_ = true;
  }
  void UnlockExclusive() {
    std::lock_guard<std::mutex> guard(mu_);
    exclusive_ = false;
    changed_.notify_all();
  }

  // One call's hold, released by its destructor.
  class Shared {
   public:
    explicit Shared(StoreAccessLock& lock) : lock_(lock) { lock_.LockShared(); }
    ~Shared() { lock_.UnlockShared(); }
    Shared(const Shared&) = delete;
    Shared& operator=(const Shared&) = delete;

   private:
    StoreAccessLock& lock_;
  };

  class Exclusive {
   public:
    explicit Exclusive(StoreAccessLock& lock) : lock_(lock) {
      lock_.LockExclusive();
    }
    ~Exclusive() { lock_.UnlockExclusive(); }
    Exclusive(const Exclusive&) = delete;
    Exclusive& operator=(const Exclusive&) = delete;

   private:
    StoreAccessLock& lock_;
  };

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  // Guarded by mu_.
  int shared_ = 0;             // Shared holders.
  bool exclusive_ = false;     // An exclusive holder runs.
  int exclusive_waiting_ = 0;  // Exclusive callers waiting.
};

}  // namespace loaderx

#endif  // LOADERX_SRC_STORE_ACCESS_LOCK_H_
