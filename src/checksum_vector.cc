// XXH3-64 of long inputs compiled for one vector unit, in one call or
// piece by piece while the pieces are copied (`ChecksumAndCopy`): xxHash's
// own AVX2 or AVX-512 accumulate loop (its `XXH_VECTOR` knob), selected
// when this file is compiled (`LOADERX_XXH3_VECTOR`, 2 or 3, with the matching
// -mavx2 / -mavx512f in src/BUILD.bazel), as that unit's `VectorKernels`
// (`checksum_kernels.h`); `checksum.cc` hands them out only on a CPU that
// has the unit. Nothing else of the project's is included: an inline
// function from a shared header compiled here could be the copy the linker
// keeps for every caller, with instructions other CPUs lack (xxHash's
// functions are static under XXH_INLINE_ALL; the kernels live in an
// unnamed namespace); the copy is the compiler's builtin, which calls the C
// library's memcpy.

#include <cstddef>
#include <cstdint>

#include "src/checksum_kernels.h"

// GCC 12's own avx512fintrin.h trips its (maybe-)uninitialized warnings
// at -O2 (its _mm512_undefined_* idiom) where it is inlined here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define XXH_VECTOR LOADERX_XXH3_VECTOR
#if defined(__SANITIZE_ADDRESS__)
#define LOADERX_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LOADERX_ADDRESS_SANITIZER 1
#endif
#endif
#include <immintrin.h>  // Its functions are always inlined, never emitted.
#include <xxhash.h>

namespace loaderx::checksum_internal {
namespace {

#if LOADERX_XXH3_VECTOR == 3
using Vector = __m512i;
inline Vector Load(const char* at) { return _mm512_loadu_si512(at); }
inline void Stream(char* at, Vector v) {
  _mm512_stream_si512(reinterpret_cast<Vector*>(at), v);
}
#else
using Vector = __m256i;
inline Vector Load(const char* at) {
  return _mm256_loadu_si256(reinterpret_cast<const Vector*>(at));
}
inline void Stream(char* at, Vector v) {
  _mm256_stream_si256(reinterpret_cast<Vector*>(at), v);
}
#endif

// Copies with stores that bypass the cache (non-temporal): the destination
// lines are written without being read first and without evicting what is
// cached. The bytes before the destination's first vector boundary, and
// after its last, are copied plainly. The stores are ordered only by the
// fence each caller ends with.
void StreamingCopy(char* destination, const char* source, size_t bytes) {
  constexpr size_t kWidth = sizeof(Vector);
  const size_t head =
      (kWidth - reinterpret_cast<uintptr_t>(destination) % kWidth) % kWidth;
  if (head >= bytes) {
    __builtin_memcpy(destination, source, bytes);
    return;
  }
  __builtin_memcpy(destination, source, head);
  size_t at = head;
  for (; at + 4 * kWidth <= bytes; at += 4 * kWidth) {
    const Vector a = Load(source + at);
    const Vector b = Load(source + at + kWidth);
    const Vector c = Load(source + at + 2 * kWidth);
    const Vector d = Load(source + at + 3 * kWidth);
    Stream(destination + at, a);
    Stream(destination + at + kWidth, b);
    Stream(destination + at + 2 * kWidth, c);
    Stream(destination + at + 3 * kWidth, d);
  }
  for (; at + kWidth <= bytes; at += kWidth) {
    Stream(destination + at, Load(source + at));
  }
  __builtin_memcpy(destination + at, source + at, bytes - at);
}

void CopyPiece(char* destination, const char* source, size_t bytes,
               bool bypass_cache) {
  if (bypass_cache) {
    StreamingCopy(destination, source, bytes);
  } else {
    __builtin_memcpy(destination, source, bytes);
  }
}

uint64_t HashAndCopyInPieces(const char* source, size_t size, char* destination,
                             size_t piece, bool bypass_cache) {
#if defined(LOADERX_ADDRESS_SANITIZER)
  // Under AddressSanitizer xxHash's streaming functions fault on an
  // aligned vector load (of their accumulators' aligned locals, with this
  // unit's instructions): there the record is hashed whole, below, and
  // still copied in pieces, so the copies are what the sanitizer checks.
  XXH3_state_t* const state = nullptr;
#else
  // Allocated by xxHash, 64-byte aligned for its vector loads.
  XXH3_state_t* const state = XXH3_createState();
#endif
  // Hash and copy in one pass over the source: each piece is copied while
  // the hash has just brought it into L1. Without a state (an allocation
  // failure) the record is hashed whole, then copied.
  if (state != nullptr) XXH3_64bits_reset(state);
  const uint64_t whole = state == nullptr ? XXH3_64bits(source, size) : 0;
  for (size_t at = 0; at < size; at += piece) {
    const size_t bytes = size - at < piece ? size - at : piece;
    if (state != nullptr) XXH3_64bits_update(state, source + at, bytes);
    CopyPiece(destination + at, source + at, bytes, bypass_cache);
  }
  // Non-temporal stores are weakly ordered: fence them before whatever
  // tells another thread the record is there.
  if (bypass_cache) _mm_sfence();
  if (state == nullptr) return whole;
  const uint64_t checksum = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return checksum;
}

uint64_t HashWhole(const void* bytes, size_t size) {
  return XXH3_64bits(bytes, size);
}

void CopyAroundCache(char* destination, const char* source, size_t size) {
  StreamingCopy(destination, source, size);
  _mm_sfence();
}

void Fence() { _mm_sfence(); }

}  // namespace

#if LOADERX_XXH3_VECTOR == 2
extern const VectorKernels kAvx2Kernels = {
    &HashWhole, &HashAndCopyInPieces, &CopyAroundCache, &StreamingCopy, &Fence};
#elif LOADERX_XXH3_VECTOR == 3
extern const VectorKernels kAvx512Kernels = {
    &HashWhole, &HashAndCopyInPieces, &CopyAroundCache, &StreamingCopy, &Fence};
#else
#error "LOADERX_XXH3_VECTOR must be 2 (AVX2) or 3 (AVX-512)"
#endif

}  // namespace loaderx::checksum_internal
