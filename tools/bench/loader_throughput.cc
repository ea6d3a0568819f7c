// One C++ contender of `bench_loader.py`: the engine's `DataLoader` over an
// image store and a label store that the driver wrote (dense uint8 records
// of any size stamped with their index in the first 8 bytes, and int64
// labels), timed as the driver times every contender, in a process of its
// own so its peak RSS is its own.
//
// Before timing it checks `--validate` batches: every batch is the step it
// should be, every label is the index the sampler drew, and every image
// carries the stamp of its label. Then it runs `--warmup` batches and times
// `--batches`, the consumer doing nothing but dropping each batch (which
// sends it back to the ring). Prints one JSON line:
//
//   {"batches_per_s": 12.3, "peak_rss_mib": 456.7}
//
//   loader_throughput --image=DIR --label=DIR [--batch=256] [--prefetch=4]
//       [--batches=40] [--warmup=5] [--validate=3]
//
// Exit status 1 with a message on stderr if validation or a read fails.

#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "loaderx/data_loader.h"
#include "loaderx/dense_store.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/store_streams.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "tools/bench/benchmark_support.h"

namespace loaderx {
namespace {

struct Settings {
  std::string image;
  std::string label;
  uint64_t batch = 256;
  int prefetch = 4;
  uint64_t batches = 40;
  uint64_t warmup = 5;
  uint64_t validate = 3;
};

// The process's peak RSS since its exec (VmHWM; `ru_maxrss` would include
// what the process that forked it held).
double PeakRssMib() {
  if (std::FILE* status = std::fopen("/proc/self/status", "r")) {
    char line[256];
    long kib = -1;
    while (std::fgets(line, sizeof(line), status) != nullptr) {
      if (std::sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
    }
    std::fclose(status);
    if (kib >= 0) return kib / 1024.0;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

int64_t Int64At(const char* bytes) {
  int64_t value;
  std::memcpy(&value, bytes, sizeof(value));
  return value;
}

// Whether `batch` is step `step` with images stamped by their labels and
// labels equal to the drawn indices.
absl::Status Validate(const Batch& batch, uint64_t step) {
  if (batch.step() != step) {
    return absl::InternalError(
        absl::StrCat("got step ", batch.step(), " for step ", step));
  }
  const StreamBatch& images = batch.stream(0);
  const StreamBatch& labels = batch.stream(1);
  if (images.size() != batch.size() || labels.size() != batch.size()) {
    return absl::InternalError("a stream's batch has the wrong size");
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    const int64_t label = Int64At(labels.record(i).data());
    if (label != static_cast<int64_t>(batch.indices()[i]) ||
        Int64At(images.record(i).data()) != label) {
      return absl::InternalError(absl::StrCat("step ", step, ", record ", i,
                                              ": the image, the label and the "
                                              "index differ"));
    }
  }
  return absl::OkStatus();
}

absl::Status Run(const Settings& settings) {
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<Vfs> vfs, CreateVfs("posix"));
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<DenseStore> image_store,
                           DenseStore::Open(*vfs, settings.image));
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<DenseStore> label_store,
                           DenseStore::Open(*vfs, settings.label));
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<LoaderStream> images,
                           DenseStoreStream(*image_store));
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<LoaderStream> labels,
                           DenseStoreStream(*label_store));
  if (images->type().record_bytes() < sizeof(int64_t) ||
      labels->type().record_bytes() != sizeof(int64_t)) {
    return absl::InvalidArgumentError(
        "images of at least 8 bytes and int64 labels expected");
  }
  DataLoaderOptions options;
  options.batch_size = settings.batch;
  options.prefetch = settings.prefetch;
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<DataLoader> loader,
                           DataLoader::Create({{"image", std::move(images)},
                                               {"label", std::move(labels)}},
                                              options));
  for (uint64_t step = 0; step < settings.validate; ++step) {
    LOADERX_ASSIGN_OR_RETURN(std::shared_ptr<Batch> batch, loader->Next());
    LOADERX_RETURN_IF_ERROR(Validate(*batch, step));
  }
  for (uint64_t b = 0; b < settings.warmup; ++b) {
    LOADERX_RETURN_IF_ERROR(loader->Next().status());
  }
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t b = 0; b < settings.batches; ++b) {
    LOADERX_RETURN_IF_ERROR(loader->Next().status());  // Dropped at once.
  }
  const std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  loader->Close();
  std::printf("{\"batches_per_s\": %.6g, \"peak_rss_mib\": %.1f}\n",
              static_cast<double>(settings.batches) / elapsed.count(),
              PeakRssMib());
  return absl::OkStatus();
}

}  // namespace
}  // namespace loaderx

int main(int argc, char** argv) {
  loaderx::Settings s;
  std::vector<char*> rest =
      loaderx::TakeFlags(argc, argv,
                         {{"--image", loaderx::StringFlag(s.image)},
                          {"--label", loaderx::StringFlag(s.label)},
                          {"--batch", loaderx::UintFlag(s.batch)},
                          {"--prefetch", loaderx::IntFlag(s.prefetch)},
                          {"--batches", loaderx::UintFlag(s.batches)},
                          {"--warmup", loaderx::UintFlag(s.warmup)},
                          {"--validate", loaderx::UintFlag(s.validate)}});
  if (rest.size() != 1 || s.image.empty() || s.label.empty() || s.batch == 0 ||
      s.batches == 0 || s.prefetch < 1) {
    std::fprintf(stderr,
                 "usage: %s --image=DIR --label=DIR [--batch=N] "
                 "[--prefetch=N] [--batches=N] [--warmup=N] [--validate=N]\n",
                 argv[0]);
    return 2;
  }
  const absl::Status status = loaderx::Run(s);
  if (!status.ok()) {
    std::fprintf(stderr, "loader_throughput: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
