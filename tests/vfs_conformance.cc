#include "tests/vfs_conformance.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/vfs.h"
#include "tests/concurrency.h"
#include "tests/status_testing.h"
#include "tests/temp_dir.h"

namespace loaderx {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string VfsUnderTestName(const testing::TestParamInfo<VfsUnderTest>& info) {
  return info.param.name;
}

std::string MakeTempRoot(Vfs& vfs) {
  static std::atomic<int> counter{0};
  const std::string root = absl::StrCat(TestTempDir(), "/vfs_conformance_",
                                        ::getpid(), "_", counter.fetch_add(1));
  absl::Status status = vfs.CreateDirectory(root);
  EXPECT_TRUE(status.ok()) << status;
  return root;
}

std::string MakeMemoryRoot(Vfs& vfs) {
  absl::Status status = vfs.CreateDirectory("/root");
  EXPECT_TRUE(status.ok()) << status;
  return "/root";
}

void VfsConformanceTest::SetUp() {
  vfs_ = GetParam().make();
  ASSERT_NE(vfs_, nullptr);
  root_ = GetParam().make_root(*vfs_);
}

std::string VfsConformanceTest::Path(const std::string& name) const {
  return absl::StrCat(root_, "/", name);
}

namespace {

std::string Read(const VfsFile& file, uint64_t offset, size_t size) {
  std::string out(size, '\0');
  absl::Status status = file.ReadAt(offset, absl::MakeSpan(out));
  EXPECT_TRUE(status.ok()) << status;
  return out;
}

TEST_P(VfsConformanceTest, WriteThenReadBack) {
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("a"), OpenMode::kCreate));
  EXPECT_EQ(file->path(), Path("a"));
  ASSERT_OK(file->WriteAt(0, "hello world"));
  EXPECT_EQ(Read(*file, 0, 11), "hello world");
  EXPECT_EQ(Read(*file, 6, 5), "world");
  ASSERT_OK(file->WriteAt(6, "there"));
  EXPECT_EQ(Read(*file, 0, 11), "hello there");
  ASSERT_OK_AND_ASSIGN(uint64_t size, file->Size());
  EXPECT_EQ(size, 11u);

  // A second handle sees the same bytes.
  ASSERT_OK_AND_ASSIGN(auto reader, vfs_->Open(Path("a"), OpenMode::kReadOnly));
  EXPECT_EQ(Read(*reader, 0, 11), "hello there");
}

TEST_P(VfsConformanceTest, WritePastEndZeroFillsTheGap) {
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("a"), OpenMode::kCreate));
  ASSERT_OK(file->WriteAt(4, "xy"));
  EXPECT_EQ(Read(*file, 0, 6), std::string("\0\0\0\0xy", 6));
}

TEST_P(VfsConformanceTest, OpenMissingFileIsNotFound) {
  EXPECT_STATUS_CODE(vfs_->Open(Path("missing"), OpenMode::kReadOnly),
                     absl::StatusCode::kNotFound);
  EXPECT_STATUS_CODE(vfs_->Open(Path("missing"), OpenMode::kReadWrite),
                     absl::StatusCode::kNotFound);
  auto status = vfs_->Open(Path("missing"), OpenMode::kReadOnly).status();
  EXPECT_THAT(status.message(), HasSubstr(Path("missing")));
  // Failing opens create nothing.
  ASSERT_OK_AND_ASSIGN(bool exists, vfs_->Exists(Path("missing")));
  EXPECT_FALSE(exists);
}

TEST_P(VfsConformanceTest, OpenInMissingDirectoryIsNotFound) {
  EXPECT_STATUS_CODE(vfs_->Open(Path("no_dir/a"), OpenMode::kCreate),
                     absl::StatusCode::kNotFound);
}

TEST_P(VfsConformanceTest, CreateKeepsExistingContents) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("a"), "kept"));
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("a"), OpenMode::kCreate));
  EXPECT_EQ(Read(*file, 0, 4), "kept");
}

