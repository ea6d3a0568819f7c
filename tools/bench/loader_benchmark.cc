// The C++ DataLoader's throughput: batches per second from a raw and a zstd
// DenseStore (warm page cache), against the bare gather of the same kind of
// batches on the calling thread, in one run:
//
//   store_gather_raw   each step's indices drawn and gathered by the caller
//                      into one reused page-aligned buffer (the stream
//                      adapter alone, no pipeline): the baseline
//   store_gather_zstd  the same from the zstd store
//   loader_raw         `DataLoader::Next` over the raw store, prefetching
//   loader_zstd        the same over the zstd store
//
// A loader step is a whole batch handed to the consumer, which does nothing
// with it but release the previous one, so the figure is the most a
// training loop could draw. Every contender runs the sampler's default mode
// (cyclic, seed 42). Before timing, each gathers `--validate_batches` steps
// and checks every record against the hash of its source. Peak RSS is
// printed at the end. Image-like, mildly compressible records.
//
//   bazel run --config=opt //tools/bench:loader_benchmark -- --records=400
//       --record_kib=256 --batch=256 --dir=/tmp   (one line)

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "benchmark/benchmark.h"
#include "loaderx/data_loader.h"
#include "loaderx/dense_store.h"
#include "loaderx/sampler.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/store_streams.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "tools/bench/bench_data.h"
#include "tools/bench/benchmark_support.h"

namespace loaderx {
namespace {

struct Settings {
  uint64_t records = 400;
  uint64_t record_kib = 256;
  uint64_t batch = 256;
  int prefetch = 4;
  int concurrent = 0;  // DataLoaderOptions::max_concurrent_gathers.
  uint64_t validate_batches = 4;
  std::string dir = "/tmp";
};

Settings& GetSettings() {
  static Settings settings;
  return settings;
}

uint64_t RecordBytes() { return GetSettings().record_kib << 10; }

size_t HashOf(absl::Span<const char> bytes) {
  return std::hash<std::string_view>()(
      std::string_view(bytes.data(), bytes.size()));
}

// The stores and their streams, built once; records are hashed as they are
// written, so nothing the size of the data set stays in memory.
struct Fixture {
  std::unique_ptr<Vfs> vfs;
  std::unique_ptr<DenseStore> raw;
  std::unique_ptr<DenseStore> zstd;
  std::unique_ptr<LoaderStream> raw_stream;
  std::unique_ptr<LoaderStream> zstd_stream;
  std::vector<size_t> hashes;  // Of every source record.
  std::string error;
};

absl::StatusOr<std::unique_ptr<DenseStore>> BuildStore(
    Vfs& vfs, const std::string& dir, const std::string& codec,
    std::vector<size_t>* hashes) {
  LOADERX_RETURN_IF_ERROR(RemoveStoreDirectory(vfs, dir));
  StoreOptions options;
  options.codec = codec;
  LOADERX_ASSIGN_OR_RETURN(
      std::unique_ptr<DenseStore> store,
      DenseStore::Create(vfs, dir,
                         TypeIdentity{DType::Simple("|u1"), {RecordBytes()}},
                         options));
  constexpr uint64_t kPerAppend = 16;
  for (uint64_t first = 0; first < GetSettings().records; first += kPerAppend) {
    std::string data;
    for (uint64_t i = first;
         i < std::min(first + kPerAppend, GetSettings().records); ++i) {
      std::string record = ImageLikeRecord(i, RecordBytes());
      if (hashes != nullptr) hashes->push_back(HashOf(record));
      data += record;
    }
    LOADERX_RETURN_IF_ERROR(store->Append(data).status());
  }
  return store;
}

Fixture& GetFixture() {
  static Fixture* fixture = [] {
    auto* f = new Fixture;
    const std::string dir = GetSettings().dir;
    f->vfs = CreateVfs("posix").value();
    auto raw =
        BuildStore(*f->vfs, dir + "/loaderx_loader_raw", "raw", &f->hashes);
    auto zstd =
        BuildStore(*f->vfs, dir + "/loaderx_loader_zstd", "zstd", nullptr);
    if (!raw.ok() || !zstd.ok()) {
      f->error = (raw.ok() ? zstd.status() : raw.status()).ToString();
      return f;
    }
    f->raw = *std::move(raw);
    f->zstd = *std::move(zstd);
    auto raw_stream = DenseStoreStream(*f->raw);
    auto zstd_stream = DenseStoreStream(*f->zstd);
    if (!raw_stream.ok() || !zstd_stream.ok()) {
      f->error = "cannot make the streams";
      return f;
    }
    f->raw_stream = *std::move(raw_stream);
    f->zstd_stream = *std::move(zstd_stream);
    return f;
  }();
  return *fixture;
}

// Whether `stream` holds the source records at `indices`.
bool HoldsSourceRecords(const Fixture& f, const StreamBatch& stream,
                        absl::Span<const uint64_t> indices) {
  if (stream.size() != indices.size()) return false;
  for (size_t r = 0; r < indices.size(); ++r) {
    if (HashOf(stream.record(r)) != f.hashes[indices[r]]) return false;
  }
  return true;
}

const LoaderStream& StreamFor(const Fixture& f, bool zstd) {
  return zstd ? *f.zstd_stream : *f.raw_stream;
}

void SetThroughput(benchmark::State& state) {
  const auto batches = static_cast<int64_t>(state.iterations());
  state.SetItemsProcessed(batches);  // Items are batches: batches/s.
  state.SetBytesProcessed(
      batches * static_cast<int64_t>(GetSettings().batch * RecordBytes()));
}

void BM_StoreGather(benchmark::State& state, bool zstd) {
  Fixture& f = GetFixture();
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return;
  }
  const LoaderStream& stream = StreamFor(f, zstd);
  absl::StatusOr<Sampler> sampler = Sampler::Create(
      GetSettings().records, GetSettings().batch, SamplerMode::kCyclic);
  if (!sampler.ok()) {
    state.SkipWithError(sampler.status().ToString().c_str());
    return;
  }
  StreamBatch batch(
      std::make_shared<const StreamSpec>(StreamSpec{"data", stream.type()}));
  std::vector<uint64_t> indices(sampler->batch_length());
  auto gather_next = [&]() -> bool {
    absl::StatusOr<size_t> drawn = sampler->Next(absl::MakeSpan(indices));
    return drawn.ok() &&
           stream.Gather(absl::MakeConstSpan(indices.data(), *drawn), batch)
               .ok();
  };
  for (uint64_t b = 0; b < GetSettings().validate_batches; ++b) {
    if (!gather_next() || !HoldsSourceRecords(f, batch, indices)) {
      state.SkipWithError("a gathered batch differs from its source");
      return;
    }
  }
  for (auto _ : state) {
    if (!gather_next()) {
      state.SkipWithError("gather failed");
      break;
    }
    benchmark::DoNotOptimize(batch.data());
  }
  SetThroughput(state);
}

void BM_Loader(benchmark::State& state, bool zstd) {
  Fixture& f = GetFixture();
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return;
  }
  const LoaderStream& stream = StreamFor(f, zstd);
  DataLoaderOptions options;
  options.batch_size = GetSettings().batch;
  options.prefetch = GetSettings().prefetch;
  options.max_concurrent_gathers = GetSettings().concurrent;
  absl::StatusOr<std::unique_ptr<DataLoader>> loader =
      DataLoader::Create({{"data", std::shared_ptr<const LoaderStream>(
                                       &stream, [](const LoaderStream*) {})}},
                         options);
  if (!loader.ok()) {
    state.SkipWithError(loader.status().ToString().c_str());
    return;
  }
  std::shared_ptr<Batch> batch;
  for (uint64_t b = 0; b < GetSettings().validate_batches; ++b) {
    absl::StatusOr<std::shared_ptr<Batch>> next = (*loader)->Next();
    if (!next.ok() || (*next)->step() != b ||
        !HoldsSourceRecords(f, (*next)->stream(0), (*next)->indices())) {
      state.SkipWithError("a loaded batch differs from its source");
      return;
    }
  }
  for (auto _ : state) {
    absl::StatusOr<std::shared_ptr<Batch>> next = (*loader)->Next();
    if (!next.ok()) {
      state.SkipWithError(next.status().ToString().c_str());
      break;
    }
    batch = *std::move(next);  // Releases the previous batch to the ring.
    benchmark::DoNotOptimize(batch->stream(0).data());
  }
  batch.reset();
  (*loader)->Close();
  SetThroughput(state);
}

}  // namespace
}  // namespace loaderx

