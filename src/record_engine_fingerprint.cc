// `RecordEngine::Fingerprint`: one number for the committed state, cheap
// enough to take at every loader creation and set open (O(1): the header's
// length and frontier plus the last record's table entry and checksum).

#include <cstdint>
#include <mutex>

#include "absl/status/statusor.h"
#include "loaderx/spi/little_endian.h"
#include "loaderx/spi/status_macros.h"
#include "src/checksum.h"
#include "src/record_engine.h"
#include "src/store_format.h"

namespace loaderx {

absl::StatusOr<uint64_t> RecordEngine::Fingerprint() const {
  uint64_t length;
  uint64_t frontier;
  {
    std::lock_guard lock(writer_mu_);
    length = header_.length;
    frontier = FrontierOf(header_);
  }
  // length, frontier, the last record's .loc entry and its checksum: an
  // append, a delete (it moves the last record), a compaction (it moves
  // the frontier) or a rewrite of the last record all change one of them.
  char material[8 + 8 + store_format::kRecordLocBytes + 8] = {};
  StoreLittle<uint64_t>(material, length);
  StoreLittle<uint64_t>(material + 8, frontier);
  if (length > 0) {
    LOADERX_ASSIGN_OR_RETURN(const store_format::RecordLoc loc,
                             ReadLoc(length - 1));
    store_format::EncodeRecordLoc(loc, material + 16);
    LOADERX_ASSIGN_OR_RETURN(const integrity_format::ChecksumEntry entry,
                             ReadChecksum(length - 1));
    StoreLittle<uint64_t>(material + 16 + store_format::kRecordLocBytes,
                          entry.checksum);
  }
  return Checksum(absl::string_view(material, sizeof(material)));
}

}  // namespace loaderx
