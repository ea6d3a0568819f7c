#include "swig/guarded_store.h"

#include <memory>
#include <mutex>
#include <utility>

#include "absl/status/status.h"
#include "loaderx/typed_store.h"
#include "swig/binding_status.h"

namespace loaderx::binding {

GuardedStore::GuardedStore(std::unique_ptr<TypedStore> store)
    : store_(std::move(store)) {}

GuardedStore::~GuardedStore() { Close(); }

void GuardedStore::Lock(bool exclusive) const {
  std::unique_lock lock(mu_);
  if (exclusive) {
    ++exclusive_waiting_;
    changed_.wait(lock, [&] { return !exclusive_ && shared_ == 0; });
    --exclusive_waiting_;
    exclusive_ = true;
  } else {
    // Behind any exclusive caller already waiting: it cannot starve.
    changed_.wait(lock, [&] { return !exclusive_ && exclusive_waiting_ == 0; });
    ++shared_;
  }
}

void GuardedStore::Unlock(bool exclusive) const {
  {
    std::lock_guard lock(mu_);
    if (exclusive) {
      exclusive_ = false;
    } else if (--shared_ != 0) {
      return;
    }
  }
  changed_.notify_all();
}

GuardedStore::Access::Access(const GuardedStore& guard, bool exclusive)
    : guard_(guard), exclusive_(exclusive) {
  guard_.Lock(exclusive_);
  if (guard_.store_ == nullptr) {
    guard_.Unlock(exclusive_);
    ThrowIfError(absl::FailedPreconditionError("the store is closed"));
  }
}

GuardedStore::Access::~Access() { guard_.Unlock(exclusive_); }

std::shared_ptr<TypedStore> GuardedStore::Share() const {
  const Access access(*this, /*exclusive=*/false);
  return store_;
}

void GuardedStore::Close() {
  Lock(/*exclusive=*/true);
  std::shared_ptr<TypedStore> released = std::move(store_);
  Unlock(/*exclusive=*/true);
  // The store's destructor (which may flush) runs outside the lock; every
  // call from now on finds the store closed.
}

}  // namespace loaderx::binding
