// The store set's part of the binding surface: `SetHandle` over
// `loaderx::StoreSet` (N stores of one type read as one, read-only), one
// surface for Python and Java. Reads fill the caller's buffers as
// `StoreHandle`'s do: `gather_into` a fixed-width set's records into one
// buffer, `read` a shaped set's records back to back into a buffer the
// language allocates (`OutputBuffer`), returning their shapes and offsets.
// Errors are thrown as the language's exceptions (`binding_status.h`): a
// member changed since the set was written is DataLoss naming the member.
//
// Thread safety: every method may be called from many threads at once;
// `close` must not overlap other calls on the same handle.

#ifndef LOADERX_SWIG_SET_BINDING_H_
#define LOADERX_SWIG_SET_BINDING_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "loaderx/dtype.h"
#include "swig/binding.h"
#include "swig/store_binding.h"

namespace loaderx {
class StoreSet;
}  // namespace loaderx

namespace loaderx::binding {

// Writes the manifest `manifest` for the stores at `members`, in order
// (`loaderx::StoreSet::Create`).
void create_store_set(const Filesystem& fs, const std::string& manifest,
                      const std::vector<std::string>& members);

class SetHandle {
 public:
  // Opens the set read-only (every member with a shared lock).
  SetHandle(const Filesystem& fs, const std::string& manifest);
  ~SetHandle();
  SetHandle(const SetHandle&) = delete;
  SetHandle& operator=(const SetHandle&) = delete;

  std::string kind() const;
  bool fixed_width() const;
  loaderx::DType dtype() const;
  Int64Array item_shape() const;
  int64_t record_bytes() const;
  int64_t item_size() const;
  int64_t size() const;
  // The set's fingerprint (its members' committed states).
  uint64_t fingerprint() const;

  int num_members() const;
  // Member m's path as opened, its first set position and its records.
  std::string member_path(int member) const;
  int64_t member_start(int member) const;
  int64_t member_size(int member) const;

  // As `StoreHandle::gather_into` and `StoreHandle::read`.
  void gather_into(IndexBuffer indices, MutableBuffer out) const;
  BatchLayout read(IndexBuffer indices, OutputBuffer& out) const;

  StoreStatistics stats() const;
  VerifyResult verify() const;

  // Releases the members (and their shared locks); later calls fail with
  // FailedPrecondition. Idempotent.
  void close();

 private:
  friend class LoaderStreams;  // Shares the set with the loaders it feeds.
  const StoreSet& set() const;
  int CheckedMember(int member) const;

  std::shared_ptr<Vfs> vfs_;  // Declared first: outlives the set.
  std::shared_ptr<const StoreSet> set_;
};

}  // namespace loaderx::binding

#endif  // LOADERX_SWIG_SET_BINDING_H_
