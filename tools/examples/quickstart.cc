// The quick start: the most end-to-end thing loaderx does today. It finds
// the POSIX VFS and the zstd codec by name in the plugin registries,
// compresses records one frame each and writes them with one vectored write,
// makes them durable, then lets the cyclic sampler pick batches of record
// indices and reads exactly those records back by random access. Finally it
// shows the lifetime lock refusing a second holder. As the store and loader
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
#include "loaderx/sampler.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"

namespace loaderx {
namespace {

// Where one record's frame sits in the file (the store keeps these in its
// record table).
struct RecordLocation {
  uint64_t offset;
  uint64_t stored_bytes;
  uint64_t original_bytes;
};

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

  // Six records, one zstd frame each, written with one vectored write.
  std::vector<std::string> records;
  for (int i = 0; i < 6; ++i) {
    records.push_back(
        absl::StrCat("record ", i, ": ", std::string(40 + 10 * i, 'a' + i)));
  }
  LOADERX_ASSIGN_OR_RETURN(auto codec, CreateCodec("zstd"));
  LOADERX_ASSIGN_OR_RETURN(auto compressor, codec->NewCompressionContext());
  std::vector<std::string> frames;
  std::vector<RecordLocation> locations;
  uint64_t offset = 0;
  for (const std::string& record : records) {
    std::string frame(codec->CompressBound(record.size()), '\0');
    LOADERX_ASSIGN_OR_RETURN(
        auto size, compressor->Compress(record, absl::MakeSpan(frame)));
    frame.resize(size);
    locations.push_back({offset, size, record.size()});
    offset += size;
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
    uint64_t original = 0;
    for (const std::string& record : records) original += record.size();
    std::printf(
        "wrote %zu records as %s frames: %llu bytes stored for %llu, one "
        "pwritev, synced\n",
        records.size(), std::string(codec->name()).c_str(),
        static_cast<unsigned long long>(size),
        static_cast<unsigned long long>(original));
  }

  // The cyclic sampler picks which records each batch reads; every record
  // is read at its own location and decoded straight into its buffer.
  LOADERX_ASSIGN_OR_RETURN(auto reader, vfs->Open(path, OpenMode::kReadOnly));
  LOADERX_ASSIGN_OR_RETURN(auto decompressor, codec->NewDecompressionContext());
  LOADERX_ASSIGN_OR_RETURN(
      auto sampler,
      Sampler::Create(records.size(), 2, SamplerMode::kCyclic, /*seed=*/42));
  std::vector<uint64_t> batch(sampler.batch_length());
  for (int step = 0; step < 3; ++step) {
    LOADERX_ASSIGN_OR_RETURN(size_t count, sampler.Next(absl::MakeSpan(batch)));
    std::printf(
        "step %d: sampler drew records %s\n", step,
        absl::StrJoin(absl::MakeSpan(batch).first(count), " and ").c_str());
    for (uint64_t index : absl::MakeSpan(batch).first(count)) {
      const RecordLocation& location = locations[index];
      std::string frame(location.stored_bytes, '\0');
      LOADERX_RETURN_IF_ERROR(
          reader->ReadAt(location.offset, absl::MakeSpan(frame)));
      std::string record(location.original_bytes, '\0');
      LOADERX_RETURN_IF_ERROR(
          decompressor->Decompress(frame, absl::MakeSpan(record)));
      if (record != records[index]) {
        return absl::DataLossError(
            absl::StrCat("record ", index, " read back as \"", record, "\""));
      }
      std::printf(
          "  read %llu (%llu stored bytes at offset %llu): \"%.16s...\"\n",
          static_cast<unsigned long long>(index),
          static_cast<unsigned long long>(location.stored_bytes),
          static_cast<unsigned long long>(location.offset), record.c_str());
    }
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
