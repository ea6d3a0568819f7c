// How the raw flush path should hand records to the filesystem. The store
// packs contiguous records into vectored writes capped at `flush_bytes`
// (256 KiB in the reference design) so the syscall size is independent of
// the caller's batch and record sizes. This measures that choice through the
// registered POSIX VFS against its alternatives, in one run:
//
//   per_record_pwrite      one `WriteAt` per record (Windows' fallback)
//   pwritev/<cap KiB>      `WriteVectorAt` batches of at most <cap> bytes
//   copy_then_pwrite       memcpy every record into one buffer, one `WriteAt`
//
// Every variant first writes the whole data set once and reads the file back
// to check it byte for byte; only then is it timed. Writes land in the page
// cache (no sync), as in the store's append path. After the runs, a table
// gives each variant's throughput relative to per_record_pwrite. The exit
// code is non-zero if any variant failed to validate.
//
//   bazel run --config=opt //tools:vfs_write_benchmark --
//       --record_bytes=4096 --total_mib=64 --dir=/tmp   (one line)

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "tools/bench/benchmark_support.h"

namespace loaderx {
namespace {

struct Settings {
  size_t record_bytes = 4096;
  size_t total_mib = 64;
  std::string dir = "/tmp";
};

Settings& GetSettings() {
  static Settings settings;
  return settings;
}

// The data set: `count` records of `record_bytes` pseudo-random bytes.
struct DataSet {
  std::vector<std::string> records;
  std::string concatenated;  // What the file must hold afterwards.
};

const DataSet& GetDataSet() {
  static const DataSet* data = [] {
    const Settings& s = GetSettings();
    auto* d = new DataSet;
    const size_t count = (s.total_mib << 20) / s.record_bytes;
    std::mt19937_64 random(42);
    for (size_t i = 0; i < count; ++i) {
      std::string record(s.record_bytes, '\0');
      for (char& c : record) c = static_cast<char>(random());
      d->concatenated += record;
      d->records.push_back(std::move(record));
    }
    return d;
  }();
  return *data;
}

// A way of writing every record back to back from offset 0.
using WriteAll = absl::Status (*)(VfsFile&, const DataSet&, size_t);

absl::Status PerRecordWrite(VfsFile& file, const DataSet& data, size_t) {
  uint64_t offset = 0;
  for (const std::string& record : data.records) {
    LOADERX_RETURN_IF_ERROR(file.WriteAt(offset, record));
    offset += record.size();
  }
  return absl::OkStatus();
}

absl::Status CappedVectoredWrite(VfsFile& file, const DataSet& data,
                                 size_t cap_bytes) {
  std::vector<absl::string_view> pieces;
  uint64_t offset = 0;
  size_t pending = 0;
  auto flush = [&]() -> absl::Status {
    absl::Status s = file.WriteVectorAt(offset, pieces);
    offset += pending;
    pieces.clear();
    pending = 0;
    return s;
  };
  for (const std::string& record : data.records) {
    if (pending > 0 && pending + record.size() > cap_bytes) {
      LOADERX_RETURN_IF_ERROR(flush());
    }
    pieces.push_back(record);
    pending += record.size();
  }
  return pending > 0 ? flush() : absl::OkStatus();
}

absl::Status CopyThenWrite(VfsFile& file, const DataSet& data, size_t) {
  std::string buffer;
  buffer.reserve(data.concatenated.size());
  for (const std::string& record : data.records) buffer += record;
  return file.WriteAt(0, buffer);
}

std::unique_ptr<VfsFile> OpenFresh(Vfs& vfs, const std::string& path) {
  auto file = vfs.Open(path, OpenMode::kCreate);
  if (!file.ok() || !(*file)->Truncate(0).ok()) return nullptr;
  return *std::move(file);
}

void BM_Write(benchmark::State& state, WriteAll write_all, size_t cap_bytes) {
  const DataSet& data = GetDataSet();
  auto vfs = CreateVfs("posix");
  if (!vfs.ok()) {
    state.SkipWithError(vfs.status().ToString().c_str());
    return;
  }
  const std::string path =
      absl::StrCat(GetSettings().dir, "/loaderx_vfs_write_benchmark.bin");

  // Validate before timing: the file must hold exactly the records.
  {
    std::unique_ptr<VfsFile> file = OpenFresh(**vfs, path);
    if (file == nullptr || !write_all(*file, data, cap_bytes).ok()) {
      state.SkipWithError("validation write failed");
      return;
    }
    auto back = ReadFileToString(**vfs, path);
    if (!back.ok() || *back != data.concatenated) {
      state.SkipWithError("validation read-back differs from the records");
      return;
    }
  }

  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<VfsFile> file = OpenFresh(**vfs, path);
    state.ResumeTiming();
    if (file == nullptr || !write_all(*file, data, cap_bytes).ok()) {
      state.SkipWithError("write failed");
      break;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(data.concatenated.size()));
  (void)(*vfs)->Remove(path);
}

}  // namespace
}  // namespace loaderx

int main(int argc, char** argv) {
  // Our flags first; the rest go to Google Benchmark.
  loaderx::Settings& settings = loaderx::GetSettings();
  std::vector<char*> rest = loaderx::TakeFlags(
      argc, argv,
      {{"--record_bytes",
        [&](const char* v) {
          settings.record_bytes = std::strtoull(v, nullptr, 10);
        }},
       {"--total_mib",
        [&](const char* v) {
          settings.total_mib = std::strtoull(v, nullptr, 10);
        }},
       {"--dir", [&](const char* v) { settings.dir = v; }}});
  if (settings.record_bytes == 0 || settings.total_mib == 0) {
    std::fprintf(stderr, "--record_bytes and --total_mib must be positive\n");
    return 2;
  }

  using loaderx::BM_Write;
  benchmark::RegisterBenchmark("per_record_pwrite", BM_Write,
                               &loaderx::PerRecordWrite, 0)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  for (size_t cap_kib : {64, 256, 1024, 4096}) {
    benchmark::RegisterBenchmark(
        absl::StrCat("pwritev/", cap_kib, "KiB").c_str(), BM_Write,
        &loaderx::CappedVectoredWrite, cap_kib << 10)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark("copy_then_pwrite", BM_Write,
                               &loaderx::CopyThenWrite, 0)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();

  int benchmark_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&benchmark_argc, rest.data());
  loaderx::RatioReporter reporter(
      "per_record_pwrite",
      absl::StrCat(settings.record_bytes, "-byte records"));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return reporter.failed() ? 1 : 0;
}
