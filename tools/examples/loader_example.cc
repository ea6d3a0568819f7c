// The C++ DataLoader end to end, as the README shows it: two dense stores
// (8x8 uint8 images and int64 labels) and a ragged one (token lists of
// varying length), loaded together in cyclic batches of 32, every batch
// checked for alignment (image i, label i and tokens i are record i), then
// an exact resume with `Seek`. In-memory VFS, so it runs anywhere; a real
// directory only changes `CreateVfs("posix")` and the paths.
//
// Usage: loader_example   (exits non-zero if anything is wrong)

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "loaderx/data_loader.h"
#include "loaderx/dense_store.h"
#include "loaderx/ragged_store.h"
#include "loaderx/spi/little_endian.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/store_streams.h"
#include "loaderx/vfs_registry.h"

namespace loaderx {
namespace {

constexpr uint64_t kRecords = 1000;

// Writes the three stores: image i is 64 bytes of i % 256, label i is i,
// tokens i are 1 + i % 7 int32 values i.
absl::Status WriteStores(DenseStore& images, DenseStore& labels,
                         RaggedStore& tokens) {
  std::string image_data, label_data;
  std::vector<std::string> token_data(kRecords);
  std::vector<RaggedRecord> token_records;
  for (uint64_t i = 0; i < kRecords; ++i) {
    image_data += std::string(64, static_cast<char>(i % 256));
    label_data += std::string(8, '\0');
    StoreLittle<int64_t>(&label_data[8 * i], static_cast<int64_t>(i));
    const uint64_t length = 1 + i % 7;
    token_data[i].resize(4 * length);
    for (uint64_t t = 0; t < length; ++t) {
      StoreLittle<int32_t>(&token_data[i][4 * t], static_cast<int32_t>(i));
    }
    token_records.push_back(RaggedRecord{token_data[i], {length}});
  }
  LOADERX_RETURN_IF_ERROR(images.Append(image_data).status());
  LOADERX_RETURN_IF_ERROR(labels.Append(label_data).status());
  return tokens.Append(token_records).status();
}

// Whether record r of every stream is record `batch.indices()[r]`.
absl::Status CheckAligned(const Batch& batch) {
  const StreamBatch& image = *batch.Find("image");
  const StreamBatch& label = *batch.Find("label");
  const StreamBatch& tokens = *batch.Find("tokens");
  for (size_t r = 0; r < batch.size(); ++r) {
    const uint64_t i = batch.indices()[r];
    const bool ok =
        static_cast<uint8_t>(image.record(r)[63]) == i % 256 &&
        LoadLittle<int64_t>(label.record(r).data()) ==
            static_cast<int64_t>(i) &&
        tokens.shape(r)[0] == 1 + i % 7 &&
        LoadLittle<int32_t>(tokens.record(r).data()) == static_cast<int32_t>(i);
    if (!ok) {
      return absl::DataLossError(
          absl::StrCat("step ", batch.step(), ": record ", r, " misaligned"));
    }
  }
  return absl::OkStatus();
}

absl::Status Run() {
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<Vfs> vfs, CreateVfs("memory"));
  LOADERX_RETURN_IF_ERROR(vfs->CreateDirectory("/data"));
  LOADERX_ASSIGN_OR_RETURN(
      std::unique_ptr<DenseStore> images,
      DenseStore::Create(*vfs, "/data/images",
                         TypeIdentity{DType::Simple("|u1"), {8, 8}}));
  LOADERX_ASSIGN_OR_RETURN(
      std::unique_ptr<DenseStore> labels,
      DenseStore::Create(*vfs, "/data/labels",
                         TypeIdentity{DType::Simple("<i8"), {}}));
  LOADERX_ASSIGN_OR_RETURN(
      std::unique_ptr<RaggedStore> tokens,
      RaggedStore::Create(*vfs, "/data/tokens", DType::Simple("<i4")));
  LOADERX_RETURN_IF_ERROR(WriteStores(*images, *labels, *tokens));

  // The README's snippet: the stores outlive the loader.
  LOADERX_ASSIGN_OR_RETURN(auto image_stream, DenseStoreStream(*images));
  LOADERX_ASSIGN_OR_RETURN(auto label_stream, DenseStoreStream(*labels));
  LOADERX_ASSIGN_OR_RETURN(auto token_stream, RaggedStoreStream(*tokens));
  DataLoaderOptions options;
  options.batch_size = 32;  // Cyclic, seed 42, prefetch 4 by default.
  LOADERX_ASSIGN_OR_RETURN(
      std::unique_ptr<DataLoader> loader,
      DataLoader::Create({{"image", std::move(image_stream)},
                          {"label", std::move(label_stream)},
                          {"tokens", std::move(token_stream)}},
                         options));
  std::vector<std::vector<uint64_t>> seen;
  for (int step = 0; step < 100; ++step) {
    LOADERX_ASSIGN_OR_RETURN(std::shared_ptr<Batch> batch, loader->Next());
    const StreamBatch& image = *batch->Find("image");  // (32, 8, 8) |u1
    const StreamBatch& tokens = *batch->Find("tokens");
    if (step == 0) {
      std::printf("step 0: %zu images of %llu bytes at %p, first tokens %llu\n",
                  image.size(),
                  static_cast<unsigned long long>(image.record_bytes(0)),
                  static_cast<const void*>(image.data()),
                  static_cast<unsigned long long>(tokens.shape(0)[0]));
    }
    LOADERX_RETURN_IF_ERROR(CheckAligned(*batch));
    seen.emplace_back(batch->indices().begin(), batch->indices().end());
  }
  LOADERX_RETURN_IF_ERROR(loader->Seek(40));  // Resume exactly at step 40.
  for (int step = 40; step < 100; ++step) {
    LOADERX_ASSIGN_OR_RETURN(std::shared_ptr<Batch> batch, loader->Next());
    if (std::vector<uint64_t>(batch->indices().begin(),
                              batch->indices().end()) != seen[step]) {
      return absl::InternalError(
          absl::StrCat("step ", step, " differs after the seek"));
    }
  }
  std::printf("100 steps aligned, resumed at step 40 exactly\n");
  return absl::OkStatus();
}

}  // namespace
}  // namespace loaderx

int main() {
  absl::Status status = loaderx::Run();
  if (!status.ok()) {
    std::fprintf(stderr, "loader_example: %s\n", status.ToString().c_str());
    return 1;
  }
  std::printf("loader_example: ok\n");
  return 0;
}
