// The VFS conformance suite, part 2: lock modes, read-only mappings and
// modification stamps (the contract of `VfsFile::TryLock`, `TryLockShared`,
// `MapReadOnly` and `ModificationStamp`).

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/vfs.h"
#include "tests/status_testing.h"
#include "tests/vfs_conformance.h"

namespace loaderx {
namespace {

using ::testing::HasSubstr;

TEST_P(VfsConformanceTest, ModificationStampGrowsWithEveryChange) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("stamped"), "one"));
  ASSERT_OK_AND_ASSIGN(auto reader,
                       vfs_->Open(Path("stamped"), OpenMode::kReadOnly));
  absl::StatusOr<uint64_t> first = reader->ModificationStamp();
  if (absl::IsUnimplemented(first.status())) GTEST_SKIP() << first.status();
  ASSERT_OK(first.status());
  // Reading changes nothing.
  std::string byte(1, '\0');
  ASSERT_OK(reader->ReadAt(0, absl::MakeSpan(byte)));
  ASSERT_OK_AND_ASSIGN(uint64_t unchanged, reader->ModificationStamp());
  EXPECT_EQ(unchanged, *first);
  // A write through another handle, past a coarse clock's tick, is later;
  // so is a truncation.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_OK_AND_ASSIGN(auto writer,
                       vfs_->Open(Path("stamped"), OpenMode::kReadWrite));
  ASSERT_OK(writer->WriteAt(0, "two"));
  ASSERT_OK_AND_ASSIGN(uint64_t written, reader->ModificationStamp());
  EXPECT_GT(written, *first);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_OK(writer->Truncate(1));
  ASSERT_OK_AND_ASSIGN(uint64_t truncated, writer->ModificationStamp());
  EXPECT_GT(truncated, written);
}

TEST_P(VfsConformanceTest, SharedLocksCoexistAndExcludeTheExclusiveOne) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("lock"), "x"));
  ASSERT_OK_AND_ASSIGN(auto reader1,
                       vfs_->Open(Path("lock"), OpenMode::kReadOnly));
  ASSERT_OK_AND_ASSIGN(auto reader2,
                       vfs_->Open(Path("lock"), OpenMode::kReadOnly));
  ASSERT_OK_AND_ASSIGN(auto writer,
                       vfs_->Open(Path("lock"), OpenMode::kReadWrite));
  ASSERT_OK(reader1->TryLockShared());
  EXPECT_OK(reader1->TryLockShared());  // Again through the holder.
  ASSERT_OK(reader2->TryLockShared());
  absl::Status busy = writer->TryLock();
  EXPECT_TRUE(IsBusy(busy)) << busy;
  // The exclusive lock becomes free only when the last reader goes.
  reader1.reset();
  EXPECT_TRUE(IsBusy(writer->TryLock()));
  reader2.reset();
  EXPECT_OK(writer->TryLock());
}

TEST_P(VfsConformanceTest, ExclusiveLockExcludesReaders) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("lock"), "x"));
  ASSERT_OK_AND_ASSIGN(auto writer,
                       vfs_->Open(Path("lock"), OpenMode::kReadWrite));
  ASSERT_OK_AND_ASSIGN(auto reader,
                       vfs_->Open(Path("lock"), OpenMode::kReadOnly));
  ASSERT_OK(writer->TryLock());
  absl::Status busy = reader->TryLockShared();
  EXPECT_TRUE(IsBusy(busy)) << busy;
  EXPECT_THAT(busy.message(), HasSubstr(Path("lock")));
  writer.reset();
  EXPECT_OK(reader->TryLockShared());
}

TEST_P(VfsConformanceTest, ReadOnlyHandlesTakeEitherLock) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("lock"), "x"));
  ASSERT_OK_AND_ASSIGN(auto first,
                       vfs_->Open(Path("lock"), OpenMode::kReadOnly));
  EXPECT_OK(first->TryLock());
  first.reset();
  ASSERT_OK_AND_ASSIGN(auto second,
                       vfs_->Open(Path("lock"), OpenMode::kReadOnly));
  EXPECT_OK(second->TryLockShared());
}

TEST_P(VfsConformanceTest, LocksAreNeverConverted) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("lock"), "x"));
  ASSERT_OK_AND_ASSIGN(auto shared,
                       vfs_->Open(Path("lock"), OpenMode::kReadOnly));
  ASSERT_OK(shared->TryLockShared());
  EXPECT_STATUS_CODE(shared->TryLock(), absl::StatusCode::kFailedPrecondition);
  EXPECT_OK(shared->TryLockShared());  // Still held.
  shared.reset();
  ASSERT_OK_AND_ASSIGN(auto exclusive,
                       vfs_->Open(Path("lock"), OpenMode::kReadWrite));
  ASSERT_OK(exclusive->TryLock());
  EXPECT_STATUS_CODE(exclusive->TryLockShared(),
                     absl::StatusCode::kFailedPrecondition);
  EXPECT_OK(exclusive->TryLock());
}

TEST_P(VfsConformanceTest, MapReadOnlyShowsTheFilesBytes) {
  std::string contents(10000, '\0');
  for (size_t i = 0; i < contents.size(); ++i) {
    contents[i] = static_cast<char>(i * 7 + 3);
  }
  ASSERT_OK(WriteStringToFile(*vfs_, Path("m"), contents));
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("m"), OpenMode::kReadOnly));
  absl::StatusOr<std::unique_ptr<MappedRegion>> region =
      file->MapReadOnly(4099, 5000);
  if (!GetParam().can_map) {
    EXPECT_STATUS_CODE(region.status(), absl::StatusCode::kUnimplemented);
    return;
  }
  ASSERT_OK(region.status());
  EXPECT_EQ((*region)->data(), absl::string_view(contents).substr(4099, 5000));
  // A region outlives the handle that made it.
  file.reset();
  EXPECT_EQ((*region)->data(), absl::string_view(contents).substr(4099, 5000));
}

