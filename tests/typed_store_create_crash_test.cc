// Power lost at every point of a typed store's creation (`DenseStore::Create`
// over the fault VFS, unsynced writes dropped or garbled). Whatever the
// crash leaves is one of: no store (not found), an unfinished creation that
// the next `Create` takes over, or the empty store whose store.zr matches
// the checksum recorded before it was written (`metadata_verified`), so a
// store.zr is never taken on trust. Once `Create` has returned, the store
// survives the crash.

#include <cstdint>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "loaderx/dense_store.h"
#include "loaderx/dtype.h"
#include "loaderx/vfs_registry.h"
#include "tests/status_testing.h"
#include "vfs/fault/fault_vfs.h"

namespace loaderx {
namespace {

constexpr char kStore[] = "/d/store";

// The store after the crash: opens empty with its store.zr verified, or is
// absent, or is an unfinished creation that a new `Create` finishes. (With
// unsynced writes garbled, meta.zr itself may be garbage: `Create` then
// refuses the directory, AlreadyExists naming meta.zr; a known limit,
// docs/open-work.md.)
void ExpectEmptyVerifiedOrRecreatable(Vfs& vfs, bool garbled) {
  absl::StatusOr<std::unique_ptr<DenseStore>> opened =
      DenseStore::Open(vfs, kStore);
  if (opened.ok()) {
    EXPECT_EQ((*opened)->size(), 0u);
    ASSERT_OK_AND_ASSIGN(VerifyReport report, (*opened)->Verify());
    EXPECT_TRUE(report.metadata_verified)
        << "store.zr survived without the checksum recorded before it";
    return;
  }
  absl::StatusOr<std::unique_ptr<DenseStore>> created =
      DenseStore::Create(vfs, kStore, {DType::Simple("<u4"), {2}});
  if (garbled && absl::IsAlreadyExists(created.status()) &&
      absl::StrContains(created.status().message(), "meta.zr")) {
    return;
  }
  ASSERT_OK(created.status());
  EXPECT_EQ((*created)->size(), 0u);
}

TEST(TypedStoreCreateCrashTest, EveryPowerCutLeavesAStoreOrARecreatableOne) {
  int64_t total = 0;
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Vfs> memory, CreateVfs("memory"));
    FaultVfs vfs(memory.get());
    ASSERT_OK(vfs.CreateDirectory("/d"));
    const int64_t before = vfs.MutatingCalls();
    ASSERT_OK(DenseStore::Create(vfs, kStore, {DType::Simple("<u4"), {2}}));
    total = vfs.MutatingCalls() - before;
  }
  ASSERT_GT(total, 5);
  for (auto mode : {FaultVfs::CrashMode::kDropUnsynced,
                    FaultVfs::CrashMode::kGarbleUnsynced}) {
    for (int64_t calls = 0; calls <= total; ++calls) {
      SCOPED_TRACE(absl::StrCat("power lost after ", calls, " of ", total,
                                " calls, mode ", static_cast<int>(mode)));
      ASSERT_OK_AND_ASSIGN(std::unique_ptr<Vfs> memory, CreateVfs("memory"));
      FaultVfs vfs(memory.get());
      ASSERT_OK(vfs.CreateDirectory("/d"));
      ASSERT_OK(vfs.SyncDirectory("/"));
      vfs.CutPowerAfter(calls);
      const bool created =
          DenseStore::Create(vfs, kStore, {DType::Simple("<u4"), {2}}).ok();
      ASSERT_OK(vfs.SimulateCrash(mode, /*seed=*/calls));
      if (created) {
        ASSERT_OK_AND_ASSIGN(auto store, DenseStore::Open(vfs, kStore));
        EXPECT_EQ(store->size(), 0u);
        ASSERT_OK_AND_ASSIGN(VerifyReport report, store->Verify());
        EXPECT_TRUE(report.metadata_verified);
        continue;
      }
      ExpectEmptyVerifiedOrRecreatable(
          vfs, mode == FaultVfs::CrashMode::kGarbleUnsynced);
    }
  }
}

}  // namespace
}  // namespace loaderx