TEST_P(VfsConformanceTest, CreateExclusiveOnExistingFileIsAlreadyExists) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("a"), "kept"));
  EXPECT_STATUS_CODE(vfs_->Open(Path("a"), OpenMode::kCreateExclusive),
                     absl::StatusCode::kAlreadyExists);
  ASSERT_OK_AND_ASSIGN(std::string contents,
                       ReadFileToString(*vfs_, Path("a")));
  EXPECT_EQ(contents, "kept");
  ASSERT_OK(vfs_->Open(Path("b"), OpenMode::kCreateExclusive).status());
}

TEST_P(VfsConformanceTest, OpenDirectoryIsFailedPrecondition) {
  ASSERT_OK(vfs_->CreateDirectory(Path("d")));
  for (OpenMode mode :
       {OpenMode::kReadOnly, OpenMode::kReadWrite, OpenMode::kCreate}) {
    EXPECT_STATUS_CODE(vfs_->Open(Path("d"), mode),
                       absl::StatusCode::kFailedPrecondition);
  }
}

TEST_P(VfsConformanceTest, OpenUnderAFileIsFailedPrecondition) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("f"), "x"));
  EXPECT_STATUS_CODE(vfs_->Open(Path("f/child"), OpenMode::kCreate),
                     absl::StatusCode::kFailedPrecondition);
  EXPECT_STATUS_CODE(vfs_->CreateDirectory(Path("f/child")),
                     absl::StatusCode::kFailedPrecondition);
}

TEST_P(VfsConformanceTest, ReadPastEndIsOutOfRange) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("a"), "0123456789"));
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("a"), OpenMode::kReadOnly));
  std::string buffer(4, '\0');
  // Straddling the end.
  absl::Status straddle = file->ReadAt(8, absl::MakeSpan(buffer));
  EXPECT_EQ(straddle.code(), absl::StatusCode::kOutOfRange) << straddle;
  EXPECT_THAT(straddle.message(), HasSubstr(Path("a")));
  // Wholly beyond it.
  EXPECT_STATUS_CODE(file->ReadAt(100, absl::MakeSpan(buffer)),
                     absl::StatusCode::kOutOfRange);
  // Exactly up to the end, and an empty read at the end, are fine.
  EXPECT_EQ(Read(*file, 6, 4), "6789");
  EXPECT_OK(file->ReadAt(10, absl::Span<char>()));
  EXPECT_OK(file->ReadAt(1000, absl::Span<char>()));  // Empty: any offset.
}

TEST_P(VfsConformanceTest, EmptyWritePastEndDoesNotExtend) {
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("e"), OpenMode::kCreate));
  ASSERT_OK(file->WriteAt(0, "abc"));
  ASSERT_OK(file->WriteAt(100, ""));
  ASSERT_OK(file->WriteVectorAt(200, {}));
  ASSERT_OK_AND_ASSIGN(uint64_t size, file->Size());
  EXPECT_EQ(size, 3u);
}

TEST_P(VfsConformanceTest, WriteThroughReadOnlyHandleFails) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("a"), "abc"));
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("a"), OpenMode::kReadOnly));
  EXPECT_STATUS_CODE(file->WriteAt(0, "x"),
                     absl::StatusCode::kFailedPrecondition);
  absl::string_view pieces[] = {"x", "y"};
  EXPECT_STATUS_CODE(file->WriteVectorAt(0, pieces),
                     absl::StatusCode::kFailedPrecondition);
  EXPECT_STATUS_CODE(file->Truncate(0), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Read(*file, 0, 3), "abc");
}

TEST_P(VfsConformanceTest, VectoredWriteOfMoreThanIovMaxPieces) {
  // 3000 pieces of varying size (some empty) exceed IOV_MAX (1024) twice
  // over, so an implementation must split the request into batches.
  std::vector<std::string> storage;
  std::string expected;
  for (int i = 0; i < 3000; ++i) {
    storage.push_back(std::string(i % 7, static_cast<char>('a' + i % 26)));
    expected += storage.back();
  }
  std::vector<absl::string_view> pieces(storage.begin(), storage.end());
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("v"), OpenMode::kCreate));
  ASSERT_OK(file->WriteAt(0, "HEAD"));
  ASSERT_OK(file->WriteVectorAt(4, pieces));
  ASSERT_OK_AND_ASSIGN(uint64_t size, file->Size());
  EXPECT_EQ(size, 4 + expected.size());
  EXPECT_EQ(Read(*file, 4, expected.size()), expected);
  EXPECT_EQ(Read(*file, 0, 4), "HEAD");
}

