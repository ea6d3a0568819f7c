// The vector kernels behind `checksum.h`: XXH3-64 of long inputs and the
// gather's copies, compiled once per vector unit (`checksum_vector.cc` for
// AVX2 and AVX-512, `checksum.cc` for the baseline every CPU runs). Every
// unit's kernels give the same hash and the same bytes. This header holds
// declarations only: `checksum_vector.cc` includes it, and an inline
// function compiled there could be the copy the linker keeps for every
// caller, with instructions other CPUs lack.

#ifndef LOADERX_SRC_CHECKSUM_KERNELS_H_
#define LOADERX_SRC_CHECKSUM_KERNELS_H_

#include <cstddef>
#include <cstdint>

namespace loaderx::checksum_internal {

struct VectorKernels {
  // XXH3-64 of `size` bytes.
  uint64_t (*hash)(const void* bytes, size_t size);
  // Copies `size` bytes from `source` to `destination`, returning XXH3-64
  // of them, hashed and copied `piece` bytes at a time (the baseline hashes
  // them whole, then copies); with `bypass_cache`, through non-temporal
  // stores, fenced before it returns.
  uint64_t (*hash_and_copy)(const char* source, size_t size, char* destination,
                            size_t piece, bool bypass_cache);
  // memcpy through non-temporal stores, fenced before it returns (the
  // baseline: memcpy).
  void (*copy_around_cache)(char* destination, const char* source, size_t size);
  // The same without the fence: the stores are ordered only by a later
  // `fence` on the same thread (the baseline: memcpy).
  void (*copy_around_cache_unfenced)(char* destination, const char* source,
                                     size_t size);
  // Orders every earlier non-temporal store of this thread before the
  // stores after it (the baseline: nothing, it makes none).
  void (*fence)();
};

enum class VectorUnit { kBaseline, kAvx2, kAvx512 };

// `unit`'s kernels, or null when this build or this CPU lacks the unit
// (never for `kBaseline`).
const VectorKernels* KernelsFor(VectorUnit unit);

// The widest unit's kernels, chosen once per process.
const VectorKernels& BestKernels();

// checksum_vector.cc, one per unit compiled.
extern const VectorKernels kAvx2Kernels;
extern const VectorKernels kAvx512Kernels;

// A verified gather of small fixed-width records checks them
// `kBlockRecords` at a time: `BlockCheck` returns a mask with bit k set
// when record k (`width` bytes at `records[k]`) does not hash to its
// checksum or its 16-byte table entry (at `entries[k]`) does not hash to
// its binding, for k below `count` (at most `kBlockRecords`). Record k's
// checksum and binding are the two little-endian 64-bit words at
// `checksum_entries[k]`, as checksums.lx stores them
// (`integrity_format::DecodeEntry`). With `entries` null, the bindings are
// not checked and only the checksum (the first word) is read: the records
// of a resident index (`ResidentEntry`, whose binding was checked when it
// was made).
inline constexpr size_t kBlockRecords = 8;
using BlockCheck = uint32_t (*)(const char* const* records, size_t width,
                                const char* const* entries,
                                const char* const* checksum_entries,
                                size_t count);
// checksum_block_avx512.cc: in vectors for 64 and 128-byte records (the
// widths a gather hands it), one by one for others.
extern const BlockCheck kAvx512BlockCheck;
// The block check this CPU runs in vectors, chosen once per process, or
// null (a gather then hashes each record inline).
BlockCheck BestBlockCheck();

}  // namespace loaderx::checksum_internal

#endif  // LOADERX_SRC_CHECKSUM_KERNELS_H_
