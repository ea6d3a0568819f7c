#include "src/checksum.h"

#include <xxhash.h>

#include <cstring>
#include <memory>
#include <new>

// XXH_INLINE_ALL (bazel/system_libs.BUILD): every call compiles inline.

namespace loaderx {
namespace checksum_internal {

namespace {

// The baseline: xxHash's SSE2 loop on x86-64 (its scalar one elsewhere);
// a record is hashed whole, then copied, and copies are plain.
uint64_t HashWhole(const void* bytes, size_t size) {
  return XXH3_64bits(bytes, size);
}

uint64_t HashWholeThenCopy(const char* source, size_t size, char* destination,
                           size_t /*piece*/, bool /*bypass_cache*/) {
  const uint64_t checksum = XXH3_64bits(source, size);
  std::memcpy(destination, source, size);
  return checksum;
}

void PlainCopy(char* destination, const char* source, size_t size) {
  std::memcpy(destination, source, size);
}

void NoFence() {}

constexpr VectorKernels kBaselineKernels = {&HashWhole, &HashWholeThenCopy,
                                            &PlainCopy, &PlainCopy, &NoFence};

}  // namespace

const VectorKernels* KernelsFor(VectorUnit unit) {
  switch (unit) {
    case VectorUnit::kBaseline:
      return &kBaselineKernels;
#if defined(LOADERX_XXH3_DISPATCH)
    case VectorUnit::kAvx2:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx2") ? &kAvx2Kernels : nullptr;
    case VectorUnit::kAvx512:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx512f") ? &kAvx512Kernels : nullptr;
#endif
    default:
      return nullptr;
  }
}

const VectorKernels& BestKernels() {
  static const VectorKernels* const best = [] {
    for (VectorUnit unit : {VectorUnit::kAvx512, VectorUnit::kAvx2}) {
      if (const VectorKernels* kernels = KernelsFor(unit)) return kernels;
    }
    return &kBaselineKernels;
  }();
  return *best;
}

BlockCheck BestBlockCheck() {
  static const BlockCheck best = []() -> BlockCheck {
  // Not on Windows: MinGW's GCC does not align the stack for the 64-byte
  // vectors the block check keeps there (GCC bug 54412), and an aligned
  // spill would fault.
#if defined(LOADERX_XXH3_DISPATCH) && !defined(_WIN32)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq")) {
      return kAvx512BlockCheck;
    }
#endif
    return nullptr;
  }();
  return best;
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