int main(int argc, char** argv) {
  loaderx::Settings& s = loaderx::GetSettings();
  std::vector<char*> rest = loaderx::TakeFlags(
      argc, argv,
      {{"--records", loaderx::UintFlag(s.records)},
       {"--record_kib", loaderx::UintFlag(s.record_kib)},
       {"--batch", loaderx::UintFlag(s.batch)},
       {"--prefetch", loaderx::IntFlag(s.prefetch)},
       {"--concurrent", loaderx::IntFlag(s.concurrent)},
       {"--validate_batches", loaderx::UintFlag(s.validate_batches)},
       {"--dir", loaderx::StringFlag(s.dir)}});
  if (s.records == 0 || s.record_kib == 0 || s.batch == 0 || s.prefetch < 1 ||
      s.concurrent < 0) {
    std::fprintf(stderr,
                 "--records, --record_kib, --batch and --prefetch must be "
                 "positive, --concurrent at least 0\n");
    return 2;
  }
  const struct {
    const char* name;
    void (*run)(benchmark::State&, bool);
    bool zstd;
  } contenders[] = {{"store_gather_raw", &loaderx::BM_StoreGather, false},
                    {"store_gather_zstd", &loaderx::BM_StoreGather, true},
                    {"loader_raw", &loaderx::BM_Loader, false},
                    {"loader_zstd", &loaderx::BM_Loader, true}};
  for (const auto& contender : contenders) {
    benchmark::RegisterBenchmark(contender.name, contender.run, contender.zstd)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  int benchmark_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&benchmark_argc, rest.data());
  loaderx::RatioReporter reporter(
      "store_gather_raw",
      absl::StrCat(s.record_kib, " KiB records, batch ", s.batch, ", ",
                   s.records, " records, prefetch ", s.prefetch));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("peak RSS: %.1f MiB\n", usage.ru_maxrss / 1024.0);
  return reporter.failed() ? 1 : 0;
}
