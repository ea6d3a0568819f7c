#include "vfs/fault/fault_vfs.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/vfs_registry.h"
#include "tests/status_testing.h"
#include "tests/temp_dir.h"

namespace loaderx {
namespace {

using ::testing::HasSubstr;

class FaultVfsTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(base_, CreateVfs("memory"));
    vfs_ = std::make_unique<FaultVfs>(base_.get());
    ASSERT_OK(vfs_->CreateDirectory("/d"));
    ASSERT_OK(vfs_->SyncDirectory("/"));
  }

  // The file's contents as the wrapped filesystem holds them.
  std::string BaseContents(const std::string& path) {
    absl::StatusOr<std::string> contents = ReadFileToString(*base_, path);
    EXPECT_TRUE(contents.ok()) << contents.status();
    return contents.value_or("");
  }

  bool BaseExists(const std::string& path) {
    absl::StatusOr<bool> exists = base_->Exists(path);
    EXPECT_TRUE(exists.ok()) << exists.status();
    return exists.value_or(false);
  }

  std::unique_ptr<Vfs> base_;
  std::unique_ptr<FaultVfs> vfs_;
};

TEST_F(FaultVfsTest, IsRegisteredByName) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("fault"));
  EXPECT_NE(dynamic_cast<FaultVfs*>(vfs.get()), nullptr);
}

TEST_F(FaultVfsTest, FailsTheNthCallOnlyOnce) {
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open("/d/f", OpenMode::kCreate));
  vfs_->FailOnCall(VfsOp::kWriteAt, 2, absl::DataLossError("disk on fire"));
  EXPECT_OK(file->WriteAt(0, "one"));
  absl::Status second = file->WriteAt(3, "two");
  EXPECT_EQ(second.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(second.message(), HasSubstr("injected fault"));
  EXPECT_THAT(second.message(), HasSubstr("/d/f"));
  EXPECT_THAT(second.message(), HasSubstr("disk on fire"));
  EXPECT_OK(file->WriteAt(3, "three"));
  // The failed call never reached the wrapped filesystem.
  EXPECT_EQ(BaseContents("/d/f"), "onethree");
  EXPECT_EQ(vfs_->CallCount(VfsOp::kWriteAt), 3);
}

TEST_F(FaultVfsTest, PathFilterCountsAndFailsOnlyMatchingCalls) {
  ASSERT_OK_AND_ASSIGN(auto data, vfs_->Open("/d/0.chunk", OpenMode::kCreate));
  ASSERT_OK_AND_ASSIGN(auto meta, vfs_->Open("/d/meta.zr", OpenMode::kCreate));
  vfs_->FailOnCall(VfsOp::kWriteAt, 2, absl::UnavailableError("gone"),
                   /*sticky=*/false, "meta.zr");
  EXPECT_OK(meta->WriteAt(0, "m1"));
  EXPECT_OK(data->WriteAt(0, "d1"));  // Not counted: another path.
  EXPECT_OK(data->WriteAt(2, "d2"));
  EXPECT_STATUS_CODE(meta->WriteAt(2, "m2"), absl::StatusCode::kUnavailable);
  EXPECT_EQ(BaseContents("/d/meta.zr"), "m1");
  EXPECT_EQ(BaseContents("/d/0.chunk"), "d1d2");
}

TEST_F(FaultVfsTest, RulesForDifferentPathsCoexist) {
  ASSERT_OK_AND_ASSIGN(auto a, vfs_->Open("/d/a", OpenMode::kCreate));
  ASSERT_OK_AND_ASSIGN(auto b, vfs_->Open("/d/b", OpenMode::kCreate));
  vfs_->FailOnCall(VfsOp::kSync, 1, absl::DataLossError("a"), false, "/d/a");
  vfs_->FailOnCall(VfsOp::kSync, 1, absl::InternalError("b"), false, "/d/b");
  EXPECT_STATUS_CODE(b->Sync(), absl::StatusCode::kInternal);
  EXPECT_STATUS_CODE(a->Sync(), absl::StatusCode::kDataLoss);
  EXPECT_OK(a->Sync());
  EXPECT_OK(b->Sync());
}

