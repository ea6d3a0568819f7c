// Win32-only behaviour the shared conformance suite cannot show: paths past
// MAX_PATH and in any script, both separators, the lock between processes
// and between handles, a file another program holds exclusively, and errors
// that carry the system's reason.
//
// The test binary is also its own child process: `--try-lock PATH` and
// `--try-lock-shared PATH` open PATH, try the exclusive or the shared lock
// and exit 0 if it is busy, 1 if it was granted and 2 on any other outcome.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "tests/status_testing.h"
#include "tests/temp_dir.h"
#include "vfs/win32/win32_path.h"
#include "vfs/win32/windows_include.h"

namespace loaderx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

int TryLockInChild(const char* path, bool shared) {
  absl::StatusOr<std::unique_ptr<Vfs>> vfs = CreateVfs("win32");
  if (!vfs.ok()) return 2;
  auto file = (*vfs)->Open(path, OpenMode::kReadOnly);
  if (!file.ok()) return 2;
  absl::Status status = shared ? (*file)->TryLockShared() : (*file)->TryLock();
  if (status.ok()) return 1;
  return IsBusy(status) ? 0 : 2;
}

// Runs this executable with `--try-lock path` (or `--try-lock-shared path`)
// and returns its exit code.
int RunTryLockChild(const std::string& path, bool shared = false) {
  wchar_t self[MAX_PATH];
  const DWORD length = ::GetModuleFileNameW(nullptr, self, MAX_PATH);
  if (length == 0 || length == MAX_PATH) return -1;
  absl::StatusOr<std::wstring> wide_path = Utf8ToWide(path);
  if (!wide_path.ok()) return -1;
  const std::wstring flag = shared ? L"--try-lock-shared" : L"--try-lock";
  std::wstring command =
      std::wstring(L"\"") + self + L"\" " + flag + L" \"" + *wide_path + L"\"";
  STARTUPINFOW startup = {};
  startup.cb = sizeof(startup);
  PROCESS_INFORMATION process = {};
  if (!::CreateProcessW(nullptr, command.data(), nullptr, nullptr,
                        /*bInheritHandles=*/FALSE, 0, nullptr, nullptr,
                        &startup, &process)) {
    return -1;
  }
  ::WaitForSingleObject(process.hProcess, INFINITE);
  DWORD exit_code = 0;
  ::GetExitCodeProcess(process.hProcess, &exit_code);
  ::CloseHandle(process.hThread);
  ::CloseHandle(process.hProcess);
  return static_cast<int>(exit_code);
}

class Win32VfsTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(vfs_, CreateVfs("win32"));
    root_ = absl::StrCat(
        TestTempDir(), "/win32_",
        testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_OK(vfs_->CreateDirectory(root_));
  }

  std::string Path(absl::string_view name) const {
    return absl::StrCat(root_, "/", name);
  }

  std::unique_ptr<Vfs> vfs_;
  std::string root_;
};

TEST_F(Win32VfsTest, PathsLongerThanMaxPathWork) {
  // Six nested 60-character directories take the path well past the
  // 260-character MAX_PATH limit.
  std::string dir = root_;
  for (char c = 'a'; c < 'g'; ++c) {
    dir = absl::StrCat(dir, "/", std::string(60, c));
    ASSERT_OK(vfs_->CreateDirectory(dir));
  }
  const std::string file = absl::StrCat(dir, "/record.chunk");
  ASSERT_GT(file.size(), 400u);
  ASSERT_OK(WriteStringToFile(*vfs_, file, "deep", /*sync=*/true));
  ASSERT_OK_AND_ASSIGN(std::string contents, ReadFileToString(*vfs_, file));
  EXPECT_EQ(contents, "deep");
  ASSERT_OK_AND_ASSIGN(auto names, vfs_->List(dir));
  EXPECT_THAT(names, ElementsAre("record.chunk"));
  const std::string renamed = absl::StrCat(dir, "/renamed.chunk");
  ASSERT_OK(vfs_->Rename(file, renamed));
  ASSERT_OK(vfs_->SyncDirectory(dir));
  ASSERT_OK(vfs_->Remove(renamed));
  ASSERT_OK_AND_ASSIGN(bool exists, vfs_->Exists(renamed));
  EXPECT_FALSE(exists);
  ASSERT_OK(vfs_->RemoveDirectory(dir));
}

