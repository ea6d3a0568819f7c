// `FaultVfs` wraps any VFS and makes it misbehave on purpose, so tests can
// show that the engine reports I/O errors cleanly and never loses committed
// data (after LevelDB's `FaultInjectionTestEnv` and SQLite's `test6.c`).
//
// 1. Injected errors: `FailOnCall(op, n, error)` makes the n-th call of `op`
//    from now on fail with `error` (and, if sticky, every later call too),
//    without reaching the wrapped VFS; a path filter narrows a rule to one
//    file ("the second write to meta.zr").
//
// 2. Power loss: `SimulateCrash()` puts the wrapped filesystem in the state a
//    power cut would leave it in:
//    - a file's contents revert to what they were at its last successful
//      `Sync`/`SyncData` (or when `FaultVfs` first opened it for writing);
//      in `kGarbleUnsynced` mode, every range written since then holds
//      pseudo-random bytes instead of either version;
//    - a file created since the last `SyncDirectory` of its directory is
//      removed;
//    - every handle opened before the crash is closed (its lock released);
//      later calls through it fail with FailedPrecondition.
//    Removes, renames and directory creation are modelled as durable at once
//    (as a journaling filesystem orders them), and only files opened through
//    this `FaultVfs` are tracked. Tracking copies a file's contents at each
//    sync, so this is a tool for small test data.
//    `kKillProcess` is the process killed instead (SIGKILL): every call that
//    completed is kept, synced or not (the kernel has it), including a file
//    created and never written; only the handles close.
//
// 3. Power cuts: `CutPowerAfter(n)` lets n more mutating calls (writes,
//    truncations, syncs, creating opens, removes, renames, directory
//    changes) through and then fails every call with Unavailable, as if the
//    machine stopped there, until `SimulateCrash`. Enumerating n over an
//    operation's `MutatingCalls()` puts a power loss at every write and
//    every sync it makes. `set_on_power_cut` runs an action at the cut
//    instead (a kill loop's child raises SIGKILL there).
//
// 4. Modification stamps are forwarded; after `SimulateCrash` a file that
//    was reverted reports the stamp it had at its last sync (a power cut
//    takes the unsynced modification times with it) until it is written
//    again.
//
// 5. Mappings: `MapReadOnly` is declined (Unimplemented) unless
//    `set_mapping(true)`, so the engine's crash tests exercise its `ReadAt`
//    path by default and a test opts into the mapped path; with mapping on,
//    calls are forwarded (and can be failed like any other operation).
//    Mapped bytes are outside the crash model: a region made before a crash
//    keeps showing what it showed.
//
// 6. Syncs: `ConcurrentSyncs` is false unless `set_concurrent_syncs(true)`,
//    so by default the engine's syncs arrive one at a time in a repeatable
//    order and a power cut at call n is the same cut every run.
//
// 7. A full disk: `set_capacity(bytes, errno)` caps the bytes the files
//    opened through this VFS may hold; a call that would grow them past it
//    (a write or vectored write past a file's end, a `Truncate` or
//    `Allocate` that extends, a creating open of a new file while nothing
//    is left) fails with ResourceExhausted carrying ENOSPC's or EDQUOT's
//    text, before it reaches the wrapped VFS, as the OS refuses such a
//    write; writes inside a file's existing bytes still work. The
//    `kUseSpace` rule op counts exactly those calls, so a test can make the
//    disk fill up at each one in turn. `AvailableBytes` reports what is
//    left (or forwards when no capacity is set).
//
// With no rule set and no crash simulated it forwards every call unchanged
// (the conformance suite runs it that way). Thread-safe, like the wrapped VFS.
// Registered as "fault", wrapping a new "memory" VFS.

#ifndef LOADERX_VFS_FAULT_FAULT_VFS_H_
#define LOADERX_VFS_FAULT_FAULT_VFS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "loaderx/vfs.h"