TEST_F(FaultVfsTest, StickyRuleFailsEveryLaterCall) {
  vfs_->FailOnCall(VfsOp::kOpen, 1, absl::PermissionDeniedError("no"),
                   /*sticky=*/true);
  for (int i = 0; i < 3; ++i) {
    EXPECT_STATUS_CODE(vfs_->Open("/d/f", OpenMode::kCreate),
                       absl::StatusCode::kPermissionDenied);
  }
  EXPECT_FALSE(BaseExists("/d/f"));
  vfs_->ClearFaults();
  EXPECT_OK(vfs_->Open("/d/f", OpenMode::kCreate).status());
}

TEST_F(FaultVfsTest, EveryOperationCanFail) {
  ASSERT_OK(WriteStringToFile(*vfs_, "/d/f", "x"));
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open("/d/f", OpenMode::kReadWrite));
  const absl::Status error = absl::InternalError("injected");
  auto fails = [&](VfsOp op, auto call) {
    vfs_->FailOnCall(op, 1, error);
    absl::Status status = testing_internal::GetStatus(call());
    EXPECT_EQ(status.code(), absl::StatusCode::kInternal)
        << VfsOpName(op) << ": " << status;
  };
  std::string buffer(1, '\0');
  absl::string_view piece = "y";
  fails(VfsOp::kOpen, [&] { return vfs_->Open("/d/f", OpenMode::kReadOnly); });
  fails(VfsOp::kRemove, [&] { return vfs_->Remove("/d/f"); });
  fails(VfsOp::kRename, [&] { return vfs_->Rename("/d/f", "/d/g"); });
  fails(VfsOp::kList, [&] { return vfs_->List("/d"); });
  fails(VfsOp::kCreateDirectory, [&] { return vfs_->CreateDirectory("/e"); });
  fails(VfsOp::kRemoveDirectory, [&] { return vfs_->RemoveDirectory("/d"); });
  fails(VfsOp::kExists, [&] { return vfs_->Exists("/d/f"); });
  fails(VfsOp::kSyncDirectory, [&] { return vfs_->SyncDirectory("/d"); });
  fails(VfsOp::kReadAt,
        [&] { return file->ReadAt(0, absl::MakeSpan(buffer)); });
  fails(VfsOp::kWriteAt, [&] { return file->WriteAt(0, "y"); });
  fails(VfsOp::kWriteVectorAt,
        [&] { return file->WriteVectorAt(0, absl::MakeConstSpan(&piece, 1)); });
  fails(VfsOp::kSize, [&] { return file->Size(); });
  fails(VfsOp::kTruncate, [&] { return file->Truncate(0); });
  fails(VfsOp::kSyncData, [&] { return file->SyncData(); });
  fails(VfsOp::kSync, [&] { return file->Sync(); });
  fails(VfsOp::kTryLock, [&] { return file->TryLock(); });
  fails(VfsOp::kTryLockShared, [&] { return file->TryLockShared(); });
  fails(VfsOp::kModificationStamp, [&] { return file->ModificationStamp(); });
  fails(VfsOp::kOpenWritable,
        [&] { return vfs_->Open("/d/f", OpenMode::kReadWrite); });
  vfs_->set_mapping(true);
  fails(VfsOp::kMapReadOnly, [&] { return file->MapReadOnly(0, 1); });
  // None of the failed calls changed anything.
  EXPECT_EQ(BaseContents("/d/f"), "x");
  EXPECT_FALSE(BaseExists("/d/g"));
  EXPECT_FALSE(BaseExists("/e"));
}