TEST_P(VfsConformanceTest, VectoredWriteOfNothingIsFine) {
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("v"), OpenMode::kCreate));
  EXPECT_OK(file->WriteVectorAt(0, {}));
  absl::string_view empties[] = {"", ""};
  EXPECT_OK(file->WriteVectorAt(0, empties));
  ASSERT_OK_AND_ASSIGN(uint64_t size, file->Size());
  EXPECT_EQ(size, 0u);
}

TEST_P(VfsConformanceTest, TruncateShrinksAndZeroExtends) {
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("t"), OpenMode::kCreate));
  ASSERT_OK(file->WriteAt(0, "0123456789"));
  ASSERT_OK(file->Truncate(4));
  ASSERT_OK_AND_ASSIGN(uint64_t size, file->Size());
  EXPECT_EQ(size, 4u);
  EXPECT_EQ(Read(*file, 0, 4), "0123");
  std::string beyond(1, '\0');
  EXPECT_STATUS_CODE(file->ReadAt(4, absl::MakeSpan(beyond)),
                     absl::StatusCode::kOutOfRange);
  ASSERT_OK(file->Truncate(8));
  EXPECT_EQ(Read(*file, 0, 8), std::string("0123\0\0\0\0", 8));
}

TEST_P(VfsConformanceTest, SyncSucceedsOnWrittenFile) {
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("s"), OpenMode::kCreate));
  ASSERT_OK(file->WriteAt(0, "data"));
  EXPECT_OK(file->SyncData());
  EXPECT_OK(file->Sync());
  EXPECT_OK(vfs_->SyncDirectory(root_));
  EXPECT_STATUS_CODE(vfs_->SyncDirectory(Path("missing_dir")),
                     absl::StatusCode::kNotFound);
}

TEST_P(VfsConformanceTest, LockHeldTwiceIsBusy) {
  ASSERT_OK_AND_ASSIGN(auto first, vfs_->Open(Path("lock"), OpenMode::kCreate));
  ASSERT_OK_AND_ASSIGN(auto second,
                       vfs_->Open(Path("lock"), OpenMode::kReadWrite));
  ASSERT_OK(first->TryLock());
  EXPECT_OK(first->TryLock());  // Re-locking through the holder is fine.
  absl::Status busy = second->TryLock();
  EXPECT_TRUE(IsBusy(busy)) << busy;
  EXPECT_THAT(busy.message(), HasSubstr(Path("lock")));
  // Closing the holder releases the lock.
  first.reset();
  EXPECT_OK(second->TryLock());
}

TEST_P(VfsConformanceTest, OrdinaryErrorsAreNotBusy) {
  EXPECT_FALSE(
      IsBusy(vfs_->Open(Path("missing"), OpenMode::kReadOnly).status()));
  EXPECT_FALSE(IsBusy(absl::UnavailableError("device went away")));
  EXPECT_TRUE(IsBusy(BusyError("x")));
}

