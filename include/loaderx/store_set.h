// `StoreSet` reads N stores of one kind and type identity as one read-only
// store: one index space in manifest order (member 0's records, then member
// 1's, ...), described by a manifest file (`src/store_set_format.h`,
// docs/store-set-format.md). Stores written in parallel (by several jobs,
// by a cluster's tasks) become one data set without copying a byte.
//
// The manifest names each member by a path relative to the manifest's
// directory and records its record count and `TypedStore::Fingerprint()`.
// `Open` opens every member read-only (shared locks: any number of
// processes and hosts may read one set) and refuses, with DataLoss naming
// the member, one whose count or fingerprint differs from the manifest's:
// a member appended to, deleted from, compacted or replaced after the set
// was written is an error, never silently different data.
//
// Reads resolve a batch's positions to members in one pass (a directory of
// position buckets: a constant number of steps per record whatever the
// member count) and run the members' gathers in parallel on the shared
// thread pool (batches of 1 MiB or more; smaller ones member after member
// on the calling thread), each member's records written straight to their
// places in the caller's buffer.
//
// Thread safety: every method is const and may be called from many threads
// at once. The members are shared: `member()` stays valid while the set
// lives.

#ifndef LOADERX_STORE_SET_H_
#define LOADERX_STORE_SET_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loaderx/shaped_record.h"
#include "loaderx/store_options.h"
#include "loaderx/typed_store.h"
#include "loaderx/vfs.h"

namespace loaderx {

class StoreSet {
 public:
  // Writes a manifest at `manifest_path` for the stores at `member_paths`
  // (in that order, at least one; paths as `vfs` takes them, each made
  // relative to the manifest's directory: both must be absolute or both
  // relative). Every member is opened read-only and must have the first
  // one's kind and type identity (InvalidArgument naming the member
  // otherwise). AlreadyExists if `manifest_path` exists; the manifest is
  // written to a temporary name, synced and renamed into place, so a
  // crash leaves no partial manifest.
  static absl::Status Create(Vfs& vfs, absl::string_view manifest_path,
                             absl::Span<const std::string> member_paths);

  // Opens the set: the manifest, then every member read-only (`options`'
  // other settings apply to each). DataLoss for a damaged manifest or a
  // member that changed since the set was written (naming it); the
  // members' own open errors name the member too.
  static absl::StatusOr<std::unique_ptr<StoreSet>> Open(
      Vfs& vfs, absl::string_view manifest_path,
      const StoreOptions& options = {});

  StoreSet(const StoreSet&) = delete;
  StoreSet& operator=(const StoreSet&) = delete;
  ~StoreSet();

  // Records in the whole set.
  uint64_t size() const { return starts_.back(); }
  size_t num_members() const { return members_.size(); }
  const TypedStore& member(size_t m) const { return *members_[m]; }
  std::shared_ptr<const TypedStore> shared_member(size_t m) const {
    return members_[m];
  }
  // Member m's path as opened (the manifest's directory joined with the
  // manifest's relative path), and its first set position.
  const std::string& member_path(size_t m) const { return paths_[m]; }
  uint64_t member_start(size_t m) const { return starts_[m]; }
  const std::string& manifest_path() const { return manifest_path_; }

  // The members' shared description.
  absl::string_view kind() const { return members_[0]->kind(); }
  const TypeIdentity& identity() const { return members_[0]->identity(); }
  bool fixed_width() const { return members_[0]->fixed_width(); }
  uint64_t record_bytes() const { return members_[0]->record_bytes(); }
  uint64_t item_size() const { return members_[0]->item_size(); }
  const DType& dtype() const { return identity().dtype; }
  // XXH3 of the members' fingerprints in order: the set's committed state.
  uint64_t fingerprint() const { return fingerprint_; }

  // Fixed-width sets: the records at `indices` into `destination`
  // (`indices.size() * record_bytes()` bytes), in order. OutOfRange naming
  // the first index past `size()`; a member's error names the member.
  absl::Status GatherFixed(absl::Span<const uint64_t> indices,
                           absl::Span<char> destination) const;
  // Record `indices[i]` into `destinations[i]` (exactly its size).
  absl::Status Gather(absl::Span<const uint64_t> indices,
                      absl::Span<const absl::Span<char>> destinations) const;
  // The shapes of the records at `indices`.
  absl::StatusOr<std::vector<std::vector<uint64_t>>> Shapes(
      absl::Span<const uint64_t> indices) const;
  // As `TypedStore::Read`: the records back to back in batch order in the
  // one buffer `allocate(total_bytes)` returns.
  absl::StatusOr<ShapedBatch> Read(absl::Span<const uint64_t> indices,
                                   BatchAllocator allocate) const;

  // The members' statistics, summed.
  absl::StatusOr<StoreStats> Stats() const;
  // Every member verified; `damaged` holds set positions, and each problem
  // line is the member's own (naming its record) after "member M (path): ".
  absl::StatusOr<VerifyReport> Verify() const;

 private:
  StoreSet(std::string manifest_path, std::vector<std::string> paths,
           std::vector<std::shared_ptr<const TypedStore>> members);

  // Set positions to members: per member, the local indices it must read
  // and where each goes in the caller's order. OutOfRange past `size()`.
  struct Plan {
    std::vector<std::vector<uint64_t>> local;  // Per member.
    std::vector<std::vector<size_t>> slot;     // Per member.
  };
  absl::StatusOr<Plan> Resolve(absl::Span<const uint64_t> indices) const;
  // Runs `body(m)` for every member the plan touches: on the shared pool
  // when the batch has at least 1 MiB (`plan_bytes`), else in turn here.
  absl::Status ForEachMember(
      const Plan& plan, uint64_t plan_bytes,
      const std::function<absl::Status(size_t)>& body) const;
  absl::Status MemberError(size_t m, const absl::Status& status) const;

  const std::string manifest_path_;
  const std::vector<std::string> paths_;
  const std::vector<std::shared_ptr<const TypedStore>> members_;
  std::vector<uint64_t> starts_;  // num_members() + 1 entries.
  // Bucket b covers positions [b << shift_, (b + 1) << shift_); its entry
  // is the member holding the bucket's first position.
  std::vector<uint32_t> bucket_member_;
  int shift_ = 0;
  uint64_t fingerprint_ = 0;
};

}  // namespace loaderx

#endif  // LOADERX_STORE_SET_H_
