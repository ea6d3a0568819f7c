// POSIX-only behaviour the shared conformance suite cannot show from one
// process: the locks exclude other processes, errors carry the OS's reason,
// special files are refused without blocking, and large mappings are placed
// where the kernel can map huge page-cache folios whole.

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/vfs_registry.h"
#include "tests/status_testing.h"
#include "tests/temp_dir.h"

namespace loaderx {
namespace {

using ::testing::HasSubstr;

std::string TempPath(absl::string_view name) {
  return absl::StrCat(TestTempDir(), "/", name);
}

// Runs `child` in a forked process and returns its exit code.
template <typename Child>
int RunInChild(Child child) {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(child());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(PosixVfsTest, LockExcludesAnotherProcess) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("posix"));
  const std::string path = TempPath("lock_between_processes");
  ASSERT_OK_AND_ASSIGN(auto holder, vfs->Open(path, OpenMode::kCreate));
  ASSERT_OK(holder->TryLock());

  // Exit codes: 0 = busy as expected, 1 = lock granted, 2 = other error.
  auto try_lock_in_child = [&] {
    absl::StatusOr<std::unique_ptr<Vfs>> child_vfs = CreateVfs("posix");
    if (!child_vfs.ok()) return 2;
    auto file = (*child_vfs)->Open(path, OpenMode::kReadWrite);
    if (!file.ok()) return 2;
    absl::Status status = (*file)->TryLock();
    if (status.ok()) return 1;
    return IsBusy(status) ? 0 : 2;
  };
  EXPECT_EQ(RunInChild(try_lock_in_child), 0);

  holder.reset();  // Closing the descriptor releases the lock.
  EXPECT_EQ(RunInChild(try_lock_in_child), 1);
}

TEST(PosixVfsTest, SharedLockExcludesAWriterInAnotherProcess) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("posix"));
  const std::string path = TempPath("shared_lock_between_processes");
  ASSERT_OK(WriteStringToFile(*vfs, path, "x"));
  ASSERT_OK_AND_ASSIGN(auto reader, vfs->Open(path, OpenMode::kReadOnly));
  ASSERT_OK(reader->TryLockShared());

  // Exit codes: bit 0 = a second reader was admitted, bit 1 = the writer
  // was refused as busy.
  auto child = [&] {
    absl::StatusOr<std::unique_ptr<Vfs>> child_vfs = CreateVfs("posix");
    if (!child_vfs.ok()) return 8;
    auto other_reader = (*child_vfs)->Open(path, OpenMode::kReadOnly);
    auto writer = (*child_vfs)->Open(path, OpenMode::kReadWrite);
    if (!other_reader.ok() || !writer.ok()) return 8;
    int code = 0;
    if ((*other_reader)->TryLockShared().ok()) code |= 1;
    if (IsBusy((*writer)->TryLock())) code |= 2;
    return code;
  };
  EXPECT_EQ(RunInChild(child), 3);
}

TEST(PosixVfsTest, OpeningAFifoFailsWithoutBlocking) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("posix"));
  const std::string path = TempPath("fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  // With no writer on the other end, a blocking open(2) would wait forever.
  for (OpenMode mode :
       {OpenMode::kReadOnly, OpenMode::kReadWrite, OpenMode::kCreate}) {
    absl::StatusOr<std::unique_ptr<VfsFile>> file = vfs->Open(path, mode);
    EXPECT_STATUS_CODE(file.status(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(file.status().message(), HasSubstr("not a regular file"));
  }
  EXPECT_STATUS_CODE(ReadFileToString(*vfs, path).status(),
                     absl::StatusCode::kFailedPrecondition);
}

TEST(PosixVfsTest, ASymlinkLoopIsTheWrongKindOfObject) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("posix"));
  const std::string path = TempPath("loop");
  ASSERT_EQ(::symlink(path.c_str(), path.c_str()), 0);  // Points at itself.
  for (OpenMode mode :
       {OpenMode::kReadOnly, OpenMode::kReadWrite, OpenMode::kCreate}) {
    absl::StatusOr<std::unique_ptr<VfsFile>> file = vfs->Open(path, mode);
    EXPECT_STATUS_CODE(file.status(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(file.status().message(), HasSubstr(path));
  }
  EXPECT_STATUS_CODE(vfs->CreateDirectory(path + "/below"),
                     absl::StatusCode::kFailedPrecondition);
}

TEST(PosixVfsTest, OpeningACharacterDeviceIsRefused) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("posix"));
  EXPECT_STATUS_CODE(vfs->Open("/dev/zero", OpenMode::kReadOnly).status(),
                     absl::StatusCode::kFailedPrecondition);
}

// The kernel's transparent huge page size, or 0 where it has none.
uint64_t HugePageBytes() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
  uint64_t bytes = 0;
  return in >> bytes ? bytes : 0;
}

// The inaccessible anonymous mappings (what a mapping's reservation is) of
// this process, as [begin, end) ranges from /proc/self/maps. Counting
// mappings would not do: a sanitizer's runtime maps shadow memory of its
// own as the test maps files.
std::vector<std::pair<uintptr_t, uintptr_t>> Reservations() {
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
  std::ifstream in("/proc/self/maps");
  for (std::string line; std::getline(in, line);) {
    unsigned long begin = 0, end = 0, inode = 0;
    unsigned long long offset = 0;
    char permissions[5] = {}, device[16] = {}, path[8] = {};
    const int fields =
        std::sscanf(line.c_str(), "%lx-%lx %4s %llx %15s %lu %7s", &begin, &end,
                    permissions, &offset, device, &inode, path);
    if (fields == 6 && inode == 0 && std::string(permissions) == "---p") {
      ranges.emplace_back(begin, end);
    }
  }
  return ranges;
}

