// The instruction count of a gathered record: a fixed workload (small
// records gathered in large random batches from a raw or zstd store) built
// first, warmed by one pass, then gathered again between callgrind's
// start and stop of instrumentation (no-ops outside valgrind), which
// `callgrind_per_record.sh` counts. Instrumentation covers every thread, so
// the figure includes the hand-off to the pool: it is the noise-free
// measure of the gather path's cost that wall time on a shared machine is
// not. Every record is checked against its source after the measured pass.
//
//   tools/bench/callgrind_per_record.sh   (builds this and runs callgrind)
// With --measure=append the measured pass is the appends of the same
// records, `batch` at a time, into a fresh store. With --measure=ragged it
// is `RaggedStore::Read` of the same batches from a ragged store of the
// same records (each shaped (record_bytes,) of uint8): its figure less the
// gather's is what a record's own shape costs on the read path.
//
//   gather_per_record --codec=raw --record_bytes=64 --batch=4096
//       --batches=8 --records=65536 --dir=/tmp   (one line; plain run)

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "loaderx/ragged_store.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "src/record_engine.h"
#include "tools/bench/bench_data.h"

namespace loaderx {
namespace {

struct Settings {
  std::string codec = "raw";
  uint64_t record_bytes = 64;
  uint64_t records = 65536;
  uint64_t batch = 4096;
  uint64_t batches = 8;
  std::string dir = "/tmp";
  // "gather"; "append": the measured pass appends the records instead,
  // `batch` at a time, into a fresh store; "ragged": it reads the batches
  // from a ragged store.
  std::string measure = "gather";
};

// A fixed pseudo-random plan (splitmix64), the same on every run.
std::vector<uint64_t> Plan(const Settings& s) {
  std::vector<uint64_t> plan(s.batch * s.batches);
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (uint64_t& index : plan) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    index = (z ^ (z >> 31)) % s.records;
  }
  return plan;
}

absl::Status MeasuredGathers(const RecordEngine& engine, const Settings& s,
                             const std::vector<uint64_t>& plan,
                             std::vector<char>& out) {
  for (uint64_t b = 0; b < s.batches; ++b) {
    LOADERX_RETURN_IF_ERROR(engine.GatherFixed(
        absl::MakeConstSpan(plan).subspan(b * s.batch, s.batch), s.record_bytes,
        absl::MakeSpan(out).subspan(b * s.batch * s.record_bytes,
                                    s.batch * s.record_bytes)));
  }
  return absl::OkStatus();
}

// The measured pass of --measure=ragged: every batch through
// `RaggedStore::Read`, into its slice of `out`.
absl::Status MeasuredRaggedReads(const RaggedStore& store, const Settings& s,
                                 const std::vector<uint64_t>& plan,
                                 std::vector<char>& out) {
  for (uint64_t b = 0; b < s.batches; ++b) {
    const absl::Span<char> slice = absl::MakeSpan(out).subspan(
        b * s.batch * s.record_bytes, s.batch * s.record_bytes);
    LOADERX_RETURN_IF_ERROR(
        store
            .Read(absl::MakeConstSpan(plan).subspan(b * s.batch, s.batch),
                  [&](uint64_t bytes) -> absl::StatusOr<absl::Span<char>> {
                    if (bytes != slice.size()) {
                      return absl::InternalError("a batch of the wrong size");
                    }
                    return slice;
                  })
            .status());
  }
  return absl::OkStatus();
}

absl::Status Run(const Settings& s) {
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<Vfs> vfs, CreateVfs("posix"));
  const std::string dir = absl::StrCat(s.dir, "/gather_per_record_", s.codec);
  LOADERX_RETURN_IF_ERROR(RemoveStoreDirectory(*vfs, dir));
  std::string data;
  data.reserve(s.records * s.record_bytes);
  for (uint64_t i = 0; i < s.records; ++i) {
    data += ImageLikeRecord(i, s.record_bytes);
  }
  RecordEngineOptions options;
  options.codec = s.codec;
  if (s.measure == "append") {
    LOADERX_ASSIGN_OR_RETURN(auto writer,
                             RecordEngine::Create(*vfs, dir, options));
    const uint64_t appends = s.records / s.batch;
    CALLGRIND_START_INSTRUMENTATION;
    absl::Status appended;
    for (uint64_t b = 0; b < appends && appended.ok(); ++b) {
      appended = writer
                     ->AppendFixed(absl::string_view(data).substr(
                                       b * s.batch * s.record_bytes,
                                       s.batch * s.record_bytes),
                                   s.batch, s.record_bytes)
                     .status();
    }
    CALLGRIND_STOP_INSTRUMENTATION;
    LOADERX_RETURN_IF_ERROR(appended);
    std::printf("appended_records %llu\n",
                static_cast<unsigned long long>(appends * s.batch));
    writer.reset();
    return RemoveStoreDirectory(*vfs, dir);
  }
  const std::vector<uint64_t> plan = Plan(s);
  std::vector<char> out(plan.size() * s.record_bytes);
  absl::Status measured;
  if (s.measure == "ragged") {
    {
      StoreOptions store_options;
      store_options.codec = s.codec;
      LOADERX_ASSIGN_OR_RETURN(
          auto writer,
          RaggedStore::Create(*vfs, dir, DType::Simple("|u1"), store_options));
      std::vector<RaggedRecord> records(s.records);
      for (uint64_t i = 0; i < s.records; ++i) {
        records[i] = RaggedRecord{
            absl::string_view(data).substr(i * s.record_bytes, s.record_bytes),
            {s.record_bytes}};
      }
      LOADERX_RETURN_IF_ERROR(writer->Append(records).status());
      LOADERX_RETURN_IF_ERROR(writer->Sync());
    }
    LOADERX_ASSIGN_OR_RETURN(auto store, RaggedStore::Open(*vfs, dir));
    // One unmeasured pass warms the page cache and the store's handles.
    LOADERX_RETURN_IF_ERROR(MeasuredRaggedReads(*store, s, plan, out));
    std::memset(out.data(), 0, out.size());
    CALLGRIND_START_INSTRUMENTATION;
    measured = MeasuredRaggedReads(*store, s, plan, out);
    CALLGRIND_STOP_INSTRUMENTATION;
  } else {
    {
      LOADERX_ASSIGN_OR_RETURN(auto writer,
                               RecordEngine::Create(*vfs, dir, options));
      LOADERX_RETURN_IF_ERROR(
          writer->AppendFixed(data, s.records, s.record_bytes).status());
      LOADERX_RETURN_IF_ERROR(writer->Sync());
    }
    LOADERX_ASSIGN_OR_RETURN(auto engine, RecordEngine::Open(*vfs, dir));
    // One unmeasured pass warms the page cache and the engine's handles.
    LOADERX_RETURN_IF_ERROR(MeasuredGathers(*engine, s, plan, out));
    std::memset(out.data(), 0, out.size());
    CALLGRIND_START_INSTRUMENTATION;
    measured = MeasuredGathers(*engine, s, plan, out);
    CALLGRIND_STOP_INSTRUMENTATION;
  }
  LOADERX_RETURN_IF_ERROR(measured);
  for (uint64_t i = 0; i < plan.size(); ++i) {
    if (std::memcmp(&out[i * s.record_bytes], &data[plan[i] * s.record_bytes],
                    s.record_bytes) != 0) {
      return absl::InternalError(absl::StrCat("record ", plan[i], " differs"));
    }
  }
  std::printf("gathered_records %llu\n",
              static_cast<unsigned long long>(plan.size()));
  return RemoveStoreDirectory(*vfs, dir);
}

