#include "loaderx/loader_state.h"

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace loaderx {
namespace {

absl::Status Mismatch(absl::string_view field, uint64_t saved, uint64_t current,
                      absl::string_view meaning) {
  return absl::InvalidArgumentError(
      absl::StrCat("loader state: the saved state's ", field, " is ", saved,
                   ", this loader's is ", current, " (", meaning,
                   "); resuming would read a different sequence"));
}

}  // namespace

absl::Status CheckResumable(const LoaderState& saved,
                            const LoaderState& current) {
  if (saved.fingerprint != current.fingerprint) {
    return Mismatch("dataset fingerprint", saved.fingerprint,
                    current.fingerprint,
                    "the state comes from another data set, or the data set "
                    "changed since it was saved");
  }
  if (saved.length != current.length) {
    return Mismatch("dataset length", saved.length, current.length,
                    "the data set has a different number of records");
  }
  if (saved.batch_size != current.batch_size) {
    return Mismatch("global batch size", saved.batch_size, current.batch_size,
                    "the batch size is global: keep it and change only the "
                    "world size");
  }
  if (saved.mode != current.mode) {
    return Mismatch("sampler mode", static_cast<uint64_t>(saved.mode),
                    static_cast<uint64_t>(current.mode), "another mode");
  }
  if (saved.seed != current.seed) {
    return Mismatch("seed", saved.seed, current.seed, "another seed");
  }
  return absl::OkStatus();
}

}  // namespace loaderx