TEST_F(FaultVfsTest, OnlyWritableOpensCountAsWritable) {
  ASSERT_OK(WriteStringToFile(*vfs_, "/d/f", "x"));
  const int64_t before = vfs_->CallCount(VfsOp::kOpenWritable);
  ASSERT_OK(vfs_->Open("/d/f", OpenMode::kReadOnly));
  EXPECT_EQ(vfs_->CallCount(VfsOp::kOpenWritable), before);
  vfs_->FailOnCall(VfsOp::kOpenWritable, 1, absl::PermissionDeniedError("ro"),
                   /*sticky=*/true);
  EXPECT_OK(vfs_->Open("/d/f", OpenMode::kReadOnly));
  EXPECT_STATUS_CODE(vfs_->Open("/d/f", OpenMode::kReadWrite),
                     absl::StatusCode::kPermissionDenied);
  EXPECT_STATUS_CODE(vfs_->Open("/d/g", OpenMode::kCreate),
                     absl::StatusCode::kPermissionDenied);
  EXPECT_FALSE(BaseExists("/d/g"));
}

TEST_F(FaultVfsTest, PowerCutStopsEveryCallAfterTheGivenMutations) {
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open("/d/f", OpenMode::kCreate));
  const int64_t start = vfs_->MutatingCalls();
  vfs_->CutPowerAfter(2);
  EXPECT_OK(file->WriteAt(0, "one"));
  std::string byte(1, '\0');
  EXPECT_OK(file->ReadAt(0, absl::MakeSpan(byte)));  // Reads do not count.
  EXPECT_OK(file->SyncData());
  EXPECT_EQ(vfs_->MutatingCalls() - start, 2);
  absl::Status cut = file->WriteAt(3, "two");
  EXPECT_EQ(cut.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(cut.message(), HasSubstr("power cut"));
  EXPECT_STATUS_CODE(file->ReadAt(0, absl::MakeSpan(byte)),
                     absl::StatusCode::kUnavailable);
  EXPECT_STATUS_CODE(vfs_->Remove("/d/f"), absl::StatusCode::kUnavailable);
  EXPECT_EQ(BaseContents("/d/f"), "one");
  // The crash restores the power.
  ASSERT_OK(vfs_->SimulateCrash());
  EXPECT_OK(vfs_->Exists("/d/f"));
}

TEST_F(FaultVfsTest, CrashRevertsTheModificationStampToTheLastSync) {
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open("/d/f", OpenMode::kCreate));
  ASSERT_OK(vfs_->SyncDirectory("/d"));
  ASSERT_OK(file->WriteAt(0, "synced"));
  ASSERT_OK(file->Sync());
  ASSERT_OK_AND_ASSIGN(uint64_t synced, file->ModificationStamp());
  ASSERT_OK(file->WriteAt(0, "lost"));
  ASSERT_OK_AND_ASSIGN(uint64_t unsynced, file->ModificationStamp());
  EXPECT_GT(unsynced, synced);
  ASSERT_OK(vfs_->SimulateCrash());
  ASSERT_OK_AND_ASSIGN(auto reopened, vfs_->Open("/d/f", OpenMode::kReadWrite));
  ASSERT_OK_AND_ASSIGN(uint64_t after_crash, reopened->ModificationStamp());
  EXPECT_EQ(after_crash, synced);
  // The next write moves it on past everything seen before.
  ASSERT_OK(reopened->WriteAt(0, "new"));
  ASSERT_OK_AND_ASSIGN(uint64_t rewritten, reopened->ModificationStamp());
  EXPECT_GT(rewritten, unsynced);
}

TEST_F(FaultVfsTest, MappingIsDeclinedUntilEnabled) {
  ASSERT_OK(WriteStringToFile(*vfs_, "/d/f", "bytes"));
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open("/d/f", OpenMode::kReadOnly));
  EXPECT_FALSE(vfs_->mapping());
  EXPECT_STATUS_CODE(file->MapReadOnly(0, 5).status(),
                     absl::StatusCode::kUnimplemented);
  EXPECT_EQ(vfs_->CallCount(VfsOp::kMapReadOnly), 0);
  vfs_->set_mapping(true);
  ASSERT_OK_AND_ASSIGN(auto region, file->MapReadOnly(1, 3));
  EXPECT_EQ(region->data(), "yte");
  EXPECT_EQ(vfs_->CallCount(VfsOp::kMapReadOnly), 1);
}

