#include "src/checksum.h"

#include <xxhash.h>

#include <memory>
#include <new>

// Linux links Debian's libxxhash, whose `_dispatch` entry points pick the
// widest vector unit at run time (2-3x the plain ones' speed on AVX2); the
// values are the same either way (see bazel/system_libs.BUILD).
#if defined(LOADERX_XXH3_DISPATCH)
#include <xxh_x86dispatch.h>
#define LOADERX_XXH3_64(data, size) XXH3_64bits_dispatch(data, size)
#define LOADERX_XXH3_UPDATE(state, data, size) \
  XXH3_64bits_update_dispatch(state, data, size)
#else
#define LOADERX_XXH3_64(data, size) XXH3_64bits(data, size)
#define LOADERX_XXH3_UPDATE(state, data, size) \
  XXH3_64bits_update(state, data, size)
#endif

namespace loaderx {

struct ChecksumStream::State {
  State() : xxh3(XXH3_createState()) {
    // Allocation is the only way this fails: report it like `new` does.
    if (xxh3 == nullptr) throw std::bad_alloc();
    XXH3_64bits_reset(xxh3);
  }
  ~State() { XXH3_freeState(xxh3); }
  XXH3_state_t* const xxh3;
};

uint64_t Checksum(absl::string_view bytes) {
  return LOADERX_XXH3_64(bytes.data(), bytes.size());
}

ChecksumStream::ChecksumStream() : state_(std::make_unique<State>()) {}

ChecksumStream::~ChecksumStream() = default;

void ChecksumStream::Update(absl::string_view bytes) {
  LOADERX_XXH3_UPDATE(state_->xxh3, bytes.data(), bytes.size());
}

uint64_t ChecksumStream::Digest() const {
  return XXH3_64bits_digest(state_->xxh3);
}

}  // namespace loaderx
