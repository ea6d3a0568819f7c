#include "loaderx/data_loader.h"

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "loaderx/spi/status_macros.h"
#include "src/checksum.h"
#include "src/loader_pipeline.h"
#include "src/mix64.h"

namespace loaderx {
namespace {

// "{'image': 10, 'label': 12}": every stream's size, as Python's loader
// names them.
std::string DescribeSizes(const std::vector<NamedStream>& streams) {
  return absl::StrCat(
      "{",
      absl::StrJoin(streams, ", ",
                    [](std::string* out, const NamedStream& named) {
                      absl::StrAppend(out, "'", named.name,
                                      "': ", named.stream->size());
                    }),
      "}");
}

absl::Status CheckStreams(const std::vector<NamedStream>& streams) {
  if (streams.empty()) {
    return absl::InvalidArgumentError("DataLoader: needs at least one stream");
  }
  std::set<std::string> names;
  for (const NamedStream& named : streams) {
    if (named.stream == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("DataLoader: stream '", named.name, "' is null"));
    }
    if (!names.insert(named.name).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "DataLoader: two streams are called '", named.name, "'"));
    }
    const StreamType& type = named.stream->type();
    if (type.item_size == 0 ||
        (type.kind == StreamKind::kRagged && !type.item_shape.empty())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "DataLoader: stream '", named.name, "' has a malformed type (",
          DTypeToString(type.dtype), ", item size ", type.item_size, ")"));
    }
  }
  const uint64_t size = streams.front().stream->size();
  for (const NamedStream& named : streams) {
    if (named.stream->size() != size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "DataLoader: all streams must hold the same number of records, "
          "got ",
          DescribeSizes(streams)));
    }
  }
  if (size == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "DataLoader: the streams hold no records: ", DescribeSizes(streams)));
  }
  return absl::OkStatus();
}

// Every stream's name, type and fingerprint, and the length, in one number
// (order matters: it is the batch's order).
uint64_t DatasetFingerprint(const std::vector<NamedStream>& streams) {
  uint64_t hash = Mix64(streams.front().stream->size());
  for (const NamedStream& named : streams) {
    const StreamType& type = named.stream->type();
    uint64_t shape = Checksum(DTypeToString(type.dtype));
    for (uint64_t dimension : type.item_shape) shape = Mix(shape, dimension, 1);
    hash = Mix(hash, Checksum(named.name), 2);
    hash = Mix(hash, shape ^ static_cast<uint64_t>(type.kind), 3);
    hash = Mix(hash, named.stream->fingerprint(), 4);
  }
  return hash;
}

}  // namespace

absl::StatusOr<std::unique_ptr<DataLoader>> DataLoader::Create(
    std::vector<NamedStream> streams, const DataLoaderOptions& options) {
  LOADERX_RETURN_IF_ERROR(CheckStreams(streams));
  if (options.prefetch < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "DataLoader: prefetch must be at least 1, got ", options.prefetch));
  }
  if (options.max_concurrent_gathers < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("DataLoader: max_concurrent_gathers must be at least 0, "
                     "got ",
                     options.max_concurrent_gathers));
  }
  absl::StatusOr<Sampler> sampler = Sampler::Create(
      streams.front().stream->size(), options.batch_size, options.mode,
      options.seed, SamplerShard{options.rank, options.world_size});
  if (!sampler.ok()) {
    return absl::Status(
        sampler.status().code(),
        absl::StrCat("DataLoader: ", sampler.status().message()));
  }

  DataLoaderOptions resolved = options;
  if (resolved.thread_pool == nullptr) {
    resolved.thread_pool = DefaultThreadPool();
  }
  if (resolved.max_concurrent_gathers == 0) {
    resolved.max_concurrent_gathers = resolved.thread_pool->concurrency();
  }
  resolved.max_concurrent_gathers =
      std::min(resolved.max_concurrent_gathers, resolved.prefetch);

  const uint64_t fingerprint = DatasetFingerprint(streams);
  std::vector<StreamSpec> specs;
  std::vector<std::shared_ptr<const StreamSpec>> shared_specs;
  std::vector<std::shared_ptr<const LoaderStream>> sources;
  for (NamedStream& named : streams) {
    specs.push_back(StreamSpec{named.name, named.stream->type()});
    shared_specs.push_back(std::make_shared<const StreamSpec>(specs.back()));
    sources.push_back(std::move(named.stream));
  }
  auto pipeline = std::make_shared<LoaderPipeline>(
      std::move(sources), std::move(shared_specs), sampler->batch_length(),
      *resolved.thread_pool, resolved);
  return std::unique_ptr<DataLoader>(
      new DataLoader(*std::move(sampler), std::move(specs), std::move(resolved),
                     std::move(pipeline), fingerprint));
}

DataLoader::DataLoader(Sampler sampler, std::vector<StreamSpec> specs,
                       DataLoaderOptions options,
                       std::shared_ptr<LoaderPipeline> pipeline,
                       uint64_t fingerprint)
    : sampler_(std::move(sampler)),
      specs_(std::move(specs)),
      options_(std::move(options)),
      pipeline_(std::move(pipeline)),
      step_(sampler_.step()),
      fingerprint_(fingerprint) {}

LoaderState DataLoader::state() const {
  return LoaderState{step_,
                     sampler_.seed(),
                     sampler_.mode(),
                     sampler_.batch_size(),
                     sampler_.length(),
                     fingerprint_};
}

absl::Status DataLoader::Restore(const LoaderState& saved) {
  LOADERX_RETURN_IF_ERROR(CheckResumable(saved, state()));
  return Seek(saved.step);
}

DataLoader::~DataLoader() { Close(); }

absl::Status DataLoader::Refill() {
  while (std::unique_ptr<BatchSlot> slot = pipeline_->AcquireSlot()) {
    const uint64_t step = sampler_.step();
    absl::StatusOr<size_t> drawn = sampler_.Next(slot->mutable_indices());
    if (!drawn.ok()) return drawn.status();  // Slots hold batch_length().
    slot->Assign(step, *drawn);
    pipeline_->Enqueue(std::move(slot));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Batch>> DataLoader::Next() {
  for (;;) {
    LOADERX_RETURN_IF_ERROR(Refill());
    LoaderPipeline::Taken taken = pipeline_->TakeOldest();
    switch (taken.outcome) {
      case LoaderPipeline::Taken::Outcome::kClosed:
        return std::move(taken.batch);
      case LoaderPipeline::Taken::Outcome::kNoneQueued:
        continue;
      case LoaderPipeline::Taken::Outcome::kStep:
        ++step_;
        // Start the following steps before the consumer gets to work. A
        // failure here would recur, and be reported, in the next call.
        Refill().IgnoreError();
        return std::move(taken.batch);
    }
  }
}

absl::Status DataLoader::Seek(uint64_t step) {
  if (pipeline_->closed()) {
    return absl::FailedPreconditionError("the loader is closed");
  }
  pipeline_->DiscardAll();
  sampler_.Seek(step);
  step_ = sampler_.step();
  return absl::OkStatus();
}

void DataLoader::Close() { pipeline_->Close(); }

DataLoaderStats DataLoader::stats() const { return pipeline_->stats(); }

}  // namespace loaderx
