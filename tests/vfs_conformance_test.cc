// Runs the VFS conformance suite over every VFS plugin this platform has:
// each found by name in the registry (the real filesystem is "posix", or
// "win32" on Windows), plus the fault VFS in pass-through mode over both the
// in-memory and the real filesystem.

#include "tests/vfs_conformance.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "loaderx/vfs_registry.h"
#include "vfs/fault/fault_vfs.h"
#include "vfs/native_vfs.h"

namespace loaderx {
namespace {

std::unique_ptr<Vfs> Registered(absl::string_view name) {
  absl::StatusOr<std::unique_ptr<Vfs>> vfs = CreateVfs(name);
  EXPECT_TRUE(vfs.ok()) << vfs.status();
  return vfs.ok() ? *std::move(vfs) : nullptr;
}

INSTANTIATE_TEST_SUITE_P(
    AllPlugins, VfsConformanceTest,
    testing::Values(
        VfsUnderTest{std::string(NativeVfsName()),
                     [] { return Registered(NativeVfsName()); }, MakeTempRoot},
        VfsUnderTest{"memory", [] { return Registered("memory"); },
                     MakeMemoryRoot},
        VfsUnderTest{"fault_over_memory", [] { return Registered("fault"); },
                     MakeMemoryRoot, /*can_map=*/false},
        VfsUnderTest{"fault_over_memory_mapping",
                     []() -> std::unique_ptr<Vfs> {
                       auto fault =
                           std::make_unique<FaultVfs>(Registered("memory"));
                       fault->set_mapping(true);
                       return fault;
                     },
                     MakeMemoryRoot},
        VfsUnderTest{absl::StrCat("fault_over_", NativeVfsName()),
                     []() -> std::unique_ptr<Vfs> {
                       return std::make_unique<FaultVfs>(
                           Registered(NativeVfsName()));
                     },
                     MakeTempRoot, /*can_map=*/false}),
    VfsUnderTestName);

}  // namespace
}  // namespace loaderx
