// Cross-platform files: the Linux and the Windows build of this test write
// the same stores (`cross_platform_stores.h`) into one shared directory,
// `$LOADERX_CROSS_PLATFORM_DIR/<platform>`, where <platform> is the native
// VFS ("posix" or "win32"). Every file must come out byte-identical, each
// build must read the stores the other wrote, and each must extend a copy of
// the other's stores (open, lock, append) into byte-identical results.
//
// tools/ci/test_windows.sh runs the phases in order, alternating builds:
//   posix  Write
//   win32  Write, ReadOther, ExtendOther
//   posix  ReadOther, ExtendOther, SameBytes
//   win32  SameBytes
// Tagged manual: it needs both builds and Wine, so `bazel test //...` does
// not run it.

#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "tests/cross_platform_stores.h"
#include "tests/status_testing.h"
#include "vfs/native_vfs.h"

namespace loaderx {
namespace {

class CrossPlatformStoreTest : public testing::Test {
 protected:
  void SetUp() override {
    const char* shared = std::getenv("LOADERX_CROSS_PLATFORM_DIR");
    ASSERT_NE(shared, nullptr) << "LOADERX_CROSS_PLATFORM_DIR is not set";
    shared_ = shared;
    ASSERT_OK_AND_ASSIGN(vfs_, CreateVfs(NativeVfsName()));
    self_ = std::string(NativeVfsName());
    other_ = self_ == "posix" ? "win32" : "posix";
  }

  std::string Dir(absl::string_view name) const {
    return absl::StrCat(shared_, "/", name);
  }

  // The trees under `a` and `b` must hold the same files with the same
  // bytes; names the first difference.
  void ExpectSameTrees(absl::string_view a, absl::string_view b) {
    ASSERT_OK_AND_ASSIGN(auto first, ReadTree(*vfs_, Dir(a)));
    ASSERT_OK_AND_ASSIGN(auto second, ReadTree(*vfs_, Dir(b)));
    ASSERT_FALSE(first.empty());
    for (const auto& [name, bytes] : first) {
      auto match = second.find(name);
      if (match == second.end()) {
        ADD_FAILURE() << b << " has no " << name;
        continue;
      }
      EXPECT_EQ(bytes.size(), match->second.size()) << name;
      EXPECT_TRUE(bytes == match->second) << name << " differs";
    }
    for (const auto& [name, bytes] : second) {
      EXPECT_TRUE(first.count(name)) << a << " has no " << name;
    }
  }

  std::unique_ptr<Vfs> vfs_;
  std::string shared_;
  std::string self_;
  std::string other_;
};

TEST_F(CrossPlatformStoreTest, Write) {
  ASSERT_OK(vfs_->CreateDirectory(Dir(self_)));
  ASSERT_OK(WriteStoreSet(*vfs_, Dir(self_)));
  EXPECT_OK(VerifyStoreSet(*vfs_, Dir(self_), /*extended=*/false));
}

TEST_F(CrossPlatformStoreTest, ReadOther) {
  EXPECT_OK(VerifyStoreSet(*vfs_, Dir(other_), /*extended=*/false));
}

TEST_F(CrossPlatformStoreTest, ExtendOther) {
  const std::string copy = Dir(absl::StrCat(self_, "_extends_", other_));
  ASSERT_OK(vfs_->CreateDirectory(copy));
  ASSERT_OK(CopyTree(*vfs_, Dir(other_), copy));
  ASSERT_OK(ExtendStoreSet(*vfs_, copy));
  EXPECT_OK(VerifyStoreSet(*vfs_, copy, /*extended=*/true));
}

TEST_F(CrossPlatformStoreTest, SameBytes) {
  ExpectSameTrees("posix", "win32");
  ExpectSameTrees("posix_extends_win32", "win32_extends_posix");
}

}  // namespace
}  // namespace loaderx
