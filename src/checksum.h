// The one hash loaderx's integrity data uses: XXH3-64 (xxHash, Debian's
// libxxhash), dispatched at run time to the widest vector unit the CPU has
// (the value is the same on every CPU). A record's checksum is the hash of
// its stored bytes; `ChecksumStream` hashes bytes that arrive in pieces
// (a record copied through a bounded buffer) to the same value.

#ifndef LOADERX_SRC_CHECKSUM_H_
#define LOADERX_SRC_CHECKSUM_H_

#include <xxhash.h>

#include <cstdint>
#include <memory>

#include "absl/strings/string_view.h"

namespace loaderx {

// Inline (XXH_INLINE_ALL, bazel/system_libs.BUILD): a verified gather
// hashes twice per record.
inline uint64_t Checksum(absl::string_view bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

class ChecksumStream {
 public:
  ChecksumStream();
  ~ChecksumStream();
  ChecksumStream(const ChecksumStream&) = delete;
  ChecksumStream& operator=(const ChecksumStream&) = delete;

  void Update(absl::string_view bytes);
  // The hash of everything passed to `Update` so far.
  uint64_t Digest() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace loaderx

#endif  // LOADERX_SRC_CHECKSUM_H_
