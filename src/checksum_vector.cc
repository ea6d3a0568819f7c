// XXH3-64 of long inputs compiled for one vector unit, in one call or
// piece by piece while the pieces are copied (`ChecksumAndCopy`): xxHash's
// own AVX2 or AVX-512 accumulate loop (its `XXH_VECTOR` knob), selected
// when this file is compiled (`LOADERX_XXH3_VECTOR`, 2 or 3, with the matching
// -mavx2 / -mavx512f in src/BUILD.bazel). `checksum.cc` calls it only on a
// CPU that has that unit. Every vector unit gives the same hash. Nothing
// else is included: an inline function from a shared header compiled here
// could be the copy the linker keeps for every caller, with instructions
// other CPUs lack (xxHash's functions are static under XXH_INLINE_ALL);
// the copy is the compiler's builtin, which calls the C library's memcpy.

#include <cstddef>
#include <cstdint>

// GCC 12's own avx512fintrin.h trips its (maybe-)uninitialized warnings
// at -O2 (its _mm512_undefined_* idiom) where it is inlined here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define XXH_VECTOR LOADERX_XXH3_VECTOR
#include <xxhash.h>

namespace loaderx::checksum_internal {
namespace {

uint64_t HashAndCopyInPieces(const char* source, size_t size, char* destination,
                             size_t piece) {
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_64bits_reset(&state);
  for (size_t at = 0; at < size; at += piece) {
    const size_t bytes = size - at < piece ? size - at : piece;
    XXH3_64bits_update(&state, source + at, bytes);
    __builtin_memcpy(destination + at, source + at, bytes);
  }
  return XXH3_64bits_digest(&state);
}

}  // namespace

#if LOADERX_XXH3_VECTOR == 2
uint64_t HashLongAvx2(const void* bytes, size_t size) {
  return XXH3_64bits(bytes, size);
}
uint64_t HashAndCopyAvx2(const char* source, size_t size, char* destination,
                         size_t piece) {
  return HashAndCopyInPieces(source, size, destination, piece);
}
#elif LOADERX_XXH3_VECTOR == 3
uint64_t HashLongAvx512(const void* bytes, size_t size) {
  return XXH3_64bits(bytes, size);
}
uint64_t HashAndCopyAvx512(const char* source, size_t size, char* destination,
                           size_t piece) {
  return HashAndCopyInPieces(source, size, destination, piece);
}
#else
#error "LOADERX_XXH3_VECTOR must be 2 (AVX2) or 3 (AVX-512)"
#endif

}  // namespace loaderx::checksum_internal
