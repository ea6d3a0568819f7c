#include "src/checksum.h"

#include <xxhash.h>

#include <cstring>
#include <memory>
#include <new>

// XXH_INLINE_ALL (bazel/system_libs.BUILD): every call compiles inline.

namespace loaderx {
namespace checksum_internal {

#if defined(LOADERX_XXH3_DISPATCH)
// checksum_vector.cc, compiled for each unit.
uint64_t HashLongAvx2(const void* bytes, size_t size);
uint64_t HashLongAvx512(const void* bytes, size_t size);
uint64_t HashAndCopyAvx2(const char* source, size_t size, char* destination,
                         size_t piece, bool bypass_cache);
uint64_t HashAndCopyAvx512(const char* source, size_t size, char* destination,
                           size_t piece, bool bypass_cache);
void CopyAroundCacheAvx2(char* destination, const char* source, size_t size);
void CopyAroundCacheAvx512(char* destination, const char* source, size_t size);
#endif

namespace {

uint64_t HashLongSse2(const void* bytes, size_t size) {
  return XXH3_64bits(bytes, size);
}

// Without AVX2 (or off x86) the record is hashed whole, then copied.
uint64_t HashWholeThenCopy(const char* source, size_t size, char* destination,
                           size_t /*piece*/, bool /*bypass_cache*/) {
  const uint64_t checksum = XXH3_64bits(source, size);
  std::memcpy(destination, source, size);
  return checksum;
}

void PlainCopy(char* destination, const char* source, size_t size) {
  std::memcpy(destination, source, size);
}

}  // namespace

HashFunction LongInputHash() {
#if defined(LOADERX_XXH3_DISPATCH)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return &HashLongAvx512;
  if (__builtin_cpu_supports("avx2")) return &HashLongAvx2;
#endif
  return &HashLongSse2;
}

HashAndCopyFunction PiecewiseHashAndCopy() {
#if defined(LOADERX_XXH3_DISPATCH)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return &HashAndCopyAvx512;
  if (__builtin_cpu_supports("avx2")) return &HashAndCopyAvx2;
#endif
  return &HashWholeThenCopy;
}

CopyFunction CopyAroundCache() {
#if defined(LOADERX_XXH3_DISPATCH)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return &CopyAroundCacheAvx512;
  if (__builtin_cpu_supports("avx2")) return &CopyAroundCacheAvx2;
#endif
  return &PlainCopy;
}

}  // namespace checksum_internal

struct ChecksumStream::State {
  State() : xxh3(XXH3_createState()) {
    // Allocation is the only way this fails: report it like `new` does.
    if (xxh3 == nullptr) throw std::bad_alloc();
    XXH3_64bits_reset(xxh3);
  }
  ~State() { XXH3_freeState(xxh3); }
  XXH3_state_t* const xxh3;
};

ChecksumStream::ChecksumStream() : state_(std::make_unique<State>()) {}

ChecksumStream::~ChecksumStream() = default;

void ChecksumStream::Update(absl::string_view bytes) {
  XXH3_64bits_update(state_->xxh3, bytes.data(), bytes.size());
}

uint64_t ChecksumStream::Digest() const {
  return XXH3_64bits_digest(state_->xxh3);
}

}  // namespace loaderx
