// The VFS conformance suite: one parameterized gtest suite that every VFS
// plugin runs, so they all honour the contract in `loaderx/vfs.h` the same
// way (TensorStore's `RegisterKeyValueStoreOpsTests`). A plugin joins by
// instantiating it with a `VfsUnderTest`:
//
//   INSTANTIATE_TEST_SUITE_P(Posix, VfsConformanceTest,
//                            testing::Values(VfsUnderTest{"posix", ...}),
//                            VfsUnderTestName);

#ifndef LOADERX_TESTS_VFS_CONFORMANCE_H_
#define LOADERX_TESTS_VFS_CONFORMANCE_H_

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "gtest/gtest.h"
#include "loaderx/vfs.h"

namespace loaderx {

struct VfsUnderTest {
  // A name for test output; letters, digits and underscores only.
  std::string name;
  // Makes a fresh VFS for one test.
  std::function<std::unique_ptr<Vfs>()> make;
  // Makes an empty directory in `vfs` for one test to work in; returns its
  // path.
  std::function<std::string(Vfs& vfs)> make_root;
  // Whether `VfsFile::MapReadOnly` maps (true) or is Unimplemented (false);
  // the suite checks exactly the one that is promised.
  bool can_map = true;
};

std::string VfsUnderTestName(const testing::TestParamInfo<VfsUnderTest>& info);

class VfsConformanceTest : public testing::TestWithParam<VfsUnderTest> {
 protected:
  void SetUp() override;

  // `name` inside this test's root directory.
  std::string Path(const std::string& name) const;

  std::unique_ptr<Vfs> vfs_;
  std::string root_;
};

// A fresh directory under the test's temporary directory (`TEST_TMPDIR`),
// created through `vfs`; for VFSes over the real filesystem.
std::string MakeTempRoot(Vfs& vfs);

// A fixed directory "/root" created in `vfs`; for in-memory filesystems.
std::string MakeMemoryRoot(Vfs& vfs);

}  // namespace loaderx

#endif  // LOADERX_TESTS_VFS_CONFORMANCE_H_
