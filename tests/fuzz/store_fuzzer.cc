// Fuzzes opening, reading and maintaining a store whose files are arbitrary
// bytes (a `FileBundle`, seeded with real stores): whatever the files hold,
// every call must return a status, never crash, hang or allocate without
// bound, and compaction must never change a record that was readable before
// it. Runs over the in-memory VFS.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/dense_store.h"
#include "loaderx/ragged_store.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "tests/fuzz/file_bundle.h"

namespace loaderx::fuzz {
namespace {

constexpr char kStore[] = "/store";
// Records and bytes a run reads at most, so a damaged length cannot make
// the fuzzer itself allocate without bound.
constexpr uint64_t kMaxRecords = 64;
constexpr uint64_t kMaxBytes = 16 << 20;

void Check(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "invariant violated: %s\n", what);
    std::abort();
  }
}

std::unique_ptr<Vfs> VfsHolding(const FileBundle& files) {
  std::unique_ptr<Vfs> vfs = *CreateVfs("memory");
  (void)vfs->CreateDirectory(kStore);
  for (const auto& [name, contents] : files) {
    if (name.find('/') != std::string::npos) continue;
    (void)WriteStringToFile(*vfs, absl::StrCat(kStore, "/", name), contents);
  }
  return vfs;
}

// Every record below the limits, or an empty vector if the store is too big
// to read whole; a record that fails to read is recorded as absent.
std::vector<std::pair<bool, std::string>> ReadDense(const DenseStore& store) {
  std::vector<std::pair<bool, std::string>> records;
  const uint64_t width = store.record_bytes();
  if (width == 0 || width > kMaxBytes) return records;
  const uint64_t count = std::min(store.size(), kMaxRecords);
  for (uint64_t i = 0; i < count && (i + 1) * width <= kMaxBytes; ++i) {
    std::string bytes(width, '\0');
    const bool ok = store.Gather({i}, absl::MakeSpan(bytes)).ok();
    records.emplace_back(ok, ok ? bytes : "");
  }
  return records;
}

std::vector<std::pair<bool, std::string>> ReadRagged(const RaggedStore& store) {
  std::vector<std::pair<bool, std::string>> records;
  const uint64_t count = std::min(store.size(), kMaxRecords);
  uint64_t total = 0;
  for (uint64_t i = 0; i < count; ++i) {
    auto shapes = store.Shapes({i});
    if (!shapes.ok()) {
      records.emplace_back(false, "");
      continue;
    }
    uint64_t size = store.item_size();
    for (uint64_t dim : (*shapes)[0]) {
      if (dim != 0 && size > kMaxBytes / dim) size = kMaxBytes + 1;
      size *= dim;
    }
    if (size > kMaxBytes || total + size > kMaxBytes) break;
    total += size;
    std::string bytes(size, '\0');
    const absl::Span<char> slot = absl::MakeSpan(bytes);
    const bool ok = store.Gather({i}, absl::MakeConstSpan(&slot, 1)).ok();
    records.emplace_back(ok, ok ? bytes : "");
  }
  return records;
}

// Reads, deletes the first record, reads again, compacts, reads again:
// compaction must not change any record that read back before it.
template <typename Store, typename Read>
void Exercise(Vfs& vfs, Read read) {
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(vfs, kStore);
  if (!store.ok()) return;
  (void)(*store)->Stats();
  read(**store);
  if ((*store)->size() > 0) (void)(*store)->Delete({0});
  const auto before = read(**store);
  const absl::Status compacted = (*store)->Compact();
  const auto after = read(**store);
  if (compacted.ok()) {
    for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
      if (before[i].first && after[i].first) {
        Check(before[i].second == after[i].second,
              "compaction changed a record");
      }
    }
  }
  store->reset();
  // Whatever maintenance did, the store opens again or fails cleanly.
  if (auto reopened = Store::Open(vfs, kStore); reopened.ok()) {
    read(**reopened);
  }
}

}  // namespace
}  // namespace loaderx::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace loaderx;
  using namespace loaderx::fuzz;
  const FileBundle files = DecodeBundle(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  {
    std::unique_ptr<Vfs> vfs = VfsHolding(files);
    Exercise<DenseStore>(*vfs, ReadDense);
  }
  {
    std::unique_ptr<Vfs> vfs = VfsHolding(files);
    Exercise<RaggedStore>(*vfs, ReadRagged);
  }
  return 0;
}
