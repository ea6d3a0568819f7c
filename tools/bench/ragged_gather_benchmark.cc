// Ragged against dense batch reads of the same bytes: what a record's own
// shape costs on the read path. Two raw stores on the POSIX VFS, warm page
// cache:
//
//   dense_gather               DenseStore::Gather of B records of W bytes
//                              into one buffer (the baseline)
//   ragged_read                RaggedStore::Read of B records: one pass over
//                              the record table, every shape checked, then
//                              the payloads decoded into one buffer
//   ragged_shapes_then_gather  RaggedStore::Shapes, then Gather into the
//                              caller's per-record slots (two calls, two
//                              passes over the table)
//   ragged_gather_only         Gather into per-record slots of shapes
//                              learnt before timing: the payload pass
//                              alone, without the shape records
//
// The ragged records come in pairs of W + d and W - d bytes (d varying up
// to W / 2), shaped (rows, 64), and a plan draws whole pairs (in shuffled
// order), so every ragged batch holds exactly the bytes of the dense batch
// it is compared with: B * W. Every contender reads the same planned batches,
// each checked byte for byte (and shape for shape) before timing. The ratio of
// each contender to `dense_gather` is printed after the table.
//
//   bazel build --config=opt //tools/bench:ragged_gather_benchmark
//   bazel-bin/tools/bench/ragged_gather_benchmark --records=1024
//       --record_kib=64 --batch=256 --dir=/tmp   (one line)

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "loaderx/dense_store.h"
#include "loaderx/ragged_store.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/thread_pool.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "tools/bench/bench_data.h"
#include "tools/bench/benchmark_support.h"