bool ParseFlag(absl::string_view arg, absl::string_view name,
               std::string& value) {
  const std::string prefix = absl::StrCat("--", name, "=");
  if (!absl::StartsWith(arg, prefix)) return false;
  value = std::string(arg.substr(prefix.size()));
  return true;
}

}  // namespace
}  // namespace loaderx

int main(int argc, char** argv) {
  loaderx::Settings s;
  for (int i = 1; i < argc; ++i) {
    std::string value;
    const absl::string_view arg = argv[i];
    uint64_t* number = nullptr;
    if (loaderx::ParseFlag(arg, "codec", s.codec) ||
        loaderx::ParseFlag(arg, "measure", s.measure) ||
        loaderx::ParseFlag(arg, "dir", s.dir)) {
      continue;
    }
    for (auto [name, field] :
         {std::pair{"record_bytes", &s.record_bytes},
          std::pair{"records", &s.records}, std::pair{"batch", &s.batch},
          std::pair{"batches", &s.batches}}) {
      if (loaderx::ParseFlag(arg, name, value)) number = field;
    }
    if (number == nullptr || !absl::SimpleAtoi(value, number) || *number == 0) {
      std::fprintf(stderr, "gather_per_record: bad argument %s\n", argv[i]);
      return 2;
    }
  }
  absl::Status status = loaderx::Run(s);
  if (!status.ok()) {
    std::fprintf(stderr, "gather_per_record: %s\n",
                 std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}
