// The bytes of checksums.lx, the integrity sidecar loaderx keeps beside a
// store's reference-format files (which stay exactly as loaderx 1.7.7 writes
// them; 1.7.7 ignores this file). Little-endian, byte-aligned:
//
//   offset  size  what
//        0  4096  state slot A   the durable state (two slots, so one
//     4096  4096  state slot B   survives a torn rewrite of the other)
//     8192  4096  commit seal    rewritten around every meta.zr write
//    12288    24  the checksum entry of record 0, then one per record
//
// State slot (the first 128 bytes of its block; the rest is zero):
//
//        0     4  magic      "LXCS"
//        4     1  version    1
//        5     1  flags      bit 0: store.zr checksum set; bit 1: dict.zr;
//                            bit 2: metadata adopted (checksums.lx, or
//                            store.zr's checksum, made from files this
//                            library found rather than wrote)
//        6     2  reserved   zero
//        8     8  sequence   the valid slot with the larger one is current
//       16     4  epoch      entries written since the last time another
//                            program was seen writing carry this epoch
//       20     4  reserved   zero
//       24    32  meta.zr    its bytes in the durable state
//       56     8  stamp      meta.zr's modification stamp in that state
//       64     8  store.zr   XXH3-64 of its contents
//       72     8  dict.zr    XXH3-64 of its contents
//       80     8  removed    records that vanished past the length (meta.zr
//                            shorter than this state said, nothing of ours
//                            explaining it), until accepted
//       88     8  removed    the length they vanished from (the largest)
//                   from
//       96     8  reappeared records past the length that came back with
//                            the frontier unchanged, until accepted
//      104    16  reserved   zero
//      120     8  checksum   XXH3-64 of bytes 0..120
//
// Commit seal (96 bytes):
//
//        0     4  magic      "LXSL"
//        4     1  version    1
//        5     1  pending    1 while meta.zr is being rewritten to `meta.zr`
//        6     2  reserved   zero
//        8    32  meta.zr    the header being written (pending) or last
//                            written
//       40    32  previous   the header before the write in progress
//       72     8  stamp      meta.zr's modification stamp after the last
//                            completed write
//       80     8  reserved   zero
//       88     8  checksum   XXH3-64 of bytes 0..88
//
// Checksum entry of record i (at 12288 + 24 i):
//
//        0     8  checksum   XXH3-64 of the record's stored bytes (its
//                            chunk bytes: the zstd frame, or raw bytes)
//        8     8  binding    XXH3-64 of the record's 16-byte .loc entry
//       16     4  epoch      0: no checksum
//       20     4  reserved   zero
//
// An entry counts only while its binding matches the record's current table
// entry: a record moved or replaced by a program that does not keep this
// file (1.7.7: appends, swap-last deletes, compaction) leaves a stale entry,
// which reads as "no checksum", never as damage.

#ifndef LOADERX_SRC_INTEGRITY_FORMAT_H_
#define LOADERX_SRC_INTEGRITY_FORMAT_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "loaderx/spi/little_endian.h"
#include "src/store_format.h"

namespace loaderx::integrity_format {

inline constexpr absl::string_view kIntegrityFile = "checksums.lx";

inline constexpr uint64_t kBlockBytes = 4096;
inline constexpr uint64_t kSlotOffset[2] = {0, kBlockBytes};
inline constexpr uint64_t kSealOffset = 2 * kBlockBytes;
inline constexpr uint64_t kEntriesOffset = 3 * kBlockBytes;
inline constexpr size_t kSlotBytes = 128;
inline constexpr size_t kSealBytes = 96;
inline constexpr size_t kEntryBytes = 24;

using MetaBytes = std::array<char, store_format::kHeaderBytes>;

// `header` as meta.zr holds it.
MetaBytes MetaBytesOf(const store_format::PhysicalHeader& header);

struct StateSlot {
  uint64_t sequence = 0;
  uint32_t epoch = 0;
  MetaBytes meta{};
  uint64_t meta_stamp = 0;
  std::optional<uint64_t> typed_header_checksum;  // store.zr
  std::optional<uint64_t> dictionary_checksum;    // dict.zr
  // What the state holds against the files until the user accepts it
  // (`RecordEngine::AcceptMetadataProblems`); see the layout above.
  bool metadata_adopted = false;
  uint64_t removed_records = 0;
  uint64_t removed_from_length = 0;
  uint64_t reappeared_records = 0;
};

struct CommitSeal {
  bool pending = false;
  MetaBytes meta{};
  MetaBytes previous{};
  uint64_t meta_stamp = 0;
};

struct ChecksumEntry {
  uint64_t checksum = 0;
  uint64_t binding = 0;
  uint32_t epoch = 0;  // 0: none.

  bool empty() const { return epoch == 0; }
  friend bool operator==(const ChecksumEntry&, const ChecksumEntry&) = default;
};

std::string EncodeSlot(const StateSlot& slot);
// nullopt unless `bytes` is a whole, intact version-1 slot.
std::optional<StateSlot> DecodeSlot(absl::string_view bytes);

std::string EncodeSeal(const CommitSeal& seal);
std::optional<CommitSeal> DecodeSeal(absl::string_view bytes);

void EncodeEntry(const ChecksumEntry& entry, char* out);
// Inline: a verified gather decodes one per record.
inline ChecksumEntry DecodeEntry(const char* bytes) {
  return ChecksumEntry{LoadLittle<uint64_t>(bytes),
                       LoadLittle<uint64_t>(bytes + 8),
                       LoadLittle<uint32_t>(bytes + 16)};
}

// The binding of a record's table entry, and an entry for a record stored
// as `stored` at `loc` in `epoch`.
uint64_t BindingOf(const store_format::RecordLoc& loc);
ChecksumEntry EntryFor(absl::string_view stored,
                       const store_format::RecordLoc& loc, uint32_t epoch);

inline uint64_t EntryOffset(uint64_t index) {
  return kEntriesOffset + index * kEntryBytes;
}

}  // namespace loaderx::integrity_format

#endif  // LOADERX_SRC_INTEGRITY_FORMAT_H_
