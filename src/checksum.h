// The one hash loaderx's integrity data uses: XXH3-64 (xxHash, Debian's
// libxxhash). Inputs of up to 240 bytes hash inline (xxHash's scalar
// short-input paths); longer ones, where XXH3 runs its vector loop, go to
// that loop compiled for the widest unit the CPU has (AVX-512, AVX2, else
// the SSE2 every x86-64 has), chosen once per process; the value is the
// same on every CPU. (Debian's static libxxhash.a lacks xxHash's own
// run-time dispatcher, and the wheel links statically, so the variants are
// compiled here from xxHash's header: `checksum_vector.cc`.) A record's
// checksum is the hash of its stored bytes; `ChecksumStream` hashes bytes
// that arrive in pieces (a record copied through a bounded buffer) to the
// same value; `ChecksumAndCopy` hashes a record while it copies it, reading
// its bytes from memory once.

#ifndef LOADERX_SRC_CHECKSUM_H_
#define LOADERX_SRC_CHECKSUM_H_

#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <memory>

#include "absl/base/attributes.h"
#include "absl/strings/string_view.h"
#include "src/checksum_kernels.h"

// Compiles every call inside the function it marks inline into it.
#if ABSL_HAVE_ATTRIBUTE(flatten)
#define LOADERX_ATTRIBUTE_FLATTEN __attribute__((flatten))
#else
#define LOADERX_ATTRIBUTE_FLATTEN
#endif

namespace loaderx {

namespace checksum_internal {

// XXH3's short-input limit: longer inputs run its vector loop.
inline constexpr size_t kShortInputBytes = 240;

// Records longer than `kPiecewiseBytes` are hashed and copied
// `kPieceBytes` at a time, each piece copied while the hash has just
// brought it into the nearest cache; shorter ones are copied whole, then
// the copy is hashed (from the cache all the same). Measured (gather_benchmark,
// 64 and 256 KiB raw records, verified against unverified): pieces of 8 KiB
// beat 2, 4, 16 and 32 KiB, and 64 KiB records gain from pieces too.
inline constexpr size_t kPiecewiseBytes = 16 << 10;
inline constexpr size_t kPieceBytes = 8 << 10;

// With `bypass_cache`, `CopyBytes` and `ChecksumAndCopy` store what is
// longer than `kShortInputBytes` around the cache. Records of up to
// `kPiecewiseBytes` are stored without a fence, and the caller fences once
// for a whole run of them (`FenceStreamedCopies`). With a fence per record,
// 4 KiB records in 16 MiB batches gathered 10-25% slower around the cache
// than with plain stores; with one per run, verified ones gathered ~10%
// faster (17.0-17.3 -> 18.4-20.3 GB/s, gather_benchmark, three alternated
// runs). Longer records are fenced as they are copied: 256 KiB ones
// gathered 40-60% faster around the cache.

}  // namespace checksum_internal

// Short inputs inline (XXH_INLINE_ALL, bazel/system_libs.BUILD): a
// verified gather hashes twice per record, a table entry and its bytes.
inline uint64_t Checksum(absl::string_view bytes) {
  if (bytes.size() > checksum_internal::kShortInputBytes) {
    static const checksum_internal::VectorKernels& kernels =
        checksum_internal::BestKernels();
    return kernels.hash(bytes.data(), bytes.size());
  }
  return XXH3_64bits(bytes.data(), bytes.size());
}

// `Checksum` of the 16 bytes at `bytes` (a table entry, whose hash is its
// checksum entry's binding), compiled for that one length: XXH3's length
// dispatch folds away, so the hash is ~20 instructions inline where the
// general call costs ~40 (a verified gather of small records binds every
// record's entry).
LOADERX_ATTRIBUTE_FLATTEN inline uint64_t Checksum16(const char* bytes) {
  return XXH3_64bits(bytes, 16);
}

// `Checksum` of `size` <= `kShortInputBytes` bytes, inline in its caller:
// xxHash's own short paths, through its internal length dispatch where its
// header is compiled inline (XXH_INLINE_ALL), with no call at all. A call
// makes a small-record loop spill the state it keeps in the registers the
// call may clobber.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline uint64_t ChecksumShort(const char* bytes,
                                                           size_t size) {
#if defined(XXH_INLINE_ALL) && XXH_VERSION_NUMBER >= 800 && \
    XXH_VERSION_NUMBER < 900
  return XXH3_64bits_internal(bytes, size, 0, XXH3_kSecret,
                              sizeof(XXH3_kSecret), XXH3_hashLong_64b_default);
#else
  return XXH3_64bits(bytes, size);
#endif
}

