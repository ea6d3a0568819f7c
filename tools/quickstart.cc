// The quick start: the most end-to-end thing loaderx does today. It finds
// the POSIX VFS and the raw codec by name in the plugin registries, writes
// records into a file with one vectored write, makes them durable, reads
// them back through a second handle, shows the lifetime lock refusing a
// second holder, and prints each step. As the store, sampler and loader
// land, this grows into their quick start.
//
// Usage: quickstart [directory]   (default /tmp/loaderx-quickstart)

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "loaderx/codec_registry.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "src/status_macros.h"

namespace loaderx {
namespace {

// Empties `directory` of what an earlier run left, so reruns start clean.
absl::Status ResetDirectory(Vfs& vfs, const std::string& directory) {
  LOADERX_ASSIGN_OR_RETURN(auto exists, vfs.Exists(directory));
  if (!exists) return vfs.CreateDirectory(directory);
  LOADERX_ASSIGN_OR_RETURN(auto names, vfs.List(directory));
  for (const std::string& name : names) {
    if (name == "records.bin" || name == "store.lock") {
      LOADERX_RETURN_IF_ERROR(vfs.Remove(absl::StrCat(directory, "/", name)));
    }
  }
  return absl::OkStatus();
}

absl::Status Run(const std::string& directory) {
  std::printf("registered VFS plugins:   %s\n",
              absl::StrJoin(VfsRegistry().Names(), ", ").c_str());
  std::printf("registered codec plugins: %s\n",
              absl::StrJoin(CodecRegistry().Names(), ", ").c_str());

  LOADERX_ASSIGN_OR_RETURN(auto vfs, CreateVfs("posix"));
  LOADERX_RETURN_IF_ERROR(ResetDirectory(*vfs, directory));
  std::printf("working in %s\n", directory.c_str());

  // Three records through the raw codec, written with one vectored write.
  LOADERX_ASSIGN_OR_RETURN(auto codec, CreateCodec("raw"));
  LOADERX_ASSIGN_OR_RETURN(auto compressor, codec->NewCompressionContext());
  const std::vector<std::string> records = {
      "first record", "the second, longer record", "third"};
  std::vector<std::string> frames;
  for (const std::string& record : records) {
    std::string frame(codec->CompressBound(record.size()), '\0');
    LOADERX_ASSIGN_OR_RETURN(
        auto size, compressor->Compress(record, absl::MakeSpan(frame)));
    frame.resize(size);
    frames.push_back(std::move(frame));
  }
  std::vector<absl::string_view> pieces(frames.begin(), frames.end());
  const std::string path = absl::StrCat(directory, "/records.bin");
  {
    LOADERX_ASSIGN_OR_RETURN(auto file,
                             vfs->Open(path, OpenMode::kCreateExclusive));
    LOADERX_RETURN_IF_ERROR(file->WriteVectorAt(0, pieces));
    LOADERX_RETURN_IF_ERROR(file->SyncData());
    LOADERX_RETURN_IF_ERROR(vfs->SyncDirectory(directory));
    LOADERX_ASSIGN_OR_RETURN(auto size, file->Size());
    std::printf(
        "wrote %zu records (%llu bytes) to %s with one pwritev, "
        "synced\n",
        records.size(), static_cast<unsigned long long>(size), path.c_str());
  }

  // Read every record back through a fresh read-only handle.
  LOADERX_ASSIGN_OR_RETURN(auto reader, vfs->Open(path, OpenMode::kReadOnly));
  LOADERX_ASSIGN_OR_RETURN(auto decompressor, codec->NewDecompressionContext());
  uint64_t offset = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    std::string frame(frames[i].size(), '\0');
    LOADERX_RETURN_IF_ERROR(reader->ReadAt(offset, absl::MakeSpan(frame)));
    std::string record(records[i].size(), '\0');
    LOADERX_RETURN_IF_ERROR(
        decompressor->Decompress(frame, absl::MakeSpan(record)));
    if (record != records[i]) {
      return absl::DataLossError(
          absl::StrCat("record ", i, " read back as \"", record, "\""));
    }
    std::printf("read record %zu at offset %llu: \"%s\"\n", i,
                static_cast<unsigned long long>(offset), record.c_str());
    offset += frame.size();
  }

  // The lifetime lock: a second handle is refused while the first lives.
  const std::string lock_path = absl::StrCat(directory, "/store.lock");
  LOADERX_ASSIGN_OR_RETURN(auto holder,
                           vfs->Open(lock_path, OpenMode::kCreate));
  LOADERX_RETURN_IF_ERROR(holder->TryLock());
  std::printf("locked %s\n", lock_path.c_str());
  LOADERX_ASSIGN_OR_RETURN(auto contender,
                           vfs->Open(lock_path, OpenMode::kReadWrite));
  absl::Status busy = contender->TryLock();
  if (!IsBusy(busy)) {
    return absl::InternalError(
        absl::StrCat("a second lock should be busy, got: ", busy.ToString()));
  }
  std::printf("second handle refused: %s\n",
              std::string(busy.message()).c_str());
  holder.reset();
  LOADERX_RETURN_IF_ERROR(contender->TryLock());
  std::printf("after the first handle closed, the second took the lock\n");
  return absl::OkStatus();
}

}  // namespace
}  // namespace loaderx

int main(int argc, char** argv) {
  const std::string directory = argc > 1 ? argv[1] : "/tmp/loaderx-quickstart";
  absl::Status status = loaderx::Run(directory);
  if (!status.ok()) {
    std::fprintf(stderr, "quickstart failed: %s\n", status.ToString().c_str());
    return 1;
  }
  std::printf("quickstart: ok\n");
  return 0;
}
