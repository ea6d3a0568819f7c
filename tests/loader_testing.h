// What the DataLoader tests share: a `LoaderStream` whose records are their
// own indices (with a hook to fail, block or count a gather), stores whose
// records encode their index in every byte, and the batches a sampler draws
// on its own, to compare a loader against.

#ifndef LOADERX_TESTS_LOADER_TESTING_H_
#define LOADERX_TESTS_LOADER_TESTING_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "loaderx/loader_stream.h"
#include "loaderx/sampler.h"
#include "loaderx/spi/little_endian.h"

namespace loaderx {

// Dense "<u8" scalar records: record i holds the value i. `hook`, if set,
// runs first on every gather (from whichever thread gathers) and its error,
// if any, is the gather's.
class IndexStream final : public LoaderStream {
 public:
  using Hook = std::function<absl::Status(absl::Span<const uint64_t>)>;

  explicit IndexStream(uint64_t size, Hook hook = nullptr)
      : size_(size), hook_(std::move(hook)) {
    type_.kind = StreamKind::kDense;
    type_.dtype = DType::Simple("<u8");
    type_.item_size = 8;
  }

  const StreamType& type() const override { return type_; }
  uint64_t size() const override { return size_; }

  absl::Status Gather(absl::Span<const uint64_t> indices,
                      StreamBatch& out) const override {
    if (hook_) {
      if (absl::Status status = hook_(indices); !status.ok()) return status;
    }
    absl::StatusOr<absl::Span<char>> buffer = out.PrepareDense(indices.size());
    if (!buffer.ok()) return buffer.status();
    for (size_t i = 0; i < indices.size(); ++i) {
      StoreLittle<uint64_t>(buffer->data() + 8 * i, indices[i]);
    }
    return absl::OkStatus();
  }

 private:
  const uint64_t size_;
  const Hook hook_;
  StreamType type_;
};

// `stream` shared without ownership: it must outlive the loader.
inline std::shared_ptr<const LoaderStream> Unowned(const LoaderStream& stream) {
  return std::shared_ptr<const LoaderStream>(&stream,
                                             [](const LoaderStream*) {});
}

// Element `e` of record `i` in the encoded stores below: the index in the
// high bits, the element's position in the low ones.
inline uint32_t EncodedValue(uint64_t i, uint64_t e) {
  return static_cast<uint32_t>(i * 1024 + e);
}

// A ragged record's shape: (1 + i % 5, 2), so neighbours differ in size.
inline std::vector<uint64_t> RaggedShapeFor(uint64_t i) {
  return {1 + i % 5, 2};
}

// The batches steps [first, first + count) hold, from a sampler of its own.
inline std::vector<std::vector<uint64_t>> SamplerSteps(
    uint64_t length, uint64_t batch_size, SamplerMode mode, uint64_t seed,
    uint64_t first, uint64_t count) {
  Sampler sampler = Sampler::Create(length, batch_size, mode, seed).value();
  sampler.Seek(first);
  std::vector<std::vector<uint64_t>> steps;
  for (uint64_t s = 0; s < count; ++s) {
    std::vector<uint64_t> batch(sampler.batch_length());
    batch.resize(sampler.Next(absl::MakeSpan(batch)).value());
    steps.push_back(std::move(batch));
  }
  return steps;
}

}  // namespace loaderx

#endif  // LOADERX_TESTS_LOADER_TESTING_H_
