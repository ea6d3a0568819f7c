// journal.lx: the redo record of the one maintenance step in progress, so a
// delete or a compaction step interrupted at any instant (SIGKILL, power
// loss, a torn write) is finished by the next open instead of leaving a
// half-rewritten record table. Little-endian:
//
//   offset  size  field
//        0     4  magic      "LXJN"
//        4     1  version    1
//        5     1  operation  1 delete, 2 compaction step, 3 compaction end
//        6     2  reserved   zero
//        8     8  count      n: table entries to install
//       16    32  meta.zr    the header to install
//       48  48 n  entries    u64 index, its 16-byte RecordLoc, its 24-byte
//                            checksum entry (integrity_format.h)
//  48+48n     8  checksum   XXH3-64 of every byte before it
//
// Protocol: the step's new record bytes are durable first; then the record
// is written and synced; only then are the table, checksum entries and
// header rewritten in place; the record is cleared once those are synced.
// A record that is torn or garbled fails its checksum and means the step
// never started rewriting anything. Installing a record is idempotent, and
// no other write happens while one is present, so the next open installs
// whatever intact record it finds (a read-only open overlays it in memory
// instead). A compaction end also drops what lies past the new frontier.
//
// Space: the file keeps `kJournalReserveBytes` allocated (`Reserve`, made
// by a store's first mutation), a record is written over the start of it
// and never truncated, and clearing zeroes the bytes a record may occupy
// in place (shrinking the file back to the reserve if a large record grew
// it). So a delete, and a compaction step of a few records, needs no free
// space: on a full disk they are the way to make some.
// loaderx 1.7.7 does not read this file.

#ifndef LOADERX_SRC_JOURNAL_H_
#define LOADERX_SRC_JOURNAL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "loaderx/vfs.h"
#include "src/integrity_format.h"
#include "src/store_format.h"

namespace loaderx {

inline constexpr absl::string_view kJournalFile = "journal.lx";
// The bytes journal.lx keeps allocated: a record of up to 1,364 entries.
inline constexpr uint64_t kJournalReserveBytes = 64 << 10;

enum class JournalOp : uint8_t {
  kDelete = 1,
  kCompactionStep = 2,
  kCompactionEnd = 3,
};

struct JournalEntry {
  uint64_t index = 0;
  store_format::RecordLoc loc;
  integrity_format::ChecksumEntry checksum;
};

struct JournalRecord {
  JournalOp op = JournalOp::kDelete;
  store_format::PhysicalHeader header;
  std::vector<JournalEntry> entries;
};

std::string EncodeJournal(const JournalRecord& record);
// The bytes a record of `entries` entries takes.
uint64_t JournalRecordBytes(uint64_t entries);
// nullopt for anything but an intact record (an empty file included).
// DataLoss only if the record is intact but its header is not a valid one.
absl::StatusOr<std::optional<JournalRecord>> DecodeJournal(
    absl::string_view bytes, absl::string_view path);

// The journal file of one store, opened by its single writer.
class Journal {
 public:
  // Reads the journal of the store in `directory` without creating it:
  // nullopt when there is none or it holds no intact record.
  static absl::StatusOr<std::optional<JournalRecord>> Read(
      Vfs& vfs, absl::string_view directory);

  Journal(Vfs& vfs, std::string directory)
      : vfs_(vfs), directory_(std::move(directory)) {}

  // Makes `record` durable (creating the file, and syncing its directory,
  // the first time), written over the start of the file.
  absl::Status Write(const JournalRecord& record);
  // Durably empties the journal: zeroes, in place, whatever bytes may hold
  // a record, and shrinks a file that grew past the reserve back to it.
  absl::Status Clear();
  // Allocates `kJournalReserveBytes` (creating the file if needed);
  // ResourceExhausted on a full disk, which leaves the journal usable.
  absl::Status Reserve();

 private:
  absl::Status OpenFile();

  Vfs& vfs_;
  const std::string directory_;
  std::unique_ptr<VfsFile> file_;  // Opened by the first write or clear.
  // How many leading bytes of the file may hold a record's bytes (all of
  // it, up to the reserve, when it was opened: an earlier handle's).
  uint64_t dirty_bytes_ = 0;
};

}  // namespace loaderx

#endif  // LOADERX_SRC_JOURNAL_H_