TEST_F(Win32VfsTest, NamesInAnyScriptRoundTrip) {
  const std::string names[] = {
      "donn\xc3\xa9"
      "es",                        // é: two UTF-8 bytes
      "\xe6\x97\xa5\xe6\x9c\xac",  // 日本: three bytes each
      "\xf0\x9f\x99\x82.chunk",    // 🙂: four bytes, a surrogate pair
  };
  for (const std::string& name : names) {
    ASSERT_OK(WriteStringToFile(*vfs_, Path(name), name));
  }
  ASSERT_OK_AND_ASSIGN(auto listed, vfs_->List(root_));
  EXPECT_THAT(listed, ElementsAre(names[0], names[1], names[2]));
  for (const std::string& name : names) {
    ASSERT_OK_AND_ASSIGN(std::string contents,
                         ReadFileToString(*vfs_, Path(name)));
    EXPECT_EQ(contents, name);
  }
}

TEST_F(Win32VfsTest, MalformedUtf8IsInvalidArgumentAndCreatesNothing) {
  EXPECT_STATUS_CODE(vfs_->Open(Path("bad\xff"), OpenMode::kCreate),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(vfs_->CreateDirectory(Path("bad\xff")),
                     absl::StatusCode::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(auto names, vfs_->List(root_));
  EXPECT_TRUE(names.empty());
}

TEST_F(Win32VfsTest, BothSeparatorsNameTheSameFile) {
  std::string backslashed = absl::StrCat(root_, "\\file");
  ASSERT_OK(WriteStringToFile(*vfs_, backslashed, "one file"));
  ASSERT_OK_AND_ASSIGN(std::string contents,
                       ReadFileToString(*vfs_, Path("file")));
  EXPECT_EQ(contents, "one file");
  ASSERT_OK_AND_ASSIGN(contents, ReadFileToString(*vfs_, Path("sub/../file")));
  EXPECT_EQ(contents, "one file");
}

TEST_F(Win32VfsTest, LockExcludesAnotherProcess) {
  const std::string path = Path("meta.zr");
  ASSERT_OK_AND_ASSIGN(auto holder, vfs_->Open(path, OpenMode::kCreate));
  ASSERT_OK(holder->TryLock());
  EXPECT_EQ(RunTryLockChild(path), 0);
  holder.reset();  // Closing the handle releases the lock.
  EXPECT_EQ(RunTryLockChild(path), 1);
}

TEST_F(Win32VfsTest, SharedLocksBetweenProcesses) {
  const std::string path = Path("meta.zr");
  ASSERT_OK(WriteStringToFile(*vfs_, path, "x"));
  ASSERT_OK_AND_ASSIGN(auto reader, vfs_->Open(path, OpenMode::kReadOnly));
  ASSERT_OK(reader->TryLockShared());
  EXPECT_EQ(RunTryLockChild(path, /*shared=*/true), 1);  // Readers coexist.
  EXPECT_EQ(RunTryLockChild(path), 0);                   // A writer is busy.
  reader.reset();
  EXPECT_EQ(RunTryLockChild(path), 1);
}

TEST_F(Win32VfsTest, LockLeavesTheDataToOtherHandles) {
  // Windows locks are mandatory, so the lock sits on a byte no I/O
  // touches: another handle still reads and writes the locked file. (Wine
  // does not enforce byte-range locks on reads and writes, so under Wine
  // this shows only that the lock and other handles' I/O coexist.)
  const std::string path = Path("meta.zr");
  ASSERT_OK_AND_ASSIGN(auto holder, vfs_->Open(path, OpenMode::kCreate));
  ASSERT_OK(holder->WriteAt(0, "header"));
  ASSERT_OK(holder->TryLock());
  ASSERT_OK_AND_ASSIGN(auto other, vfs_->Open(path, OpenMode::kReadWrite));
  std::string read(6, '\0');
  ASSERT_OK(other->ReadAt(0, absl::MakeSpan(read)));
  EXPECT_EQ(read, "header");
  ASSERT_OK(other->WriteAt(6, "+more"));
  ASSERT_OK(other->Truncate(64));
  EXPECT_TRUE(IsBusy(other->TryLock()));
  ASSERT_OK_AND_ASSIGN(uint64_t size, holder->Size());
  EXPECT_EQ(size, 64u);
}

TEST_F(Win32VfsTest, FileHeldExclusivelyByAnotherProgramIsBusy) {
  const std::string path = Path("held");
  ASSERT_OK(WriteStringToFile(*vfs_, path, "x"));
  ASSERT_OK_AND_ASSIGN(std::wstring wide, ToWin32Path(path));
  // What a program that opens without sharing (the default of `CreateFile`)
  // does to everyone else.
  HANDLE exclusive =
      ::CreateFileW(wide.c_str(), GENERIC_READ, 0, nullptr, OPEN_EXISTING,
                    FILE_ATTRIBUTE_NORMAL, nullptr);
  ASSERT_NE(exclusive, INVALID_HANDLE_VALUE);
  absl::Status status = vfs_->Open(path, OpenMode::kReadOnly).status();
  ::CloseHandle(exclusive);
  EXPECT_TRUE(IsBusy(status)) << status;
  EXPECT_THAT(status.message(), HasSubstr(path));
  EXPECT_OK(vfs_->Open(path, OpenMode::kReadOnly).status());
}

TEST_F(Win32VfsTest, DeviceNamesAreNotFiles) {
  // "NUL" in any directory is the null device to Win32, and `\\.\` paths
  // name devices: neither opens as a file.
  for (const std::string& path : {Path("NUL"), std::string("\\\\.\\NUL")}) {
    EXPECT_STATUS_CODE(vfs_->Open(path, OpenMode::kReadOnly),
                       absl::StatusCode::kFailedPrecondition);
  }
}

TEST_F(Win32VfsTest, TruncatingBelowAMappedViewIsFailedPrecondition) {
  // Windows keeps a mapped view's bytes in the file: it refuses to cut
  // them off (POSIX would leave the view pointing past the end).
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("m"), OpenMode::kCreate));
  ASSERT_OK(file->WriteAt(0, std::string(100000, 'm')));
  ASSERT_OK_AND_ASSIGN(auto region, file->MapReadOnly(70000, 30000));
  EXPECT_STATUS_CODE(file->Truncate(1000),
                     absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(region->data(), std::string(30000, 'm'));
  region.reset();
  EXPECT_OK(file->Truncate(1000));
}

TEST_F(Win32VfsTest, ErrorsCarryThePathAndTheReason) {
  absl::Status status =
      vfs_->Open(Path("no/such/file"), OpenMode::kReadOnly).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr(Path("no/such/file")));
  EXPECT_THAT(status.message(), HasSubstr("(Windows error 3)"));
}

