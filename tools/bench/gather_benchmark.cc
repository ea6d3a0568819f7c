// Random batch gather: the path a training loader pays on every step. The
// record engine (raw and zstd stores, sharded over the machine's threads)
// against the ways a flat file of the same records is read, in one run:
//
//   mmap_memcpy        memcpy each record out of an mmap'd file: what
//                      numpy fancy indexing on an np.load(mmap_mode='r')
//                      array does (the reference's npy-mmap-raw), the baseline
//   flat_pread         one pread per record from the flat file
//   engine_raw         RecordEngine::GatherFixed on a raw store
//   engine_raw_unverified  the same with `verify_checksums` off: what
//                      checking every record's XXH3 costs
//   engine_zstd        the same on a zstd store (decoded into the batch)
//
// Every contender gathers the same random index plan (IID from the
// sampler). Before timing, each gathers every planned batch once and is
// checked byte for byte against the source records. Warm page cache, as in
// the reference's tables. Structured, mildly compressible records.
//
//   bazel run --config=opt //tools:gather_benchmark -- --records=400
//       --record_kib=256 --batch=256 --dir=/tmp   (one line)
//   ... --records=65536 --record_bytes=64 --batch=4096   (small records)

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "loaderx/sampler.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "src/record_engine.h"
#include "tools/bench/bench_data.h"
#include "tools/bench/benchmark_support.h"

namespace loaderx {
namespace {

struct Settings {
  uint64_t records = 400;
  uint64_t record_kib = 256;
  // Overrides `record_kib` when set: small records (64 B: the score's
  // tiny-record workload) in C++, without Python's per-batch cost.
  uint64_t record_bytes = 0;
  uint64_t batch = 256;
  uint64_t plan_batches = 20;
  std::string dir = "/tmp";
};

Settings& GetSettings() {
  static Settings settings;
  return settings;
}

uint64_t RecordBytes() {
  const Settings& s = GetSettings();
  return s.record_bytes != 0 ? s.record_bytes : s.record_kib << 10;
}

std::string MakeRecord(uint64_t i) { return ImageLikeRecord(i, RecordBytes()); }

// The source records, the flat file, the stores and the index plan,
// built once for every benchmark.
struct Fixture {
  std::vector<std::string> records;
  std::vector<std::vector<uint64_t>> plan;
  std::unique_ptr<Vfs> vfs;
  std::unique_ptr<RecordEngine> raw;
  std::unique_ptr<RecordEngine> raw_unverified;
  std::unique_ptr<RecordEngine> zstd;
  int flat_fd = -1;
  const char* mapped = nullptr;
  std::string error;
};

absl::StatusOr<std::unique_ptr<RecordEngine>> BuildStore(
    Vfs& vfs, const std::string& dir, const std::string& codec,
    const std::vector<std::string>& records, bool verify = true) {
  LOADERX_RETURN_IF_ERROR(RemoveStoreDirectory(vfs, dir));
  RecordEngineOptions options;
  options.codec = codec;
  options.verify_checksums = verify;
  auto engine = RecordEngine::Create(vfs, dir, options);
  if (!engine.ok()) return engine.status();
  std::string data;
  for (const std::string& record : records) data += record;
  auto appended = (*engine)->AppendFixed(data, records.size(), RecordBytes());
  if (!appended.ok()) return appended.status();
  return engine;
}

Fixture& GetFixture() {
  static Fixture* fixture = [] {
    auto* f = new Fixture;
    const Settings& s = GetSettings();
    for (uint64_t i = 0; i < s.records; ++i)
      f->records.push_back(MakeRecord(i));
    auto sampler =
        Sampler::Create(s.records, s.batch, SamplerMode::kIid, /*seed=*/42);
    for (uint64_t b = 0; b < s.plan_batches && sampler.ok(); ++b) {
      std::vector<uint64_t> batch(sampler->batch_length());
      absl::StatusOr<size_t> count = sampler->Next(absl::MakeSpan(batch));
      if (!count.ok()) break;
      f->plan.emplace_back(batch.begin(), batch.begin() + *count);
    }
    f->vfs = CreateVfs("posix").value();
    auto raw =
        BuildStore(*f->vfs, s.dir + "/loaderx_gather_raw", "raw", f->records);
    auto zstd =
        BuildStore(*f->vfs, s.dir + "/loaderx_gather_zstd", "zstd", f->records);
    auto unverified =
        BuildStore(*f->vfs, s.dir + "/loaderx_gather_raw_unverified", "raw",
                   f->records, /*verify=*/false);
    for (const auto* built : {&raw, &zstd, &unverified}) {
      if (!built->ok()) {
        f->error = built->status().ToString();
        return f;
      }
    }
    f->raw = *std::move(raw);
    f->raw_unverified = *std::move(unverified);
    f->zstd = *std::move(zstd);
    if (auto stats = f->zstd->Stats(); stats.ok()) {
      const double original = static_cast<double>(s.records * RecordBytes());
      std::printf("zstd store: %.1f MiB for %.1f MiB of records (%.2fx)\n",
                  stats->live_bytes / double(1 << 20), original / (1 << 20),
                  original / stats->live_bytes);
    }
    const std::string flat = s.dir + "/loaderx_gather_flat.bin";
    std::string data;
    for (const std::string& record : f->records) data += record;
    if (!WriteStringToFile(*f->vfs, flat, data).ok()) {
      f->error = "cannot write the flat file";
      return f;
    }
    f->flat_fd = ::open(flat.c_str(), O_RDONLY | O_CLOEXEC);
    void* mapped =
        ::mmap(nullptr, data.size(), PROT_READ, MAP_SHARED, f->flat_fd, 0);
    f->mapped = mapped == MAP_FAILED ? nullptr : static_cast<char*>(mapped);
    if (f->flat_fd < 0 || f->mapped == nullptr) f->error = "cannot map it";
    return f;
  }();
  return *fixture;
}

// One way of gathering a batch into `out` (batch * record bytes).
using GatherBatch = bool (*)(Fixture&, const std::vector<uint64_t>&, char*);

bool MmapMemcpy(Fixture& f, const std::vector<uint64_t>& batch, char* out) {
  const uint64_t n = RecordBytes();
  for (size_t i = 0; i < batch.size(); ++i) {
    std::memcpy(out + i * n, f.mapped + batch[i] * n, n);
  }
  return true;
}

bool FlatPread(Fixture& f, const std::vector<uint64_t>& batch, char* out) {
  const uint64_t n = RecordBytes();
  for (size_t i = 0; i < batch.size(); ++i) {
    if (::pread(f.flat_fd, out + i * n, n, batch[i] * n) !=
        static_cast<ssize_t>(n)) {
      return false;
    }
  }
  return true;
}

bool EngineGather(const RecordEngine& engine,
                  const std::vector<uint64_t>& batch, char* out) {
  return engine
      .GatherFixed(batch, RecordBytes(),
                   absl::MakeSpan(out, batch.size() * RecordBytes()))
      .ok();
}

bool EngineRaw(Fixture& f, const std::vector<uint64_t>& batch, char* out) {
  return EngineGather(*f.raw, batch, out);
}

bool EngineRawUnverified(Fixture& f, const std::vector<uint64_t>& batch,
                         char* out) {
  return EngineGather(*f.raw_unverified, batch, out);
}

bool EngineZstd(Fixture& f, const std::vector<uint64_t>& batch, char* out) {
  return EngineGather(*f.zstd, batch, out);
}

void BM_Gather(benchmark::State& state, GatherBatch gather) {
  Fixture& f = GetFixture();
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return;
  }
  const uint64_t n = RecordBytes();
  std::vector<char> out(GetSettings().batch * n);
  // Validate every planned batch before timing.
  for (const std::vector<uint64_t>& batch : f.plan) {
    if (!gather(f, batch, out.data())) {
      state.SkipWithError("gather failed");
      return;
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      if (std::memcmp(out.data() + i * n, f.records[batch[i]].data(), n) != 0) {
        state.SkipWithError("a gathered record differs from its source");
        return;
      }
    }
  }
  size_t next = 0;
  for (auto _ : state) {
    if (!gather(f, f.plan[next], out.data())) {
      state.SkipWithError("gather failed");
      break;
    }
    benchmark::DoNotOptimize(out.data());
    next = (next + 1) % f.plan.size();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(out.size()));
}

}  // namespace
}  // namespace loaderx

