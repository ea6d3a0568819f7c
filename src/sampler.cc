#include "loaderx/sampler.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "src/feistel_permutation.h"
#include "src/keyed_random.h"
#include "src/mix64.h"
#include "src/sfc64.h"

namespace loaderx {
namespace {

bool KnownMode(SamplerMode mode) {
  switch (mode) {
    case SamplerMode::kSequential:
    case SamplerMode::kIid:
    case SamplerMode::kCyclic:
    case SamplerMode::kIidKeyed:
      return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<Sampler> Sampler::Create(uint64_t length, uint64_t batch_size,
                                        SamplerMode mode, uint64_t seed) {
  return Create(length, batch_size, mode, seed, SamplerShard{});
}

absl::StatusOr<Sampler> Sampler::Create(uint64_t length, uint64_t batch_size,
                                        SamplerMode mode, uint64_t seed,
                                        SamplerShard shard) {
  if (length == 0 || batch_size == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("sampler: length (", length, ") and batch size (",
                     batch_size, ") must both be positive"));
  }
  if (!KnownMode(mode)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sampler: unknown mode ", static_cast<int>(mode),
        "; modes: 0 (sequential), 1 (iid), 2 (cyclic), 3 (iid_keyed)"));
  }
  if (shard.world_size == 0 || shard.rank >= shard.world_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("sampler: rank ", shard.rank,
                     " is outside a world of size ", shard.world_size));
  }
  if (batch_size % shard.world_size != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sampler: the world size (", shard.world_size,
        ") must divide the global batch size (", batch_size,
        "): every rank reads batch_size / world_size records of each step"));
  }
  return Sampler(length, batch_size, mode, seed, shard);
}

Sampler::Sampler(uint64_t length, uint64_t batch_size, SamplerMode mode,
                 uint64_t seed, SamplerShard shard)
    : length_(length),
      batch_size_(batch_size),
      mode_(mode),
      seed_(seed),
      shard_(shard),
      usable_(length >= batch_size ? length / batch_size * batch_size
                                   : length) {
  state_.generator = Sfc64(seed).ToWords();
}

uint64_t Sampler::global_batch_length() const {
  return mode_ == SamplerMode::kCyclic ? std::min(batch_size_, length_)
                                       : batch_size_;
}

uint64_t Sampler::batch_length() const {
  if (shard_.world_size == 1) return global_batch_length();
  return std::min(batch_size_ / shard_.world_size, global_batch_length());
}

uint64_t Sampler::batches_per_cycle() const {
  // ceil(usable / batch_size), as 1.7.7 computes it: usable is a multiple
  // of the batch size, or below it.
  return usable_ / batch_size_ + (usable_ % batch_size_ != 0);
}

absl::Status Sampler::CheckDestination(absl::Span<uint64_t> out) const {
  if (out.size() < batch_length()) {
    return absl::InvalidArgumentError(
        absl::StrCat("sampler: the destination holds ", out.size(),
                     " indices, a batch is ", batch_length()));
  }
  return absl::OkStatus();
}

absl::StatusOr<size_t> Sampler::Next(absl::Span<uint64_t> out) {
  if (absl::Status status = CheckDestination(out); !status.ok()) {
    return status;
  }
  return FillShard(state_, out);
}

absl::StatusOr<size_t> Sampler::Batch(uint64_t step,
                                      absl::Span<uint64_t> out) const {
  if (absl::Status status = CheckDestination(out); !status.ok()) {
    return status;
  }
  State state = state_;
  SeekState(state, step);
  return FillShard(state, out);
}

size_t Sampler::FillShard(State& state, absl::Span<uint64_t> out) const {
  if (shard_.world_size == 1) return FillBatch(state, out);
  std::vector<uint64_t> global(global_batch_length());
  const size_t count = FillBatch(state, absl::MakeSpan(global));
  const uint64_t slice = batch_size_ / shard_.world_size;
  const size_t first = std::min<uint64_t>(shard_.rank * slice, count);
  const size_t last = std::min<uint64_t>(first + slice, count);
  std::copy(global.begin() + first, global.begin() + last, out.begin());
  return last - first;
}

void Sampler::Seek(uint64_t step) { SeekState(state_, step); }

void Sampler::SeekState(State& state, uint64_t step) const {
  state.step = step;
  switch (mode_) {
    case SamplerMode::kSequential:
      state.cursor = step * batch_size_ % length_;  // step * B wraps.
      return;
    case SamplerMode::kIid: {
      // 1.7.7 re-seeds and throws away step * B draws (wrapping). The same
      // stream, so a forward seek can continue from where `state` is.
      const uint64_t target = step * batch_size_;
      Sfc64 random = Sfc64::FromWords(state.generator);
      if (target < state.draws) {
        random = Sfc64(seed_);
        state.draws = 0;
      }
      random.DiscardDraws(length_, target - state.draws);
      state.generator = random.ToWords();
      state.draws = target;
      return;
    }
    case SamplerMode::kCyclic: {
      const uint64_t per_cycle = batches_per_cycle();
      state.cycle = step / per_cycle;
      state.cursor = step % per_cycle * batch_size_;
      return;
    }
    case SamplerMode::kIidKeyed:
      return;  // Every batch is keyed by its step alone.
  }
}

size_t Sampler::FillBatch(State& state, absl::Span<uint64_t> out) const {
  size_t count = batch_size_;
  switch (mode_) {
    case SamplerMode::kSequential:
      // Wrapping additions, as 1.7.7 (they matter only near 2^64).
      for (size_t i = 0; i < count; ++i) {
        out[i] = (state.cursor + i) % length_;
      }
      state.cursor = (state.cursor + batch_size_) % length_;
      break;
    case SamplerMode::kIid: {
      Sfc64 random = Sfc64::FromWords(state.generator);
      for (size_t i = 0; i < count; ++i) out[i] = random.UintLessThan(length_);
      state.generator = random.ToWords();
      state.draws += batch_size_;
      break;
    }
    case SamplerMode::kCyclic: {
      count = std::min(batch_size_, usable_ - state.cursor);
      const FeistelPermutation permutation(length_, Mix(seed_, state.cycle, 0));
      for (size_t i = 0; i < count; ++i) {
        out[i] = permutation(state.cursor + i);
      }
      state.cursor += count;
      if (state.cursor >= usable_) {
        state.cursor = 0;
        ++state.cycle;
      }
      break;
    }
    case SamplerMode::kIidKeyed: {
      KeyedRandom random(seed_, state.step);
      for (size_t i = 0; i < count; ++i) out[i] = random.Below(length_);
      break;
    }
  }
  ++state.step;
  return count;
}

}  // namespace loaderx
