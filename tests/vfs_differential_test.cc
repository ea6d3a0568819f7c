// The in-memory VFS stands in for the real filesystem in tests, so it must
// behave like it. This applies the same random sequences of operations to
// the "posix" and "memory" VFSes and requires the same outcome from each
// step: the same status code, the same bytes read, the same sizes and
// listings. Sequences are seeded and short, so a failure names the seed and
// step that diverged.

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "tests/status_testing.h"
#include "tests/temp_dir.h"

namespace loaderx {
namespace {

// One filesystem under test, its root, and the handles opened so far (slot
// i holds the i-th successful open, or null after it was closed).
struct Side {
  std::unique_ptr<Vfs> vfs;
  std::string root;
  std::vector<std::unique_ptr<VfsFile>> handles;
};

// What one step produced, rendered comparable.
std::string Outcome(const absl::Status& status, const std::string& detail) {
  return status.ok() ? absl::StrCat("OK ", detail)
                     : absl::StrCat(absl::StatusCodeToString(status.code()),
                                    IsBusy(status) ? " (busy)" : "");
}

// Picks one operation with `choices` and applies it to `side`; the same
// `choices` state replayed on another side makes the same choice.
std::string ApplyRandomStep(Side& side, std::mt19937_64 choices) {
  auto pick = [&](uint64_t n) { return choices() % n; };
  static const char* kNames[] = {"a", "b", "d", "d/c"};
  const std::string name = kNames[pick(4)];
  const std::string path = absl::StrCat(side.root, "/", name);
  const std::string other = absl::StrCat(side.root, "/", kNames[pick(4)]);
  VfsFile* handle = nullptr;
  std::string which;  // Names the handle in the outcome.
  if (!side.handles.empty()) {
    const size_t index = pick(side.handles.size());
    handle = side.handles[index].get();
    which = absl::StrCat("#", index, " ");
  }
  const uint64_t offset = pick(64);
  const size_t size = pick(48);
  const std::string data(size, static_cast<char>('a' + pick(26)));

  switch (pick(14)) {
    case 0:
    case 1: {
      static const OpenMode kModes[] = {OpenMode::kReadOnly,
                                        OpenMode::kReadWrite, OpenMode::kCreate,
                                        OpenMode::kCreateExclusive};
      const OpenMode mode = kModes[pick(4)];
      auto file = side.vfs->Open(path, mode);
      if (file.ok()) side.handles.push_back(*std::move(file));
      return absl::StrCat("open ", name, " mode ", static_cast<int>(mode), ": ",
                          Outcome(file.status(), ""));
    }
    case 2: {
      if (handle == nullptr) return "no handle";
      std::string buffer(size, '\0');
      absl::Status s = handle->ReadAt(offset, absl::MakeSpan(buffer));
      return absl::StrCat("read ", which, ": ", Outcome(s, buffer));
    }
    case 3:
    case 4: {
      if (handle == nullptr) return "no handle";
      return absl::StrCat("write ", which, offset, "+", size, ": ",
                          Outcome(handle->WriteAt(offset, data), ""));
    }
    case 5: {
      if (handle == nullptr) return "no handle";
      std::vector<absl::string_view> pieces = {data, "xy", "", data};
      return absl::StrCat("writev ", which, ": ",
                          Outcome(handle->WriteVectorAt(offset, pieces), ""));
    }
    case 6: {
      if (handle == nullptr) return "no handle";
      auto file_size = handle->Size();
      return absl::StrCat(
          "size ", which, ": ",
          Outcome(file_size.status(),
                  file_size.ok() ? absl::StrCat(*file_size) : ""));
    }
    case 7: {
      if (handle == nullptr) return "no handle";
      return absl::StrCat("truncate ", which, offset, ": ",
                          Outcome(handle->Truncate(offset), ""));
    }
    case 8: {
      if (handle == nullptr) return "no handle";
      switch (pick(3)) {
        case 0:
          return absl::StrCat("lock ", which, ": ",
                              Outcome(handle->TryLock(), ""));
        case 1:
          return absl::StrCat("shared lock ", which, ": ",
                              Outcome(handle->TryLockShared(), ""));
        default: {
          auto region = handle->MapReadOnly(offset, size);
          return absl::StrCat(
              "map ", which, ": ",
              Outcome(region.status(),
                      region.ok() ? std::string((*region)->data()) : ""));
        }
      }
    }
    case 9: {
      if (side.handles.empty()) return "no handle";
      side.handles[pick(side.handles.size())].reset();
      std::erase(side.handles, nullptr);
      return "close";
    }
    case 10:
      return absl::StrCat("remove ", name, ": ",
                          Outcome(side.vfs->Remove(path), ""));
    case 11:
      return absl::StrCat("rename ", name, ": ",
                          Outcome(side.vfs->Rename(path, other), ""));
    case 12: {
      if (pick(2) == 0) {
        return absl::StrCat("mkdir ", name, ": ",
                            Outcome(side.vfs->CreateDirectory(path), ""));
      }
      return absl::StrCat("rmdir ", name, ": ",
                          Outcome(side.vfs->RemoveDirectory(path), ""));
    }
    default: {
      auto names = side.vfs->List(absl::StrCat(side.root, "/d"));
      auto exists = side.vfs->Exists(path);
      return absl::StrCat(
          "list: ",
          Outcome(names.status(), names.ok() ? absl::StrJoin(*names, ",") : ""),
          " exists ", name, ": ",
          Outcome(exists.status(), exists.ok() && *exists ? "yes" : "no"));
    }
  }
}

std::string TempRoot(Vfs& vfs, uint64_t seed) {
  const std::string root = absl::StrCat(TestTempDir(), "/differential_", seed);
  EXPECT_OK(vfs.CreateDirectory(root));
  return root;
}

TEST(VfsDifferentialTest, MemoryBehavesLikePosix) {
  constexpr int kSequences = 300;
  constexpr int kSteps = 60;
  for (uint64_t seed = 1; seed <= kSequences; ++seed) {
    ASSERT_OK_AND_ASSIGN(auto posix, CreateVfs("posix"));
    ASSERT_OK_AND_ASSIGN(auto memory, CreateVfs("memory"));
    Side real{std::move(posix), "", {}};
    real.root = TempRoot(*real.vfs, seed);
    Side simulated{std::move(memory), "/root", {}};
    ASSERT_OK(simulated.vfs->CreateDirectory(simulated.root));

    std::mt19937_64 sequence(seed);
    std::string history;  // Printed on a divergence.
    for (int i = 0; i < kSteps; ++i) {
      const uint64_t choice_seed = sequence();
      const std::string expected =
          ApplyRandomStep(real, std::mt19937_64(choice_seed));
      const std::string actual =
          ApplyRandomStep(simulated, std::mt19937_64(choice_seed));
      ASSERT_EQ(actual, expected)
          << "seed " << seed << ", step " << i << "; steps so far:\n"
          << history;
      absl::StrAppend(&history, "  ", i, ": ", expected, "\n");
    }
  }
}

}  // namespace
}  // namespace loaderx