namespace loaderx {
namespace {

constexpr uint64_t kRowBytes = 64;

struct Settings {
  uint64_t records = 1024;  // Even: ragged records come in pairs.
  uint64_t record_kib = 64;
  uint64_t batch = 256;  // Even, for the same reason.
  uint64_t plan_batches = 20;
  // Threads of the shared pool (0: the default, one per core). 1 runs every
  // read on the calling thread: on a busy machine, its CPU time is the
  // steadier measure of what each path costs.
  uint64_t threads = 0;
  // The paired comparison after the table (0 rounds: none).
  uint64_t paired_rounds = 9;
  uint64_t paired_passes = 5;
  std::string dir = "/tmp";
};

Settings& GetSettings() {
  static Settings settings;
  return settings;
}

uint64_t Width() { return GetSettings().record_kib << 10; }

// Record i of the ragged store holds `RaggedBytes(i)` bytes; pairs 2j and
// 2j + 1 together hold 2W.
uint64_t RaggedBytes(uint64_t i) {
  const uint64_t rows = Width() / kRowBytes;
  std::mt19937_64 random(i / 2);
  const uint64_t delta = random() % (rows / 2 + 1);
  return (i % 2 == 0 ? rows + delta : rows - delta) * kRowBytes;
}

struct Fixture {
  std::unique_ptr<Vfs> vfs;
  std::unique_ptr<DenseStore> dense;
  std::unique_ptr<RaggedStore> ragged;
  std::vector<std::string> dense_records;
  std::vector<std::string> ragged_records;
  std::vector<std::vector<uint64_t>> plan;
  std::string error;
};

absl::Status Build(Fixture& f) {
  const Settings& s = GetSettings();
  LOADERX_ASSIGN_OR_RETURN(f.vfs, CreateVfs("posix"));
  StoreOptions raw;
  raw.codec = "raw";
  const std::string dense_dir = s.dir + "/loaderx_ragged_bench_dense";
  const std::string ragged_dir = s.dir + "/loaderx_ragged_bench_ragged";
  LOADERX_RETURN_IF_ERROR(RemoveStoreDirectory(*f.vfs, dense_dir));
  LOADERX_RETURN_IF_ERROR(RemoveStoreDirectory(*f.vfs, ragged_dir));
  const DType u1 = DType::Simple("|u1");
  LOADERX_ASSIGN_OR_RETURN(
      f.dense,
      DenseStore::Create(*f.vfs, dense_dir, TypeIdentity{u1, {Width()}}, raw));
  LOADERX_ASSIGN_OR_RETURN(f.ragged,
                           RaggedStore::Create(*f.vfs, ragged_dir, u1, raw));
  std::string dense_data;
  std::vector<RaggedRecord> ragged(s.records);
  for (uint64_t i = 0; i < s.records; ++i) {
    f.dense_records.push_back(ImageLikeRecord(i, Width()));
    dense_data += f.dense_records.back();
    f.ragged_records.push_back(ImageLikeRecord(i, RaggedBytes(i)));
  }
  for (uint64_t i = 0; i < s.records; ++i) {
    ragged[i] = RaggedRecord{f.ragged_records[i],
                             {RaggedBytes(i) / kRowBytes, kRowBytes}};
  }
  LOADERX_RETURN_IF_ERROR(f.dense->Append(dense_data).status());
  LOADERX_RETURN_IF_ERROR(f.ragged->Append(ragged).status());
  LOADERX_RETURN_IF_ERROR(f.dense->Sync());
  LOADERX_RETURN_IF_ERROR(f.ragged->Sync());
  // Whole pairs, drawn uniformly: every batch is B * W bytes either way.
  std::mt19937_64 random(42);
  for (uint64_t b = 0; b < s.plan_batches; ++b) {
    std::vector<uint64_t> batch;
    for (uint64_t k = 0; k < s.batch / 2; ++k) {
      const uint64_t pair = random() % (s.records / 2);
      batch.push_back(2 * pair);
      batch.push_back(2 * pair + 1);
    }
    // A pair's records need not be neighbours in the batch.
    std::shuffle(batch.begin(), batch.end(), random);
    f.plan.push_back(std::move(batch));
  }
  return absl::OkStatus();
}

Fixture& GetFixture() {
  static Fixture* fixture = [] {
    auto* f = new Fixture;
    if (absl::Status built = Build(*f); !built.ok()) {
      f->error = built.ToString();
    }
    return f;
  }();
  return *fixture;
}

// One way of reading a planned batch into `out` (exactly B * W bytes).
using ReadBatch = bool (*)(Fixture&, const std::vector<uint64_t>&,
                           std::vector<char>& out);

bool DenseGather(Fixture& f, const std::vector<uint64_t>& batch,
                 std::vector<char>& out) {
  return f.dense->Gather(batch, absl::MakeSpan(out)).ok();
}

bool RaggedRead(Fixture& f, const std::vector<uint64_t>& batch,
                std::vector<char>& out) {
  return f.ragged
      ->Read(batch,
             [&](uint64_t bytes) -> absl::StatusOr<absl::Span<char>> {
               if (bytes != out.size()) {
                 return absl::InternalError("the batch is not B * W bytes");
               }
               return absl::MakeSpan(out);
             })
      .ok();
}

bool RaggedShapesThenGather(Fixture& f, const std::vector<uint64_t>& batch,
                            std::vector<char>& out) {
  absl::StatusOr<std::vector<std::vector<uint64_t>>> shapes =
      f.ragged->Shapes(batch);
  if (!shapes.ok()) return false;
  std::vector<absl::Span<char>> slots(batch.size());
  uint64_t offset = 0;
  for (size_t k = 0; k < batch.size(); ++k) {
    const uint64_t bytes = (*shapes)[k][0] * (*shapes)[k][1];
    if (offset + bytes > out.size()) return false;
    slots[k] = absl::MakeSpan(out.data() + offset, bytes);
    offset += bytes;
  }
  return f.ragged->Gather(batch, slots).ok();
}

// `RaggedShapesThenGather` with the shapes learnt once, before timing.
bool RaggedGatherOnly(Fixture& f, const std::vector<uint64_t>& batch,
                      std::vector<char>& out) {
  std::vector<absl::Span<char>> slots(batch.size());
  uint64_t offset = 0;
  for (size_t k = 0; k < batch.size(); ++k) {
    const uint64_t bytes = f.ragged_records[batch[k]].size();
    if (offset + bytes > out.size()) return false;
    slots[k] = absl::MakeSpan(out.data() + offset, bytes);
    offset += bytes;
  }
  return f.ragged->Gather(batch, slots).ok();
}

// Whether `out` holds the batch's records back to back (and, for the
// ragged store, every record kept its shape).
bool Valid(Fixture& f, const std::vector<uint64_t>& batch,
           const std::vector<char>& out, bool ragged) {
  uint64_t offset = 0;
  for (uint64_t index : batch) {
    const std::string& want =
        ragged ? f.ragged_records[index] : f.dense_records[index];
    if (offset + want.size() > out.size() ||
        std::memcmp(out.data() + offset, want.data(), want.size()) != 0) {
      return false;
    }
    offset += want.size();
  }
  if (!ragged) return offset == out.size();
  absl::StatusOr<std::vector<std::vector<uint64_t>>> shapes =
      f.ragged->Shapes(batch);
  if (!shapes.ok()) return false;
  for (size_t k = 0; k < batch.size(); ++k) {
    const std::vector<uint64_t> want = {RaggedBytes(batch[k]) / kRowBytes,
                                        kRowBytes};
    if ((*shapes)[k] != want) return false;
  }
  return offset == out.size();
}

void BM_Read(benchmark::State& state, ReadBatch read, bool ragged) {
  Fixture& f = GetFixture();
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return;
  }
  std::vector<char> out(GetSettings().batch * Width());
  for (const std::vector<uint64_t>& batch : f.plan) {
    std::fill(out.begin(), out.end(), '\x5a');
    if (!read(f, batch, out)) {
      state.SkipWithError("read failed");
      return;
    }
    if (!Valid(f, batch, out, ragged)) {
      state.SkipWithError("a batch differs from its source records");
      return;
    }
  }
  size_t next = 0;
  for (auto _ : state) {
    if (!read(f, f.plan[next], out)) {
      state.SkipWithError("read failed");
      break;
    }
    benchmark::DoNotOptimize(out.data());
    next = (next + 1) % f.plan.size();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(out.size()));
}

// Paired rounds: each contender's reads alternate with dense reads of the
// same planned batches, batch by batch (which goes first alternating too),
// so both meet the same machine; a round's ratio is the dense time over
// the contender's, summed over the plan `passes` times. Slow drifts in a
// shared machine's memory bandwidth, which move the separate runs above
// by tens of percent, cancel out here.
void PrintPairedRatios(const ReadBatch* contenders, const char* const* names,
                       size_t count, uint64_t rounds, uint64_t passes) {
  Fixture& f = GetFixture();
  if (!f.error.empty() || rounds == 0) return;
  std::vector<char> out(GetSettings().batch * Width());
  auto timed = [&](ReadBatch read, const std::vector<uint64_t>& batch) {
    const auto start = std::chrono::steady_clock::now();
    const bool ok = read(f, batch, out);
    benchmark::DoNotOptimize(out.data());
    const std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - start;
    return ok ? took.count() : -1.0;
  };
  std::printf(
      "\npaired with dense_gather, batch by batch (%llu rounds of %llu "
      "passes over the plan; min / median / max of the rounds):\n",
      static_cast<unsigned long long>(rounds),
      static_cast<unsigned long long>(passes));
  for (size_t c = 0; c < count; ++c) {
    std::vector<double> ratios;
    for (uint64_t r = 0; r < rounds; ++r) {
      double dense = 0, contender = 0;
      bool dense_first = (r % 2) == 0;
      for (uint64_t p = 0; p < passes; ++p) {
        for (const std::vector<uint64_t>& batch : f.plan) {
          const double a =
              timed(dense_first ? &DenseGather : contenders[c], batch);
          const double b =
              timed(dense_first ? contenders[c] : &DenseGather, batch);
          if (a < 0 || b < 0) {
            std::printf("  %-28s read failed\n", names[c]);
            return;
          }
          dense += dense_first ? a : b;
          contender += dense_first ? b : a;
          dense_first = !dense_first;
        }
      }
      ratios.push_back(dense / contender);
    }
    std::sort(ratios.begin(), ratios.end());
    std::printf("  %-28s %5.2fx / %5.2fx / %5.2fx\n", names[c], ratios.front(),
                ratios[ratios.size() / 2], ratios.back());
  }
}

}  // namespace
}  // namespace loaderx

