// `StoreAccessLock`: how a `TypedStore` lets reads and appends overlap
// while `Delete` and `Compact` (which rewrite table entries a concurrent
// reader could see half-applied, and move or truncate the files a reader
// has mapped) run alone. Shared holders run together; an exclusive holder
// waits for the shared ones in flight and runs with none. The lock prefers
// exclusive callers: once one waits, new shared callers wait behind it, so
// a `Compact` issued while a loader reads batch after batch gets its turn
// (glibc's rwlock, under `std::shared_mutex`, prefers readers and could
// starve it). Not reentrant: a holder must not take it again (the store's
// public calls take it once and call only the engine and the layout
// inside). Built on `std::mutex` and `std::condition_variable`, which
// ThreadSanitizer sees.

#ifndef LOADERX_SRC_STORE_ACCESS_LOCK_H_
#define LOADERX_SRC_STORE_ACCESS_LOCK_H_

#include <condition_variable>
#include <mutex>

namespace loaderx {

class StoreAccessLock {
 public:
  // One call's hold, released by its destructor.
  class Shared {
   public:
    explicit Shared(StoreAccessLock& lock) : lock_(lock) {
      std::unique_lock<std::mutex> guard(lock_.mu_);
      lock_.changed_.wait(guard, [&] {
        return !lock_.exclusive_ && lock_.exclusive_waiting_ == 0;
      });
      ++lock_.shared_;
    }
    ~Shared() {
      std::lock_guard<std::mutex> guard(lock_.mu_);
      if (--lock_.shared_ == 0) lock_.changed_.notify_all();
    }
    Shared(const Shared&) = delete;
    Shared& operator=(const Shared&) = delete;

   private:
    StoreAccessLock& lock_;
  };

  class Exclusive {
   public:
    explicit Exclusive(StoreAccessLock& lock) : lock_(lock) {
      std::unique_lock<std::mutex> guard(lock_.mu_);
      ++lock_.exclusive_waiting_;
      lock_.changed_.wait(
          guard, [&] { return !lock_.exclusive_ && lock_.shared_ == 0; });
      --lock_.exclusive_waiting_;
      lock_.exclusive_ = true;
    }
    ~Exclusive() {
      std::lock_guard<std::mutex> guard(lock_.mu_);
      lock_.exclusive_ = false;
      lock_.changed_.notify_all();
    }
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