namespace loaderx {

// Every operation a fault can be injected into.
enum class VfsOp {
  kOpen,
  kRemove,
  kRename,
  kList,
  kCreateDirectory,
  kRemoveDirectory,
  kExists,
  kSyncDirectory,
  kReadAt,
  kWriteAt,
  kWriteVectorAt,
  kSize,
  kTruncate,
  kSyncData,
  kSync,
  kTryLock,
  kTryLockShared,
  kMapReadOnly,
  kModificationStamp,
  kAllocate,
  // Counted (and failed) in addition to `kOpen` for opens in a mode that
  // can write (`kReadWrite`, `kCreate`, `kCreateExclusive`).
  kOpenWritable,
  // Counted (and failed) in addition to the call itself for every call that
  // would grow the bytes stored (see 7. above): any space use.
  kUseSpace,
};

absl::string_view VfsOpName(VfsOp op);

class FaultVfs final : public Vfs {
 public:
  static constexpr char kName[] = "fault";

  enum class CrashMode {
    kDropUnsynced,    // Unsynced writes vanish.
    kGarbleUnsynced,  // Unsynced writes turn into garbage bytes.
    kKillProcess,     // Nothing is lost: the process died, not the machine.
  };

  // Wraps `base` without owning it; `base` must outlive this VFS.
  explicit FaultVfs(Vfs* base);
  // Wraps and owns `base`.
  explicit FaultVfs(std::unique_ptr<Vfs> base);
  ~FaultVfs() override;

  // From now on, the `nth` call (1-based) of `op` fails with `error`
  // (prefixed with "injected fault"), as does every later one if `sticky`.
  // With `path_filter`, only calls on paths containing it are counted and
  // failed (e.g. "meta.zr" to fail only header writes). Replaces an earlier
  // rule for the same `op` and filter; rules for different filters coexist.
  // `error` must not be OK.
  void FailOnCall(VfsOp op, int64_t nth, absl::Status error,
                  bool sticky = false, absl::string_view path_filter = "");

  // Removes every injection rule.
  void ClearFaults();

  // Caps the bytes stored in the files this VFS opened at `bytes` (see 7.
  // above); a call that would pass it fails with ResourceExhausted and the
  // text of `error_number` (ENOSPC: a full device, EDQUOT: a used-up
  // quota). Negative: no cap (the default). `ClearFaults` keeps it.
  void set_capacity(int64_t bytes, int error_number);
  // The bytes the files this VFS opened hold now (their sizes, summed).
  uint64_t UsedBytes() const;
  absl::StatusOr<uint64_t> AvailableBytes(absl::string_view path) override;

  // Whether `MapReadOnly` is forwarded (true) or declined with
  // Unimplemented (false, the default).
  void set_mapping(bool enabled);
  bool mapping() const;

  // How many times `op` was called through this VFS, failed calls included.
  int64_t CallCount(VfsOp op) const;
  // The paths `op` was called on so far, failed calls included.
  std::set<std::string> PathsCalled(VfsOp op) const;

  // Whether `ConcurrentSyncs` says yes (false, the default: the engine then
  // issues its syncs one at a time, in the same order every run, so that
  // `CutPowerAfter(n)` always cuts at the same call). A test of the
  // overlapped syncs turns it on; the crash model is the same either way.
  void set_concurrent_syncs(bool enabled);
  bool ConcurrentSyncs() const override;

  // After `calls` more mutating calls, every call fails (a power cut; see
  // above) until `SimulateCrash`. Negative: no cut (the default).
  void CutPowerAfter(int64_t calls);
  // Called by the first call the cut refuses, before it fails, on that
  // call's thread and under this VFS's lock (it must not call this VFS):
  // a process that is to die at the cut raises SIGKILL there.
  void set_on_power_cut(std::function<void()> action);
  // Mutating calls that reached the wrapped VFS so far.
  int64_t MutatingCalls() const;

  // Simulates power loss as described above. `seed` picks the garbage in
  // `kGarbleUnsynced` mode. Errors come from the wrapped VFS while it is
  // being rewritten.
  absl::Status SimulateCrash(CrashMode mode = CrashMode::kDropUnsynced,
                             uint64_t seed = 0);