TEST_F(Win32VfsTest, SyncThroughAReadOnlyHandle) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("r"), "data"));
  ASSERT_OK_AND_ASSIGN(auto reader, vfs_->Open(Path("r"), OpenMode::kReadOnly));
  EXPECT_OK(reader->Sync());
  EXPECT_OK(reader->SyncData());
}

TEST_F(Win32VfsTest, SyncDirectoryOfAFileIsFailedPrecondition) {
  ASSERT_OK(WriteStringToFile(*vfs_, Path("f"), "x"));
  EXPECT_STATUS_CODE(vfs_->SyncDirectory(Path("f")),
                     absl::StatusCode::kFailedPrecondition);
}

TEST_F(Win32VfsTest, LargeVectoredWriteMixesCoalescedAndDirectPieces) {
  // Small pieces are staged and written together, pieces of 1 MiB and more
  // go straight to the file; the bytes must land in order either way.
  std::vector<std::string> storage;
  std::string expected;
  for (int i = 0; i < 40; ++i) {
    const size_t size = i % 10 == 0 ? (size_t{1} << 20) + i : 997 * i;
    storage.push_back(std::string(size, static_cast<char>('a' + i % 26)));
    expected += storage.back();
  }
  std::vector<absl::string_view> pieces(storage.begin(), storage.end());
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(Path("v"), OpenMode::kCreate));
  ASSERT_OK(file->WriteVectorAt(3, pieces));
  std::string back(expected.size(), '\0');
  ASSERT_OK(file->ReadAt(3, absl::MakeSpan(back)));
  EXPECT_TRUE(back == expected);
  ASSERT_OK_AND_ASSIGN(uint64_t size, file->Size());
  EXPECT_EQ(size, 3 + expected.size());
}

}  // namespace
}  // namespace loaderx

int main(int argc, char** argv) {
  if (argc == 3 && std::string_view(argv[1]) == "--try-lock") {
    return loaderx::TryLockInChild(argv[2], /*shared=*/false);
  }
  if (argc == 3 && std::string_view(argv[1]) == "--try-lock-shared") {
    return loaderx::TryLockInChild(argv[2], /*shared=*/true);
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