TEST_F(FaultVfsTest, UnsyncedWriteDisappearsAfterCrash) {
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open("/d/f", OpenMode::kCreate));
  ASSERT_OK(vfs_->SyncDirectory("/d"));
  ASSERT_OK(file->WriteAt(0, "synced"));
  ASSERT_OK(file->SyncData());
  ASSERT_OK(file->WriteAt(6, "-lost"));
  ASSERT_OK(file->WriteAt(0, "SYNCED"));  // An overwrite, also unsynced.
  EXPECT_EQ(BaseContents("/d/f"), "SYNCED-lost");

  ASSERT_OK(vfs_->SimulateCrash());
  EXPECT_EQ(BaseContents("/d/f"), "synced");
  ASSERT_OK_AND_ASSIGN(std::string through_fault,
                       ReadFileToString(*vfs_, "/d/f"));
  EXPECT_EQ(through_fault, "synced");
}

TEST_F(FaultVfsTest, SyncedWriteSurvivesCrash) {
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open("/d/f", OpenMode::kCreate));
  ASSERT_OK(vfs_->SyncDirectory("/d"));
  ASSERT_OK(file->WriteAt(0, "first"));
  ASSERT_OK(file->Sync());
  ASSERT_OK(file->WriteAt(5, " second"));
  ASSERT_OK(file->Sync());
  ASSERT_OK(vfs_->SimulateCrash());
  EXPECT_EQ(BaseContents("/d/f"), "first second");
}

TEST_F(FaultVfsTest, VectoredAndTruncatingChangesRevertToo) {
  ASSERT_OK(WriteStringToFile(*base_, "/d/f", "0123456789"));
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open("/d/f", OpenMode::kReadWrite));
  absl::string_view pieces[] = {"ab", "cd"};
  ASSERT_OK(file->WriteVectorAt(8, pieces));
  ASSERT_OK(file->Truncate(3));
  ASSERT_OK(vfs_->SimulateCrash());
  // The file predates tracking, so its contents then were durable.
  EXPECT_EQ(BaseContents("/d/f"), "0123456789");
}

TEST_F(FaultVfsTest, GarbleModeCorruptsOnlyUnsyncedRanges) {
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open("/d/f", OpenMode::kCreate));
  ASSERT_OK(vfs_->SyncDirectory("/d"));
  const std::string synced(64, 's');
  const std::string unsynced(64, 'u');
  ASSERT_OK(file->WriteAt(0, synced));
  ASSERT_OK(file->Sync());
  ASSERT_OK(file->WriteAt(64, unsynced));
  ASSERT_OK(vfs_->SimulateCrash(FaultVfs::CrashMode::kGarbleUnsynced, 7));
  const std::string after = BaseContents("/d/f");
  ASSERT_EQ(after.size(), 128u);
  EXPECT_EQ(after.substr(0, 64), synced);
  // 64 pseudo-random bytes equal to the intended ones would be a miracle.
  EXPECT_NE(after.substr(64), unsynced);
}

// A killed process loses nothing the kernel took: unsynced writes, and a
// file created (by a cut right after its creating open) and never written.
TEST_F(FaultVfsTest, KillKeepsEveryCompletedCallAndNothingAfter) {
  ASSERT_OK_AND_ASSIGN(auto written, vfs_->Open("/d/w", OpenMode::kCreate));
  ASSERT_OK(written->WriteAt(0, "unsynced"));
  vfs_->CutPowerAfter(1);  // The creating open below, and nothing after.
  ASSERT_OK_AND_ASSIGN(auto empty, vfs_->Open("/d/e", OpenMode::kCreate));
  EXPECT_STATUS_CODE(empty->WriteAt(0, "never"),
                     absl::StatusCode::kUnavailable);
  ASSERT_OK(vfs_->SimulateCrash(FaultVfs::CrashMode::kKillProcess));
  EXPECT_EQ(BaseContents("/d/w"), "unsynced");
  EXPECT_TRUE(BaseExists("/d/e"));
  EXPECT_EQ(BaseContents("/d/e"), "");
  // Its handles are closed, as a dead process's are.
  EXPECT_STATUS_CODE(written->WriteAt(0, "x"),
                     absl::StatusCode::kFailedPrecondition);
}

