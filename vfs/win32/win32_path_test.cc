// The UTF-8 to extended-length UTF-16 conversion every win32 VFS call goes
// through, and the error table.

#include "vfs/win32/win32_path.h"

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/vfs.h"
#include "tests/status_testing.h"
#include "vfs/win32/win32_error.h"
#include "vfs/win32/windows_include.h"

namespace loaderx {
namespace {

using ::testing::HasSubstr;

std::wstring Converted(absl::string_view path) {
  absl::StatusOr<std::wstring> wide = ToWin32Path(path);
  EXPECT_TRUE(wide.ok()) << wide.status();
  return wide.ok() ? *wide : L"";
}

TEST(Win32PathTest, AbsolutePathsGetTheExtendedPrefix) {
  EXPECT_EQ(Converted("C:\\data\\store"), L"\\\\?\\C:\\data\\store");
  EXPECT_EQ(Converted("C:/data/store/meta.zr"),
            L"\\\\?\\C:\\data\\store\\meta.zr");
  EXPECT_EQ(Converted("C:\\data/store\\meta.zr"),
            L"\\\\?\\C:\\data\\store\\meta.zr");
  EXPECT_EQ(Converted("\\\\server\\share\\data"),
            L"\\\\?\\UNC\\server\\share\\data");
}

TEST(Win32PathTest, DotsAndTrailingSeparatorsAreResolved) {
  EXPECT_EQ(Converted("C:/data/./x/../store/"), L"\\\\?\\C:\\data\\store");
  EXPECT_EQ(Converted("C:/"), L"\\\\?\\C:\\");
}

TEST(Win32PathTest, ExtendedPathsAreTakenAsGiven) {
  EXPECT_EQ(Converted("\\\\?\\C:\\a\\..\\b"), L"\\\\?\\C:\\a\\..\\b");
}

TEST(Win32PathTest, RelativePathsResolveAgainstTheCurrentDirectory) {
  wchar_t current[MAX_PATH];
  ASSERT_GT(::GetCurrentDirectoryW(MAX_PATH, current), 0u);
  std::wstring expected = std::wstring(L"\\\\?\\") + current;
  if (expected.back() != L'\\') expected += L'\\';
  EXPECT_EQ(Converted("store/meta.zr"), expected + L"store\\meta.zr");
}

TEST(Win32PathTest, Utf8BecomesUtf16) {
  // "données/日本/🙂": two- and three-byte UTF-8, and a character outside
  // the BMP (a surrogate pair in UTF-16).
  const std::string utf8 =
      "C:/donn\xc3\xa9"
      "es/\xe6\x97\xa5\xe6\x9c\xac/\xf0\x9f\x99\x82";
  EXPECT_EQ(Converted(utf8),
            L"\\\\?\\C:\\donn\u00e9es\\\u65e5\u672c\\\U0001F642");
  ASSERT_OK_AND_ASSIGN(std::string back, WideToUtf8(L"donn\u00e9es"));
  EXPECT_EQ(back,
            "donn\xc3\xa9"
            "es");
}

TEST(Win32PathTest, MalformedPathsAreInvalidArgument) {
  EXPECT_STATUS_CODE(ToWin32Path("C:/bad\xff"
                                 "name"),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(ToWin32Path(std::string("C:/nul\0name", 11)),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(WideToUtf8(std::wstring(1, wchar_t{0xD800})),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(ToWin32Path(""), absl::StatusCode::kNotFound);
}

TEST(Win32PathTest, ParentPaths) {
  EXPECT_EQ(Win32ParentPath(L"\\\\?\\C:\\a\\b"), L"\\\\?\\C:\\a");
  EXPECT_EQ(Win32ParentPath(L"\\\\?\\C:\\a"), L"\\\\?\\C:\\");
  EXPECT_EQ(Win32ParentPath(L"\\\\?\\C:\\"), L"");
  EXPECT_EQ(Win32ParentPath(L"\\\\?\\UNC\\server\\share\\a"),
            L"\\\\?\\UNC\\server\\share\\");
  EXPECT_EQ(Win32ParentPath(L"\\\\?\\UNC\\server\\share\\"), L"");
}

TEST(Win32ErrorTest, CodesFollowTheVfsTable) {
  EXPECT_EQ(Win32ErrorCode(ERROR_FILE_NOT_FOUND), absl::StatusCode::kNotFound);
  EXPECT_EQ(Win32ErrorCode(ERROR_PATH_NOT_FOUND), absl::StatusCode::kNotFound);
  EXPECT_EQ(Win32ErrorCode(ERROR_FILE_EXISTS),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(Win32ErrorCode(ERROR_ALREADY_EXISTS),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(Win32ErrorCode(ERROR_DIR_NOT_EMPTY),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Win32ErrorCode(ERROR_ACCESS_DENIED),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(Win32ErrorCode(ERROR_DISK_FULL),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(Win32ErrorCode(ERROR_CRC), absl::StatusCode::kDataLoss);
  EXPECT_EQ(Win32ErrorCode(ERROR_INVALID_NAME),
            absl::StatusCode::kInvalidArgument);
}

TEST(Win32ErrorTest, SharingAndLockViolationsAreBusy) {
  EXPECT_TRUE(IsBusy(Win32Error("open", "C:/x", ERROR_SHARING_VIOLATION)));
  EXPECT_TRUE(IsBusy(Win32Error("lock", "C:/x", ERROR_LOCK_VIOLATION)));
  // A device that went away is unavailable, not busy.
  absl::Status not_ready = Win32Error("read", "C:/x", ERROR_NOT_READY);
  EXPECT_EQ(not_ready.code(), absl::StatusCode::kUnavailable);
  EXPECT_FALSE(IsBusy(not_ready));
}

TEST(Win32ErrorTest, MessagesNameOperationPathAndReason) {
  absl::Status status =
      Win32Error("open", "C:/data/meta.zr", ERROR_ACCESS_DENIED);
  EXPECT_THAT(status.message(), HasSubstr("open C:/data/meta.zr: "));
  EXPECT_THAT(status.message(), HasSubstr("(Windows error 5)"));
  // The system's own text, not just the number.
  EXPECT_GT(status.message().size(),
            std::string("open C:/data/meta.zr: (Windows error 5)").size() + 5);
}

}  // namespace
}  // namespace loaderx
