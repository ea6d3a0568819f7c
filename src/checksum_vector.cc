// XXH3-64 of long inputs compiled for one vector unit: xxHash's own
// AVX2 or AVX-512 accumulate loop (its `XXH_VECTOR` knob), selected when
// this file is compiled (`LOADERX_XXH3_VECTOR`, 2 or 3, with the matching
// -mavx2 / -mavx512f in src/BUILD.bazel). `checksum.cc` calls it only on a
// CPU that has that unit. Every vector unit gives the same hash. Nothing
// else is included: an inline function from a shared header compiled here
// could be the copy the linker keeps for every caller, with instructions
// other CPUs lack (xxHash's functions are static under XXH_INLINE_ALL).

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

#if LOADERX_XXH3_VECTOR == 2
uint64_t HashLongAvx2(const void* bytes, size_t size) {
  return XXH3_64bits(bytes, size);
}
#elif LOADERX_XXH3_VECTOR == 3
uint64_t HashLongAvx512(const void* bytes, size_t size) {
  return XXH3_64bits(bytes, size);
}
#else
#error "LOADERX_XXH3_VECTOR must be 2 (AVX2) or 3 (AVX-512)"
#endif

}  // namespace loaderx::checksum_internal
