// The four stores the read-path differential tests run the same steps on:
// the memory VFS read through mappings and through positional reads (the
// fault VFS declining to map), and the POSIX VFS read through mappings
// (bare) and through positional reads (the fault VFS over it). Each side
// has its own filesystem and directory; a test adds its open store.

#ifndef LOADERX_TESTS_READ_PATH_SIDES_H_
#define LOADERX_TESTS_READ_PATH_SIDES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "tests/status_testing.h"
#include "tests/temp_dir.h"
#include "vfs/fault/fault_vfs.h"

namespace loaderx {

struct ReadPathSide {
  std::string name;
  std::unique_ptr<Vfs> base;
  std::unique_ptr<FaultVfs> fault;  // Null for bare POSIX.
  std::string dir;

  Vfs& vfs() { return fault != nullptr ? *fault : *base; }
};

// The four sides, in a fixed order; their directories are `prefix` + the
// side's name (POSIX ones under the test's temporary directory, followed by
// `posix_suffix`, so several stores of one test do not meet).
inline std::vector<ReadPathSide> MakeReadPathSides(
    absl::string_view prefix, absl::string_view posix_suffix) {
  std::vector<ReadPathSide> sides;
  auto add = [&](const std::string& name, const std::string& base_name,
                 bool wrap, bool mapping) {
    ReadPathSide side;
    side.name = name;
    side.base = CreateVfs(base_name).value();
    if (wrap) {
      side.fault = std::make_unique<FaultVfs>(side.base.get());
      side.fault->set_mapping(mapping);
    }
    side.dir = base_name == "posix" ? absl::StrCat(TestTempDir(), "/", prefix,
                                                   name, posix_suffix)
                                    : absl::StrCat("/", prefix, name);
    sides.push_back(std::move(side));
  };
  add("memory_mapped", "memory", true, true);
  add("memory_pread", "memory", true, false);
  add("posix_mapped", "posix", false, true);
  add("posix_pread", "posix", true, false);
  return sides;
}

// XORs the byte of `file` (in the side's directory) at `position` (mod the
// file's size) with `mask`, through a handle of its own (flipping it again
// repairs it); false if the file does not exist or is empty.
inline bool FlipFileByte(ReadPathSide& side, absl::string_view file,
                         uint64_t position, char mask) {
  auto opened =
      side.base->Open(absl::StrCat(side.dir, "/", file), OpenMode::kReadWrite);
  if (!opened.ok()) return false;
  const uint64_t size = (*opened)->Size().value();
  if (size == 0) return false;
  char byte;
  EXPECT_OK((*opened)->ReadAt(position % size, absl::MakeSpan(&byte, 1)));
  byte ^= mask;
  EXPECT_OK((*opened)->WriteAt(position % size, absl::string_view(&byte, 1)));
  return true;
}

}  // namespace loaderx

#endif  // LOADERX_TESTS_READ_PATH_SIDES_H_
