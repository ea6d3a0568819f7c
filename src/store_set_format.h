// The bytes of a store-set manifest: N stores of one type identity read as
// one index space, in manifest order (docs/store-set-format.md has the same
// table and the reasons). Little-endian, byte-aligned, one file:
//
//   offset  size  field
//        0     4  magic          "LXSS"
//        4     1  version        1 (exactly)
//        5     3  reserved       zero
//        8     8  members        M, at least 1, at most kMaxMembers
//       16     8  records        the sum of the members' record counts
//       24     8  identity       XXH3-64 of the members' kind, NUL, and
//                                encoded type identity (equal for all)
//       32     .  M member entries, back to back:
//                   0   8  records      the member's record count
//                   8   8  fingerprint  `TypedStore::Fingerprint()` when
//                                       the set was written
//                  16   4  path bytes   P, 1 <= P <= kMaxPathBytes
//                  20   P  path         UTF-8, '/'-separated, relative to
//                                       the manifest's directory; no NUL,
//                                       not absolute
//      end-8     8  checksum       XXH3-64 of every byte before it
//
// Set position p lies in the member m whose records span
// [sum of counts before m, that + count of m); position p - start of m
// there. `EncodeManifest` and `DecodeManifest` are pure: no files, no
// stores; `StoreSet` (loaderx/store_set.h) opens and checks the members.

#ifndef LOADERX_SRC_STORE_SET_FORMAT_H_
#define LOADERX_SRC_STORE_SET_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace loaderx::store_set_format {

inline constexpr char kMagic[4] = {'L', 'X', 'S', 'S'};
inline constexpr uint8_t kVersion = 1;
inline constexpr size_t kHeaderBytes = 32;
inline constexpr size_t kMemberFixedBytes = 20;
inline constexpr size_t kChecksumBytes = 8;
inline constexpr uint64_t kMaxMembers = uint64_t{1} << 20;
inline constexpr uint32_t kMaxPathBytes = 4096;

struct Member {
  std::string path;  // Relative to the manifest's directory.
  uint64_t records = 0;
  uint64_t fingerprint = 0;

  friend bool operator==(const Member&, const Member&) = default;
};

struct Manifest {
  uint64_t identity = 0;
  std::vector<Member> members;

  uint64_t records() const;
  friend bool operator==(const Manifest&, const Manifest&) = default;
};

// InvalidArgument (naming the member) for no members, too many, an empty,
// too long, absolute or NUL-holding path, or record counts whose sum
// overflows; otherwise the manifest's bytes.
absl::StatusOr<std::string> EncodeManifest(const Manifest& manifest);

// DataLoss naming `path` (the file, for the message) and what is wrong for
// anything `EncodeManifest` would not have written: a wrong magic, version
// or checksum, nonzero reserved bytes, a count or path out of range, a
// records field that is not the members' sum, bytes missing or left over.
absl::StatusOr<Manifest> DecodeManifest(absl::string_view bytes,
                                        absl::string_view path);

}  // namespace loaderx::store_set_format

#endif  // LOADERX_SRC_STORE_SET_FORMAT_H_