TEST(PosixVfsTest, LargeMappingsArePlacedForHugePages) {
  const uint64_t huge = HugePageBytes();
  if (huge == 0) GTEST_SKIP() << "the kernel reports no huge page size";
  std::string bytes(2 * huge + 3 * 4096 + 123, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<char>(i * 2654435761u >> 13);
  }
  const std::string path = TempPath("placed");
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("posix"));
  ASSERT_OK_AND_ASSIGN(auto file, vfs->Open(path, OpenMode::kCreate));
  ASSERT_OK(file->WriteAt(0, bytes));
  // From the start, from a page inside the first huge page, and from an
  // unaligned byte halfway into it: each lands as far into a huge page as
  // its offset lies into the file's, and holds the file's bytes.
  for (const uint64_t offset :
       {uint64_t{0}, uint64_t{3 * 4096}, huge / 2 + 17}) {
    const uint64_t length = bytes.size() - offset;
    ASSERT_OK_AND_ASSIGN(auto region, file->MapReadOnly(offset, length));
    const uintptr_t at = reinterpret_cast<uintptr_t>(region->data().data());
    EXPECT_EQ((at - offset) % huge, 0u) << "offset " << offset;
    ASSERT_EQ(region->data().size(), length);
    EXPECT_TRUE(region->data() == absl::string_view(bytes).substr(offset))
        << "offset " << offset;
  }
}

TEST(PosixVfsTest, PlacingAMappingLeavesNoReservationBehind) {
  const uint64_t huge = HugePageBytes();
  if (huge == 0) GTEST_SKIP() << "no huge page size";
  const std::string path = TempPath("reservations");
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("posix"));
  ASSERT_OK_AND_ASSIGN(auto file, vfs->Open(path, OpenMode::kCreate));
  ASSERT_OK(file->WriteAt(0, std::string(huge + 5000, 'r')));
  // The reservation is the mapping's length plus a huge page: its head
  // lies within a huge page before the mapping, its tail within one after
  // its last page. Every page of both must be released, while the region
  // is held and after.
  std::vector<std::unique_ptr<MappedRegion>> held;
  std::vector<std::pair<uintptr_t, uintptr_t>>
      spans;  // [first, last page end).
  for (int i = 0; i < 8; ++i) {
    ASSERT_OK_AND_ASSIGN(auto region, file->MapReadOnly(4096, huge + 904));
    const uintptr_t first = reinterpret_cast<uintptr_t>(region->data().data());
    spans.emplace_back(first,
                       (first + region->data().size() + 4095) / 4096 * 4096);
    held.push_back(std::move(region));
  }
  auto expect_released = [&] {
    for (const auto& [begin, end] : Reservations()) {
      for (const auto& [first, last] : spans) {
        // Neither the huge page before the mapping nor the one after it.
        EXPECT_FALSE(begin < first && end > first - huge)
            << "a reservation's head before " << first;
        EXPECT_FALSE(begin < last + huge && end > last)
            << "a reservation's tail after " << last;
      }
    }
  };
  expect_released();
  held.clear();
  expect_released();
}

// A file-size limit makes the kernel accept only part of a write: the
// first call returns short, the retry for the rest fails with EFBIG. The
// write loops must keep going after the short write and then report the
// error, leaving exactly the accepted prefix. Run in a child so the limit
// does not touch the test process.
TEST(PosixVfsTest, ShortWritesAreContinuedThenReported) {
  const std::string path = TempPath("short_write");
  auto write_past_limit = [&](bool vectored) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {1000, 1000};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return 10;
    auto vfs = CreateVfs("posix");
    if (!vfs.ok()) return 11;
    auto file = (*vfs)->Open(path, OpenMode::kCreate);
    if (!file.ok() || !(*file)->Truncate(0).ok()) return 12;
    const std::string piece(700, 'x');
    absl::string_view pieces[] = {piece, piece, piece};
    absl::Status status = vectored
                              ? (*file)->WriteVectorAt(0, pieces)
                              : (*file)->WriteAt(0, std::string(2100, 'x'));
    if (status.ok()) return 1;  // The limit should have stopped it.
    if (status.message().find(path) == absl::string_view::npos) return 2;
    auto size = (*file)->Size();
    return size.ok() && *size == 1000 ? 0 : 3;
  };
  EXPECT_EQ(RunInChild([&] { return write_past_limit(false); }), 0);
  EXPECT_EQ(RunInChild([&] { return write_past_limit(true); }), 0);
}

TEST(PosixVfsTest, ErrorsCarryThePathAndTheReason) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("posix"));
  absl::Status status =
      vfs->Open(TempPath("no/such/file"), OpenMode::kReadOnly).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr(TempPath("no/such/file")));
  EXPECT_THAT(status.message(), HasSubstr("No such file or directory"));
}

TEST(PosixVfsTest, HandlesAreNotInheritedAcrossExec) {
  // O_CLOEXEC: a handle opened by the store does not leak into a child that
  // execs, so a spawned process cannot keep a store's lock alive.
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("posix"));
  const std::string path = TempPath("cloexec");
  ASSERT_OK_AND_ASSIGN(auto holder, vfs->Open(path, OpenMode::kCreate));
  ASSERT_OK(holder->TryLock());
  const std::string fd_dir = "/proc/self/fd";
  int exit_code = RunInChild([&] {
    // `ls -l /proc/self/fd` in the exec'd shell lists inherited descriptors.
    const std::string command = absl::StrCat("ls -l ", fd_dir, " | grep -q ",
                                             path, " && exit 3; exit 0");
    ::execl("/bin/sh", "sh", "-c", command.c_str(), nullptr);
    return 4;
  });
  EXPECT_EQ(exit_code, 0);
}

}  // namespace
}  // namespace loaderx