// A NUL byte would end the name for the C and Win32 APIs ("a\0b" would
// become "a"): every call that takes a path refuses it whole, and nothing
// appears under the truncated name.
TEST_P(VfsConformanceTest, PathWithNulByteIsInvalidArgumentAndMakesNothing) {
  const std::string with_nul = Path(std::string("a\0b", 3));
  ASSERT_OK(WriteStringToFile(*vfs_, Path("x"), "x"));
  for (OpenMode mode : {OpenMode::kReadOnly, OpenMode::kReadWrite,
                        OpenMode::kCreate, OpenMode::kCreateExclusive}) {
    EXPECT_STATUS_CODE(vfs_->Open(with_nul, mode),
                       absl::StatusCode::kInvalidArgument);
  }
  EXPECT_STATUS_CODE(vfs_->CreateDirectory(with_nul),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(vfs_->Remove(with_nul),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(vfs_->RemoveDirectory(with_nul),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(vfs_->List(with_nul), absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(vfs_->Exists(with_nul),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(vfs_->SyncDirectory(with_nul),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(vfs_->Rename(Path("x"), with_nul),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(vfs_->Rename(with_nul, Path("x")),
                     absl::StatusCode::kInvalidArgument);
  absl::Status refused = vfs_->Open(with_nul, OpenMode::kCreate).status();
  EXPECT_THAT(refused.message(), HasSubstr("NUL byte"));
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> names, vfs_->List(root_));
  EXPECT_THAT(names, ElementsAre("x"));
}

TEST_P(VfsConformanceTest, RemoveFile) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("a"), "x"));
  ASSERT_OK(vfs_->Remove(Path("a")));
  ASSERT_OK_AND_ASSIGN(bool exists, vfs_->Exists(Path("a")));
  EXPECT_FALSE(exists);
  EXPECT_STATUS_CODE(vfs_->Remove(Path("a")), absl::StatusCode::kNotFound);
}

TEST_P(VfsConformanceTest, RemoveOfDirectoryIsFailedPrecondition) {
  ASSERT_OK(vfs_->CreateDirectory(Path("d")));
  EXPECT_STATUS_CODE(vfs_->Remove(Path("d")),
                     absl::StatusCode::kFailedPrecondition);
  ASSERT_OK_AND_ASSIGN(bool exists, vfs_->Exists(Path("d")));
  EXPECT_TRUE(exists);
}

TEST_P(VfsConformanceTest, OpenHandleOutlivesRemove) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("a"), "still here"));
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("a"), OpenMode::kReadOnly));
  ASSERT_OK(vfs_->Remove(Path("a")));
  EXPECT_EQ(Read(*file, 0, 10), "still here");
}

TEST_P(VfsConformanceTest, RenameMovesAndReplaces) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("from"), "new"));
  ASSERT_OK(WriteStringToFile(*vfs_, Path("to"), "old contents"));
  ASSERT_OK(vfs_->Rename(Path("from"), Path("to")));
  ASSERT_OK_AND_ASSIGN(bool from_exists, vfs_->Exists(Path("from")));
  EXPECT_FALSE(from_exists);
  ASSERT_OK_AND_ASSIGN(std::string contents,
                       ReadFileToString(*vfs_, Path("to")));
  EXPECT_EQ(contents, "new");
  // To a fresh name too.
  ASSERT_OK(vfs_->Rename(Path("to"), Path("fresh")));
  ASSERT_OK_AND_ASSIGN(contents, ReadFileToString(*vfs_, Path("fresh")));
  EXPECT_EQ(contents, "new");
}

TEST_P(VfsConformanceTest, RenameOfMissingFileIsNotFound) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("to"), "kept"));
  EXPECT_STATUS_CODE(vfs_->Rename(Path("missing"), Path("to")),
                     absl::StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(std::string contents,
                       ReadFileToString(*vfs_, Path("to")));
  EXPECT_EQ(contents, "kept");
}

TEST_P(VfsConformanceTest, ListNamesEntriesSorted) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("b.chunk"), "x"));
  ASSERT_OK(WriteStringToFile(*vfs_, Path("a.loc"), "x"));
  ASSERT_OK(vfs_->CreateDirectory(Path("sub")));
  ASSERT_OK(WriteStringToFile(*vfs_, Path("sub/inner"), "x"));
  ASSERT_OK_AND_ASSIGN(auto names, vfs_->List(root_));
  EXPECT_THAT(names, ElementsAre("a.loc", "b.chunk", "sub"));
  ASSERT_OK_AND_ASSIGN(names, vfs_->List(Path("sub")));
  EXPECT_THAT(names, ElementsAre("inner"));
  EXPECT_STATUS_CODE(vfs_->List(Path("missing")), absl::StatusCode::kNotFound);
}

TEST_P(VfsConformanceTest, ListOfAFileIsFailedPrecondition) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("f"), "x"));
  EXPECT_STATUS_CODE(vfs_->List(Path("f")),
                     absl::StatusCode::kFailedPrecondition);
}

TEST_P(VfsConformanceTest, RenameIntoMissingDirectoryIsNotFound) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("f"), "kept"));
  EXPECT_STATUS_CODE(vfs_->Rename(Path("f"), Path("no_dir/f")),
                     absl::StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(std::string contents,
                       ReadFileToString(*vfs_, Path("f")));
  EXPECT_EQ(contents, "kept");
}