int main(int argc, char** argv) {
  loaderx::Settings& s = loaderx::GetSettings();
  std::vector<char*> rest =
      loaderx::TakeFlags(argc, argv,
                         {{"--records", loaderx::UintFlag(s.records)},
                          {"--record_kib", loaderx::UintFlag(s.record_kib)},
                          {"--record_bytes", loaderx::UintFlag(s.record_bytes)},
                          {"--batch", loaderx::UintFlag(s.batch)},
                          {"--plan_batches", loaderx::UintFlag(s.plan_batches)},
                          {"--dir", loaderx::StringFlag(s.dir)}});
  if (s.records == 0 || s.record_kib == 0 || s.batch == 0 ||
      s.plan_batches == 0) {
    std::fprintf(stderr,
                 "--records, --record_kib, --batch and "
                 "--plan_batches must be positive\n");
    return 2;
  }
  const struct {
    const char* name;
    loaderx::GatherBatch gather;
  } contenders[] = {{"mmap_memcpy", &loaderx::MmapMemcpy},
                    {"flat_pread", &loaderx::FlatPread},
                    {"engine_raw", &loaderx::EngineRaw},
                    {"engine_raw_unverified", &loaderx::EngineRawUnverified},
                    {"engine_zstd", &loaderx::EngineZstd}};
  for (const auto& contender : contenders) {
    benchmark::RegisterBenchmark(contender.name, loaderx::BM_Gather,
                                 contender.gather)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  int benchmark_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&benchmark_argc, rest.data());
  loaderx::RatioReporter reporter(
      "mmap_memcpy", absl::StrCat(loaderx::RecordBytes(), " B records, batch ",
                                  s.batch, ", ", s.records, " records"));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return reporter.failed() ? 1 : 0;
}
