#include "swig/guarded_store.h"

#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "loaderx/typed_store.h"
#include "swig/binding_status.h"

namespace loaderx::binding {

GuardedStore::GuardedStore(std::unique_ptr<TypedStore> store)
    : store_(std::move(store)) {}

GuardedStore::~GuardedStore() { Close(); }

GuardedStore::Access::Access(const GuardedStore& guard, bool exclusive)
    : guard_(guard), exclusive_(exclusive) {
  Lock();
  if (guard_.store_ == nullptr) {
    Unlock();
    ThrowIfError(absl::FailedPreconditionError("the store is closed"));
  }
}

GuardedStore::Access::~Access() { Unlock(); }

void GuardedStore::Access::Lock() const {
  if (exclusive_) {
    guard_.lock_.LockExclusive();
  } else {
    guard_.lock_.LockShared();
  }
}

void GuardedStore::Access::Unlock() const {
  if (exclusive_) {
    guard_.lock_.UnlockExclusive();
  } else {
    guard_.lock_.UnlockShared();
  }
}

std::shared_ptr<TypedStore> GuardedStore::Share() const {
  const Access access(*this, /*exclusive=*/false);
  return store_;
}

void GuardedStore::Close() {
  lock_.LockExclusive();
  std::shared_ptr<TypedStore> released = std::move(store_);
  lock_.UnlockExclusive();
  // The store's destructor (which may flush) runs outside the lock; every
  // call from now on finds the store closed.
}

}  // namespace loaderx::binding