  absl::StatusOr<std::unique_ptr<VfsFile>> Open(absl::string_view path,
                                                OpenMode mode) override;
  absl::Status Remove(absl::string_view path) override;
  absl::Status Rename(absl::string_view from, absl::string_view to) override;
  absl::StatusOr<std::vector<std::string>> List(
      absl::string_view path) override;
  absl::Status CreateDirectory(absl::string_view path) override;
  absl::Status RemoveDirectory(absl::string_view path) override;
  absl::StatusOr<bool> Exists(absl::string_view path) override;
  absl::Status SyncDirectory(absl::string_view path) override;

 private:
  friend class FaultVfsFile;

  Vfs& target() const { return *target_; }
  struct Durability;
  struct Handle;

  // Whether a call on `path` growing the stored bytes by `growth` (a new
  // file: `creating`) may go ahead: the `kUseSpace` rules and the capacity.
  absl::Status MaybeRefuseSpace(absl::string_view path, uint64_t growth,
                                bool creating = false);
  // Records that the file at `path` now holds `size` bytes.
  void RecordSize(const std::string& path, uint64_t size);

  // Counts a call of `op` and returns the injected error if a rule fires or
  // the power is cut; a `mutating` call that passes counts towards the cut.
  absl::Status MaybeFail(VfsOp op, absl::string_view path,
                         bool mutating = false);
  // The stamp a file reverted by a crash reports until it is written again.
  std::optional<uint64_t> RevertedStamp(const std::string& path) const;
  void ForgetRevertedStamp(const std::string& path);
  // Records that `[offset, offset + size)` of a tracked file was written.
  void RecordWrite(Durability& durability, uint64_t offset, uint64_t size);
  // Records that a tracked file's contents are now durably `contents`, with
  // modification stamp `stamp`.
  void RecordSync(Durability& durability, std::string contents,
                  std::optional<uint64_t> stamp);

  // Tracks `path` for crash simulation if it is not tracked yet; `created`
  // says the file did not exist before this open, `stamp` is its current
  // modification stamp.
  absl::StatusOr<std::shared_ptr<Durability>> TrackLocked(
      const std::string& path, bool created, std::optional<uint64_t> stamp);

  struct Rule {
    VfsOp op;
    std::string path_filter;
    int64_t nth;
    absl::Status error;
    bool sticky;
    int64_t seen = 0;  // Matching calls so far.
  };

  std::unique_ptr<Vfs> owned_;  // Null when the base is not owned.
  Vfs* const target_;

  mutable std::mutex mu_;
  bool mapping_ = false;                                 // Guarded by `mu_`.
  std::vector<Rule> rules_;                              // Guarded by `mu_`.
  std::map<VfsOp, int64_t> calls_;                       // Guarded by `mu_`.
  std::map<VfsOp, std::set<std::string>> paths_called_;  // Guarded by `mu_`.
  bool concurrent_syncs_ = false;                        // Guarded by `mu_`.
  int64_t mutating_calls_ = 0;                           // Guarded by `mu_`.
  int64_t power_cut_at_ = -1;           // Guarded by `mu_`; -1: none.
  std::function<void()> on_power_cut_;  // Guarded by `mu_`.
  std::map<std::string, uint64_t> reverted_stamps_;  // Guarded by `mu_`.
  int64_t capacity_ = -1;                  // Guarded by `mu_`; -1: none.
  int capacity_error_ = 0;                 // Guarded by `mu_`.
  std::map<std::string, uint64_t> sizes_;  // Guarded by `mu_`.
  // Files written through this VFS, by current path.
  std::map<std::string, std::shared_ptr<Durability>> tracked_;  // `mu_`.
  // Every handle this VFS opened that may still be alive.
  std::vector<std::weak_ptr<Handle>> handles_;  // Guarded by `mu_`.
};

}  // namespace loaderx

#endif  // LOADERX_VFS_FAULT_FAULT_VFS_H_
