#include "loaderx/sampler.h"

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "src/feistel_permutation.h"
#include "src/keyed_random.h"

namespace loaderx {
namespace {

// Separates the cyclic mode's key space from the IID mode's streams, so the
// same seed does not give correlated choices in the two modes.
constexpr uint64_t kCyclicDomain = 0x6379636C6963ULL;  // "cyclic"

}  // namespace

absl::StatusOr<Sampler> Sampler::Create(uint64_t length, uint64_t batch_size,
                                        SamplerMode mode, uint64_t seed) {
  if (length == 0 || batch_size == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("sampler: length (", length, ") and batch size (",
                     batch_size, ") must both be positive"));
  }
  if (length > (uint64_t{1} << 63)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sampler: length ", length, " exceeds 2^63 (indices are int64)"));
  }
  switch (mode) {
    case SamplerMode::kSequential:
    case SamplerMode::kIid:
      break;
    case SamplerMode::kCyclic:
      if (batch_size > length) {
        return absl::InvalidArgumentError(absl::StrCat(
            "sampler: a cyclic batch of ", batch_size,
            " cannot be drawn without replacement from ", length, " indices"));
      }
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("sampler: unknown mode ", static_cast<int>(mode)));
  }
  return Sampler(length, batch_size, mode, seed);
}

absl::Status Sampler::Batch(uint64_t step, absl::Span<int64_t> out) const {
  if (out.size() != batch_size_) {
    return absl::InvalidArgumentError(
        absl::StrCat("sampler: destination holds ", out.size(),
                     " indices, the batch size is ", batch_size_));
  }
  switch (mode_) {
    case SamplerMode::kSequential:
      SequentialBatch(step, out);
      break;
    case SamplerMode::kIid:
      IidBatch(step, out);
      break;
    case SamplerMode::kCyclic:
      CyclicBatch(step, out);
      break;
  }
  return absl::OkStatus();
}

absl::Status Sampler::Next(absl::Span<int64_t> out) {
  if (absl::Status s = Batch(step_, out); !s.ok()) return s;
  ++step_;
  return absl::OkStatus();
}

void Sampler::SequentialBatch(uint64_t step, absl::Span<int64_t> out) const {
  // (step * batch_size) mod length, without overflow for any step.
  uint64_t index =
      static_cast<uint64_t>(static_cast<unsigned __int128>(step % length_) *
                            (batch_size_ % length_) % length_);
  for (int64_t& slot : out) {
    slot = static_cast<int64_t>(index);
    if (++index == length_) index = 0;
  }
}

void Sampler::IidBatch(uint64_t step, absl::Span<int64_t> out) const {
  KeyedRandom random(seed_, step);
  for (int64_t& slot : out) slot = static_cast<int64_t>(random.Below(length_));
}

void Sampler::CyclicBatch(uint64_t step, absl::Span<int64_t> out) const {
  const uint64_t per_cycle = batches_per_cycle();
  const uint64_t cycle = step / per_cycle;
  const FeistelPermutation permutation(
      length_, KeyedRandom(seed_ ^ kCyclicDomain, cycle).Next());
  uint64_t position = (step % per_cycle) * batch_size_;
  for (int64_t& slot : out) {
    slot = static_cast<int64_t>(permutation(position++));
  }
}

}  // namespace loaderx
