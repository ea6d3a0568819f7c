// `IntegrityFile` is a store's open checksums.lx (`integrity_format.h`): its
// durable state, its commit seal and its per-record checksum entries. It
// knows the file's layout, not what the engine concludes from it.
//
// Thread safety: `ReadEntry`/`ReadEntries` may run from many threads, also
// while the single writer writes entries of other records; everything else
// belongs to the writer.

#ifndef LOADERX_SRC_INTEGRITY_FILE_H_
#define LOADERX_SRC_INTEGRITY_FILE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loaderx/vfs.h"
#include "src/integrity_format.h"

namespace loaderx {

class IntegrityFile {
 public:
  // Opens the checksums.lx of the store in `directory`, read-only or for
  // writing; null if the store has none (written by another program).
  static absl::StatusOr<std::unique_ptr<IntegrityFile>> Open(
      Vfs& vfs, absl::string_view directory, bool read_only);

  // Creates (or replaces) it with `state` as its durable state, no seal and
  // no entries; with `sync`, synced, and so is its directory entry (else the
  // caller syncs both, with `Sync` and the directory, before relying on
  // them).
  static absl::StatusOr<std::unique_ptr<IntegrityFile>> Create(
      Vfs& vfs, absl::string_view directory,
      const integrity_format::StateSlot& state, bool sync = true);

  IntegrityFile(const IntegrityFile&) = delete;
  IntegrityFile& operator=(const IntegrityFile&) = delete;

  const std::string& path() const { return file_->path(); }
  // The open file, for readers that map its entries.
  const VfsFile& file() const { return *file_; }

  // The durable state: the intact slot with the larger sequence, or nullopt
  // if neither slot is intact.
  const std::optional<integrity_format::StateSlot>& state() const {
    return state_;
  }
  // Makes `state` the durable state (written over the older slot, with the
  // next sequence number, and synced; without `sync`, durable at the next
  // `Sync`).
  absl::Status WriteState(integrity_format::StateSlot state, bool sync = true);

  // The commit seal, or nullopt if it is missing or torn.
  absl::StatusOr<std::optional<integrity_format::CommitSeal>> ReadSeal() const;
  // Rewrites it (not synced).
  absl::Status WriteSeal(const integrity_format::CommitSeal& seal);

  // The entries of records `first`, `first + 1`, ...: empty past the end of
  // the file.
  absl::Status ReadEntries(
      uint64_t first, absl::Span<integrity_format::ChecksumEntry> out) const;
  absl::StatusOr<integrity_format::ChecksumEntry> ReadEntry(
      uint64_t index) const;
  // Writes entries of consecutive records in one write (not synced).
  absl::Status WriteEntries(
      uint64_t first,
      absl::Span<const integrity_format::ChecksumEntry> entries);
  // The same for entries already encoded (`EncodeEntry`), back to back in
  // `bytes` (a whole number of entries).
  absl::Status WriteEncodedEntries(uint64_t first, absl::string_view bytes);
  // Drops the entries of records `count` and up.
  absl::Status TruncateEntries(uint64_t count);

  // Syncs whatever was written since the last sync (`MarkWritten`: also
  // what another handle may have left unsynced).
  absl::Status Sync();
  void MarkWritten() { dirty_ = true; }
  // Whether something was written since the last sync.
  bool unsynced() const { return dirty_; }

 private:
  IntegrityFile(std::unique_ptr<VfsFile> file,
                std::optional<integrity_format::StateSlot> state, int slot)
      : file_(std::move(file)), state_(std::move(state)), current_slot_(slot) {}

  const std::unique_ptr<VfsFile> file_;
  std::optional<integrity_format::StateSlot> state_;
  int current_slot_;  // The slot `state_` came from (the other is next).
  bool dirty_ = false;
};

}  // namespace loaderx

#endif  // LOADERX_SRC_INTEGRITY_FILE_H_