TEST_P(VfsConformanceTest, MapReadOnlyChecksTheRange) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("m"), "0123456789"));
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("m"), OpenMode::kReadOnly));
  if (!GetParam().can_map) {
    EXPECT_STATUS_CODE(file->MapReadOnly(0, 10).status(),
                       absl::StatusCode::kUnimplemented);
    return;
  }
  EXPECT_STATUS_CODE(file->MapReadOnly(5, 6).status(),
                     absl::StatusCode::kOutOfRange);
  EXPECT_STATUS_CODE(file->MapReadOnly(11, 0).status(),
                     absl::StatusCode::kOutOfRange);
  ASSERT_OK_AND_ASSIGN(auto whole, file->MapReadOnly(0, 10));
  EXPECT_EQ(whole->data(), "0123456789");
  ASSERT_OK_AND_ASSIGN(auto empty, file->MapReadOnly(10, 0));
  EXPECT_TRUE(empty->data().empty());
}

TEST_P(VfsConformanceTest, MappedBytesThatAreNotRewrittenStayValid) {
  // The engine maps committed bytes and keeps appending after them: the
  // region must keep its bytes while the file grows.
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("m"), OpenMode::kCreate));
  ASSERT_OK(file->WriteAt(0, "committed"));
  absl::StatusOr<std::unique_ptr<MappedRegion>> region =
      file->MapReadOnly(0, 9);
  if (!GetParam().can_map) {
    EXPECT_STATUS_CODE(region.status(), absl::StatusCode::kUnimplemented);
    return;
  }
  ASSERT_OK(region.status());
  ASSERT_OK(file->WriteAt(9, std::string(70000, 'a')));
  EXPECT_EQ((*region)->data(), "committed");
  ASSERT_OK_AND_ASSIGN(auto grown, file->MapReadOnly(9, 70000));
  EXPECT_EQ(grown->data(), std::string(70000, 'a'));
}

// `ConcurrentSyncs`: a VFS that says yes takes syncs of different files
// and of their directory from several threads at once (whatever it says,
// it is thread-safe; this is the use the engine makes of a yes).
TEST_P(VfsConformanceTest, SyncsOfDifferentFilesMayRunAtOnce) {
  if (!vfs_->ConcurrentSyncs()) GTEST_SKIP() << "syncs one at a time";
  constexpr int kFiles = 4;
  std::vector<std::unique_ptr<VfsFile>> files;
  for (int i = 0; i < kFiles; ++i) {
    ASSERT_OK_AND_ASSIGN(
        auto file, vfs_->Open(Path(absl::StrCat("f", i)), OpenMode::kCreate));
    ASSERT_OK(file->WriteAt(0, absl::StrCat("contents ", i)));
    files.push_back(std::move(file));
  }
  std::vector<absl::Status> synced(kFiles + 1);
  std::vector<std::thread> threads;
  for (int i = 0; i < kFiles; ++i) {
    threads.emplace_back([&, i] {
      synced[i] = i % 2 == 0 ? files[i]->SyncData() : files[i]->Sync();
    });
  }
  threads.emplace_back([&] { synced[kFiles] = vfs_->SyncDirectory(root_); });
  for (std::thread& thread : threads) thread.join();
  for (const absl::Status& status : synced) EXPECT_OK(status);
  for (int i = 0; i < kFiles; ++i) {
    ASSERT_OK_AND_ASSIGN(std::string contents,
                         ReadFileToString(*vfs_, Path(absl::StrCat("f", i))));
    EXPECT_EQ(contents, absl::StrCat("contents ", i));
  }
}

TEST_P(VfsConformanceTest, AvailableBytesIsANumberOrUnimplemented) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("space"), "x"));
  absl::StatusOr<uint64_t> available = vfs_->AvailableBytes(root_);
  if (absl::IsUnimplemented(available.status())) {
    GTEST_SKIP() << available.status();
  }
  ASSERT_OK(available.status());
  // A second look, after nothing much changed, is a number too.
  ASSERT_OK_AND_ASSIGN(const uint64_t again, vfs_->AvailableBytes(root_));
  (void)again;
}

TEST_P(VfsConformanceTest, AllocateExtendsWithZerosAndNeverShrinks) {
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("allocated"),
                                             OpenMode::kCreate));
  ASSERT_OK(file->WriteAt(0, "abc"));
  ASSERT_OK(file->Allocate(4096));
  ASSERT_OK_AND_ASSIGN(uint64_t size, file->Size());
  EXPECT_EQ(size, 4096u);
  std::string bytes(4096, 'x');
  ASSERT_OK(file->ReadAt(0, absl::MakeSpan(bytes)));
  EXPECT_EQ(bytes.substr(0, 3), "abc");
  EXPECT_EQ(bytes.substr(3), std::string(4093, '\0'));
  ASSERT_OK(file->Allocate(10));
  ASSERT_OK_AND_ASSIGN(size, file->Size());
  EXPECT_EQ(size, 4096u);
}

}  // namespace
}  // namespace loaderx