// Copies `source` to `destination` (at least `source.size()` bytes, not
// overlapping it): with `bypass_cache`, around the cache when it is longer
// than `kShortInputBytes` (see above; the caller then ends its run of
// copies with `FenceStreamedCopies`). A gather's copy of a record it does
// not verify.
inline void CopyBytes(char* destination, absl::string_view source,
                      bool bypass_cache) {
  if (bypass_cache && source.size() > checksum_internal::kShortInputBytes) {
    static const checksum_internal::VectorKernels& kernels =
        checksum_internal::BestKernels();
    if (source.size() > checksum_internal::kPiecewiseBytes) {
      kernels.copy_around_cache(destination, source.data(), source.size());
    } else {
      kernels.copy_around_cache_unfenced(destination, source.data(),
                                         source.size());
    }
    return;
  }
  std::memcpy(destination, source.data(), source.size());
}

// Copies `source` to `destination` (at least `source.size()` bytes, not
// overlapping it) and returns `Checksum(source)`: for a long record, with
// one read of its bytes from memory where hashing, then copying, would
// read them twice. The destination is written whatever the checksum. With
// `bypass_cache` (for a destination larger than the caches, which will not
// be read before it is evicted anyway), a record longer than
// `kShortInputBytes` is stored around the cache, as `CopyBytes` does: its
// lines are not read before they are written, which saves a third of the
// memory traffic of the copy. The caller ends its run of copies with
// `FenceStreamedCopies`. Always inline: a gather calls it once per record,
// and inline, with `ChecksumShort`, a short record's hash spares the loop
// a call and the spills around it (callgrind, 64 B raw records: 239 -> 226
// instructions per record).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline uint64_t ChecksumAndCopy(
    absl::string_view source, char* destination, bool bypass_cache = false) {
  if (source.size() > checksum_internal::kPiecewiseBytes) {
    static const checksum_internal::VectorKernels& kernels =
        checksum_internal::BestKernels();
    return kernels.hash_and_copy(source.data(), source.size(), destination,
                                 checksum_internal::kPieceBytes, bypass_cache);
  }
  if (source.size() <= checksum_internal::kShortInputBytes) {
    // A few cache lines.
    const uint64_t checksum = ChecksumShort(source.data(), source.size());
    CopyBytes(destination, source, bypass_cache);
    return checksum;
  }
  if (bypass_cache) {
    // Streamed, then hashed from the source lines the copy has just brought
    // into L1 (the streamed copy is not in the cache).
    CopyBytes(destination, source, bypass_cache);
    return Checksum(source);
  }
  // Copied first (plain stores: the copy is read back at once), then the
  // copy hashed from the nearest cache: a copy keeps more of the record's
  // cache misses in flight than XXH3's loop does. Verified 4 KiB raw
  // gathers went from 0.66-0.72x to 0.79-0.95x the unverified ones
  // (gather_benchmark, builds alternated).
  std::memcpy(destination, source.data(), source.size());
  return Checksum(absl::string_view(destination, source.size()));
}

// Orders this thread's earlier copies made with `bypass_cache` before its
// later stores: called once after a run of them, before anything tells
// another thread the bytes are there.
inline void FenceStreamedCopies() {
  static const checksum_internal::VectorKernels& kernels =
      checksum_internal::BestKernels();
  kernels.fence();
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