int main(int argc, char** argv) {
  loaderx::Settings& s = loaderx::GetSettings();
  auto number = [](uint64_t& field) {
    return [&field](const char* v) { field = std::strtoull(v, nullptr, 10); };
  };
  std::vector<char*> rest =
      loaderx::TakeFlags(argc, argv,
                         {{"--records", number(s.records)},
                          {"--record_kib", number(s.record_kib)},
                          {"--batch", number(s.batch)},
                          {"--plan_batches", number(s.plan_batches)},
                          {"--threads", number(s.threads)},
                          {"--paired_rounds", number(s.paired_rounds)},
                          {"--paired_passes", number(s.paired_passes)},
                          {"--dir", [&](const char* v) { s.dir = v; }}});
  if (s.records < 2 || s.records % 2 != 0 || s.batch < 2 || s.batch % 2 != 0 ||
      s.record_kib == 0 || s.plan_batches == 0) {
    std::fprintf(stderr,
                 "--records and --batch must be even and at least 2; "
                 "--record_kib and --plan_batches positive\n");
    return 2;
  }
  if (s.threads > 0)
    loaderx::SetDefaultThreadCount(static_cast<int>(s.threads));
  const struct {
    const char* name;
    loaderx::ReadBatch read;
    bool ragged;
  } contenders[] = {
      {"dense_gather", &loaderx::DenseGather, false},
      {"ragged_read", &loaderx::RaggedRead, true},
      {"ragged_shapes_then_gather", &loaderx::RaggedShapesThenGather, true},
      {"ragged_gather_only", &loaderx::RaggedGatherOnly, true}};
  for (const auto& contender : contenders) {
    benchmark::RegisterBenchmark(contender.name, loaderx::BM_Read,
                                 contender.read, contender.ragged)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  int benchmark_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&benchmark_argc, rest.data());
  loaderx::RatioReporter reporter(
      "dense_gather",
      absl::StrCat("raw stores, batch ", s.batch, " x ", s.record_kib,
                   " KiB on average, ", s.records, " records, ",
                   loaderx::DefaultThreadCount(), " threads, warm cache"));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  if (reporter.failed()) return 1;
  const loaderx::ReadBatch paired[] = {&loaderx::RaggedRead,
                                       &loaderx::RaggedShapesThenGather,
                                       &loaderx::RaggedGatherOnly};
  const char* const paired_names[] = {
      "ragged_read", "ragged_shapes_then_gather", "ragged_gather_only"};
  loaderx::PrintPairedRatios(paired, paired_names, 3, s.paired_rounds,
                             s.paired_passes);
  return 0;
}