TEST_F(FaultVfsTest, TheCutRunsItsActionOnceAtTheFirstRefusedCall) {
  int actions = 0;
  vfs_->set_on_power_cut([&] { ++actions; });
  vfs_->CutPowerAfter(1);
  ASSERT_OK(vfs_->CreateDirectory("/d/a"));
  EXPECT_EQ(actions, 0);
  EXPECT_STATUS_CODE(vfs_->CreateDirectory("/d/b"),
                     absl::StatusCode::kUnavailable);
  EXPECT_STATUS_CODE(vfs_->CreateDirectory("/d/c"),
                     absl::StatusCode::kUnavailable);
  EXPECT_EQ(actions, 1);
}

TEST_F(FaultVfsTest, FileCreatedWithoutDirectorySyncVanishes) {
  ASSERT_OK_AND_ASSIGN(auto kept, vfs_->Open("/d/kept", OpenMode::kCreate));
  ASSERT_OK(kept->WriteAt(0, "k"));
  ASSERT_OK(kept->Sync());
  ASSERT_OK(vfs_->SyncDirectory("/d"));
  ASSERT_OK_AND_ASSIGN(auto lost, vfs_->Open("/d/lost", OpenMode::kCreate));
  ASSERT_OK(lost->WriteAt(0, "l"));
  ASSERT_OK(lost->Sync());  // Contents synced, directory entry not.
  ASSERT_OK(vfs_->SimulateCrash());
  EXPECT_TRUE(BaseExists("/d/kept"));
  EXPECT_FALSE(BaseExists("/d/lost"));
}

TEST_F(FaultVfsTest, RenamedFileKeepsItsDurability) {
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open("/d/tmp", OpenMode::kCreate));
  ASSERT_OK(file->WriteAt(0, "header"));
  ASSERT_OK(file->Sync());
  ASSERT_OK(vfs_->Rename("/d/tmp", "/d/final"));
  ASSERT_OK(vfs_->SyncDirectory("/d"));
  ASSERT_OK(file->WriteAt(0, "HEADER"));  // Through the old handle, unsynced.
  ASSERT_OK(vfs_->SimulateCrash());
  EXPECT_FALSE(BaseExists("/d/tmp"));
  EXPECT_EQ(BaseContents("/d/final"), "header");
}

TEST_F(FaultVfsTest, CrashClosesHandlesAndReleasesLocks) {
  ASSERT_OK_AND_ASSIGN(auto holder, vfs_->Open("/d/lock", OpenMode::kCreate));
  ASSERT_OK(vfs_->SyncDirectory("/d"));
  ASSERT_OK(holder->TryLock());
  ASSERT_OK(vfs_->SimulateCrash());
  std::string buffer;
  EXPECT_STATUS_CODE(holder->ReadAt(0, absl::MakeSpan(buffer)),
                     absl::StatusCode::kFailedPrecondition);
  EXPECT_STATUS_CODE(holder->WriteAt(0, "x"),
                     absl::StatusCode::kFailedPrecondition);
  ASSERT_OK_AND_ASSIGN(auto next, vfs_->Open("/d/lock", OpenMode::kReadWrite));
  EXPECT_OK(next->TryLock());
}

TEST_F(FaultVfsTest, CrashOverRealFilesystem) {
  ASSERT_OK_AND_ASSIGN(auto posix, CreateVfs("posix"));
  FaultVfs vfs(posix.get());
  const std::string dir = absl::StrCat(TestTempDir(), "/fault_crash");
  ASSERT_OK(vfs.CreateDirectory(dir));
  const std::string path = dir + "/f";
  ASSERT_OK_AND_ASSIGN(auto file, vfs.Open(path, OpenMode::kCreate));
  ASSERT_OK(vfs.SyncDirectory(dir));
  ASSERT_OK(file->WriteAt(0, "durable"));
  ASSERT_OK(file->SyncData());
  ASSERT_OK(file->WriteAt(7, " and not"));
  ASSERT_OK(vfs.SimulateCrash());
  ASSERT_OK_AND_ASSIGN(std::string contents, ReadFileToString(*posix, path));
  EXPECT_EQ(contents, "durable");
}

}  // namespace
}  // namespace loaderx
