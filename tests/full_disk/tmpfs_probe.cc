// The real-filesystem half of the full-disk tests: run by
// full_disk_tmpfs_test.sh inside a private 1 MiB tmpfs, it fills that
// filesystem under a store of each kind and checks what a user can still
// do. For each kind: appends until the filesystem refuses one (a clean
// ResourceExhausted, every committed record intact), a filler file takes
// whatever space is left, and then, with not one byte free, the store must
// open read-only and writable, read every record, refuse an append
// cleanly, delete records, and either compact or refuse to with the space
// it needs; once the filler is gone, appends resume and a reopened store
// holds exactly what the model says. Prints one line per kind and exits
// non-zero on the first broken promise.
//
// Usage: tmpfs_probe <directory on the small filesystem>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "loaderx/spi/path.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/typed_store.h"
#include "loaderx/vfs_registry.h"

namespace loaderx {
namespace {

constexpr uint64_t kWidth = 2048;

struct Kind {
  std::string name;
  std::string kind;
  std::string codec;
};

// Record `id`: its first 8 bytes name it, the rest follow from it (and
// compress poorly, so a zstd store fills the disk as fast as a raw one).
std::string RecordBytes(uint64_t id, uint64_t size) {
  std::string bytes(size, '\0');
  uint64_t x = id * 0x9E3779B97F4A7C15ull + 1;
  for (uint64_t i = 0; i < size; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    bytes[i] = static_cast<char>(x);
  }
  for (int i = 0; i < 8 && i < static_cast<int>(size); ++i) {
    bytes[i] = static_cast<char>(id >> (8 * i));
  }
  return bytes;
}

uint64_t SizeOf(const Kind& kind, uint64_t id) {
  return kind.kind == "dense" ? kWidth : 512 + (id * 97) % 3000;
}

absl::Status Fail(const std::string& what) { return absl::InternalError(what); }

// Appends record `id`; the model learns it only if it committed.
absl::Status AppendOne(TypedStore& store, const Kind& kind, uint64_t id,
                       std::vector<uint64_t>& model) {
  const std::string bytes = RecordBytes(id, SizeOf(kind, id));
  const DType dtype = DType::Simple("|u1");
  ShapedRecord record{bytes, {bytes.size()}, &dtype};
  LOADERX_RETURN_IF_ERROR(store.Append({record}).status());
  model.push_back(id);
  return absl::OkStatus();
}

// Every record of `store` must be the model's, in order.
absl::Status CheckAll(const TypedStore& store, const Kind& kind,
                      const std::vector<uint64_t>& model,
                      const std::string& when) {
  if (store.size() != model.size()) {
    return Fail(absl::StrCat(when, ": ", store.size(), " records, expected ",
                             model.size()));
  }
  for (uint64_t i = 0; i < model.size(); ++i) {
    const std::string expected = RecordBytes(model[i], SizeOf(kind, model[i]));
    std::string got(expected.size(), '\0');
    absl::Span<char> slot = absl::MakeSpan(got);
    const uint64_t index = i;
    absl::Status read = store.Gather({&index, 1}, {&slot, 1});
    if (!read.ok() || got != expected) {
      return Fail(absl::StrCat(when, ": record ", i, " (id ", model[i],
                               ") does not read back: ", read.ToString()));
    }
  }
  return absl::OkStatus();
}

absl::Status ExpectFull(const absl::Status& status, const std::string& what) {
  if (absl::IsResourceExhausted(status)) return absl::OkStatus();
  return Fail(absl::StrCat(what,
                           " on a full disk: expected a clean "
                           "ResourceExhausted, got ",
                           status.ToString()));
}

// Writes zeros to `path` until the filesystem refuses more.
absl::Status FillDisk(Vfs& vfs, const std::string& path) {
  LOADERX_ASSIGN_OR_RETURN(auto file, vfs.Open(path, OpenMode::kCreate));
  uint64_t size = 0;
  for (int step = 4096; step >= 1; step /= 4) {
    const std::string piece(step, 'f');
    while (file->WriteAt(size, piece).ok()) size += step;
  }
  return absl::OkStatus();
}

absl::Status Probe(Vfs& vfs, const std::string& root, const Kind& kind) {
  const std::string path = JoinPath(root, kind.name);
  const std::string filler = JoinPath(root, "filler");
  StoreOptions options;
  options.codec = kind.codec;
  if (kind.codec == "zstd_dict") options.dictionary = RecordBytes(7, 4096);
  TypeIdentity identity{DType::Simple("|u1"), {}};
  if (kind.kind == "dense") identity.item_shape = {kWidth};
  std::vector<uint64_t> model;
  uint64_t next = 0;
  // Ballast: what "space returns" gives back, whatever the store did.
  {
    LOADERX_ASSIGN_OR_RETURN(
        auto ballast, vfs.Open(JoinPath(root, "ballast"), OpenMode::kCreate));
    LOADERX_RETURN_IF_ERROR(ballast->WriteAt(0, std::string(192 << 10, 'b')));
  }
  {
    LOADERX_ASSIGN_OR_RETURN(
        auto store,
        TypedStore::Create(vfs, path, kind.kind, identity, options));
    // Fill the filesystem with the store's own records.
    absl::Status appended;
    while ((appended = AppendOne(*store, kind, next++, model)).ok()) {
      if (next % 16 == 0) LOADERX_RETURN_IF_ERROR(store->Sync());
    }
    LOADERX_RETURN_IF_ERROR(ExpectFull(appended, "the append that filled it"));
    LOADERX_RETURN_IF_ERROR(CheckAll(*store, kind, model, "after filling"));
    absl::Status synced = store->Sync();
    if (!synced.ok() && !absl::IsResourceExhausted(synced)) return synced;
  }
  LOADERX_RETURN_IF_ERROR(FillDisk(vfs, filler));
  const uint64_t filled = model.size();
  StoreOptions reading = options;
  reading.read_only = true;
  {
    LOADERX_ASSIGN_OR_RETURN(auto reader,
                             TypedStore::Open(vfs, path, kind.kind, reading));
    LOADERX_RETURN_IF_ERROR(CheckAll(*reader, kind, model, "read-only, full"));
  }
  uint64_t deleted = 0;
  bool compacted = false;
  {
    absl::StatusOr<std::unique_ptr<TypedStore>> writer =
        TypedStore::Open(vfs, path, kind.kind, options);
    if (!writer.ok()) {
      return Fail(absl::StrCat("writable open on a full disk: ",
                               writer.status().ToString()));
    }
    TypedStore& store = **writer;
    LOADERX_RETURN_IF_ERROR(CheckAll(store, kind, model, "writable, full"));
    std::vector<uint64_t> ignored;
    LOADERX_RETURN_IF_ERROR(
        ExpectFull(AppendOne(store, kind, next++, ignored), "an append"));
    LOADERX_RETURN_IF_ERROR(CheckAll(store, kind, model, "after the refusal"));
    // Delete the first three records (swap-last, as the store does).
    for (int i = 0; i < 3; ++i) {
      const uint64_t first = 0;
      absl::Status status = store.Delete({&first, 1});
      if (!status.ok()) {
        return Fail(absl::StrCat("delete on a full disk: ", status.ToString()));
      }
      model[0] = model.back();
      model.pop_back();
      ++deleted;
    }
    LOADERX_RETURN_IF_ERROR(CheckAll(store, kind, model, "after deletes"));
    absl::Status compact = store.Compact();
    if (compact.ok()) {
      compacted = true;
    } else {
      LOADERX_RETURN_IF_ERROR(ExpectFull(compact, "a compaction"));
    }
    LOADERX_RETURN_IF_ERROR(CheckAll(store, kind, model, "after compaction"));
  }
  LOADERX_RETURN_IF_ERROR(vfs.Remove(filler));
  LOADERX_RETURN_IF_ERROR(vfs.Remove(JoinPath(root, "ballast")));
  const bool compacted_full = compacted;
  {
    LOADERX_ASSIGN_OR_RETURN(auto store,
                             TypedStore::Open(vfs, path, kind.kind, options));
    LOADERX_RETURN_IF_ERROR(CheckAll(*store, kind, model, "space back"));
    // The little space the filler gave back may not be enough to compact;
    // a refusal must give back whatever it staged, or the appends after
    // it fail.
    if (!compacted) {
      absl::Status compact = store->Compact();
      if (compact.ok()) {
        compacted = true;
      } else {
        LOADERX_RETURN_IF_ERROR(ExpectFull(compact, "a compaction"));
      }
    }
    for (int i = 0; i < 3; ++i) {
      absl::Status appended = AppendOne(*store, kind, next++, model);
      if (!appended.ok()) {
        LOADERX_ASSIGN_OR_RETURN(const uint64_t left, vfs.AvailableBytes(root));
        return Fail(absl::StrCat("append ", i, " after space returned (", left,
                                 " bytes free): ", appended.ToString()));
      }
    }
    LOADERX_RETURN_IF_ERROR(store->Sync());
  }
  {
    LOADERX_ASSIGN_OR_RETURN(auto store,
                             TypedStore::Open(vfs, path, kind.kind, options));
    LOADERX_RETURN_IF_ERROR(CheckAll(*store, kind, model, "reopened"));
    LOADERX_ASSIGN_OR_RETURN(const VerifyReport report, store->Verify());
    if (!report.damaged.empty()) return Fail("verify found damage");
  }
  std::printf(
      "%s: %llu records filled the disk; full: read-only and writable opens "
      "ok, append refused cleanly, %llu deletes ok, compaction %s; space "
      "back: compaction %s, 3 appends ok, %zu records intact\n",
      kind.name.c_str(), static_cast<unsigned long long>(filled),
      static_cast<unsigned long long>(deleted),
      compacted_full ? "done" : "refused cleanly",
      compacted ? "done" : "refused cleanly", model.size());
  return absl::OkStatus();
}

// Makes room for the next kind, whatever the last one left.
void CleanUp(Vfs& vfs, const std::string& root, const Kind& kind) {
  const std::string path = JoinPath(root, kind.name);
  (void)vfs.Remove(JoinPath(root, "filler"));
  (void)vfs.Remove(JoinPath(root, "ballast"));
  if (absl::StatusOr<std::vector<std::string>> names = vfs.List(path);
      names.ok()) {
    for (const std::string& name : *names) {
      (void)vfs.Remove(JoinPath(path, name));
    }
  }
  (void)vfs.RemoveDirectory(path);
}

}  // namespace
}  // namespace loaderx

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIRECTORY\n", argv[0]);
    return 2;
  }
  auto vfs = loaderx::CreateVfs("posix");
  if (!vfs.ok()) {
    std::fprintf(stderr, "%s\n", vfs.status().ToString().c_str());
    return 1;
  }
  const std::vector<loaderx::Kind> kinds = {
      {"dense_raw", "dense", "raw"},
      {"dense_zstd", "dense", "zstd"},
      {"ragged_raw", "ragged", "raw"},
      {"ragged_zstd_dict", "ragged", "zstd_dict"},
  };
  int failures = 0;
  for (const loaderx::Kind& kind : kinds) {
    absl::Status status = loaderx::Probe(**vfs, argv[1], kind);
    if (!status.ok()) {
      std::printf("%s: FAILED: %s\n", kind.name.c_str(),
                  status.ToString().c_str());
      ++failures;
    }
    loaderx::CleanUp(**vfs, argv[1], kind);
  }
  std::printf("%d of %zu store kinds survived a full disk\n",
              static_cast<int>(kinds.size()) - failures, kinds.size());
  return failures == 0 ? 0 : 1;
}