TEST_P(VfsConformanceTest, CreateDirectory) {
  ASSERT_OK(vfs_->CreateDirectory(Path("d")));
  ASSERT_OK_AND_ASSIGN(bool exists, vfs_->Exists(Path("d")));
  EXPECT_TRUE(exists);
  EXPECT_STATUS_CODE(vfs_->CreateDirectory(Path("d")),
                     absl::StatusCode::kAlreadyExists);
  ASSERT_OK(WriteStringToFile(*vfs_, Path("f"), "x"));
  EXPECT_STATUS_CODE(vfs_->CreateDirectory(Path("f")),
                     absl::StatusCode::kAlreadyExists);
  EXPECT_STATUS_CODE(vfs_->CreateDirectory(Path("no/such/parent")),
                     absl::StatusCode::kNotFound);
  ASSERT_OK(WriteStringToFile(*vfs_, Path("d/inside"), "ok"));
}

TEST_P(VfsConformanceTest, RemoveDirectory) {
  ASSERT_OK(vfs_->CreateDirectory(Path("d")));
  ASSERT_OK(WriteStringToFile(*vfs_, Path("d/f"), "x"));
  EXPECT_STATUS_CODE(vfs_->RemoveDirectory(Path("d")),
                     absl::StatusCode::kFailedPrecondition);
  ASSERT_OK(vfs_->Remove(Path("d/f")));
  ASSERT_OK(vfs_->RemoveDirectory(Path("d")));
  ASSERT_OK_AND_ASSIGN(bool exists, vfs_->Exists(Path("d")));
  EXPECT_FALSE(exists);
  EXPECT_STATUS_CODE(vfs_->RemoveDirectory(Path("d")),
                     absl::StatusCode::kNotFound);
}

TEST_P(VfsConformanceTest, ExistsForFilesAndDirectories) {
  ASSERT_OK_AND_ASSIGN(bool exists, vfs_->Exists(Path("x")));
  EXPECT_FALSE(exists);
  ASSERT_OK(WriteStringToFile(*vfs_, Path("x"), ""));
  ASSERT_OK_AND_ASSIGN(exists, vfs_->Exists(Path("x")));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(exists, vfs_->Exists(root_));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(exists, vfs_->Exists(Path("x/under_a_file")));
  EXPECT_FALSE(exists);
}

TEST_P(VfsConformanceTest, WholeFileHelpersRoundTrip) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("w"), "a longer first version"));
  ASSERT_OK(WriteStringToFile(*vfs_, Path("w"), "short"));
  ASSERT_OK_AND_ASSIGN(std::string contents,
                       ReadFileToString(*vfs_, Path("w")));
  EXPECT_EQ(contents, "short");
  ASSERT_OK(WriteStringToFile(*vfs_, Path("empty"), ""));
  ASSERT_OK_AND_ASSIGN(contents, ReadFileToString(*vfs_, Path("empty")));
  EXPECT_EQ(contents, "");
}

TEST_P(VfsConformanceTest, ConcurrentReadersAndDisjointWriters) {
  // One handle shared by many threads, each writing and reading back its
  // own slot.
  constexpr int kThreads = 4;
  constexpr size_t kSlot = 4096;
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("c"), OpenMode::kCreate));
  ASSERT_OK(file->Truncate(kThreads * kSlot));
  auto write_and_read_own_slot = [&](int t) -> absl::Status {
    const std::string slot(kSlot, static_cast<char>('A' + t));
    for (int round = 0; round < 20; ++round) {
      LOADERX_RETURN_IF_ERROR(file->WriteAt(t * kSlot, slot));
      std::string back(kSlot, '\0');
      LOADERX_RETURN_IF_ERROR(file->ReadAt(t * kSlot, absl::MakeSpan(back)));
      if (back != slot) return absl::DataLossError("slot read back wrong");
    }
    return absl::OkStatus();
  };
  for (const absl::Status& s :
       RunOnThreads(kThreads, write_and_read_own_slot)) {
    EXPECT_OK(s);
  }
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(Read(*file, t * kSlot, kSlot),
              std::string(kSlot, static_cast<char>('A' + t)));
  }
}

}  // namespace
}  // namespace loaderx
