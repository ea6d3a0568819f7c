#include "loaderx/spi/path.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

TEST(PathTest, ParentDirectory) {
  EXPECT_EQ(ParentDirectory("name"), "");
  EXPECT_EQ(ParentDirectory("/name"), "/");
  EXPECT_EQ(ParentDirectory("/a/b/name"), "/a/b");
  EXPECT_EQ(ParentDirectory("a/name"), "a");
}

TEST(PathTest, BaseName) {
  EXPECT_EQ(BaseName("name"), "name");
  EXPECT_EQ(BaseName("/a/b/name"), "name");
  EXPECT_EQ(BaseName("/"), "");
}

TEST(PathTest, JoinPath) {
  EXPECT_EQ(JoinPath("", "x"), "x");
  EXPECT_EQ(JoinPath("/", "x"), "/x");
  EXPECT_EQ(JoinPath("/a", "x"), "/a/x");
  EXPECT_EQ(JoinPath("/a/", "x"), "/a/x");
}

#ifdef _WIN32
TEST(PathTest, WindowsPathsSeparateWithEitherSlash) {
  EXPECT_EQ(ParentDirectory("C:\\data\\store"), "C:\\data");
  EXPECT_EQ(ParentDirectory("C:\\data/store"), "C:\\data");
  EXPECT_EQ(ParentDirectory("C:\\store"), "C:\\");
  EXPECT_EQ(ParentDirectory("C:/store"), "C:/");
  EXPECT_EQ(BaseName("C:\\data\\meta.zr"), "meta.zr");
  EXPECT_EQ(JoinPath("C:\\data\\", "x"), "C:\\data\\x");
  EXPECT_EQ(JoinPath("C:\\data", "x"), "C:\\data/x");
}
#else
TEST(PathTest, BackslashIsAnOrdinaryCharacter) {
  EXPECT_EQ(ParentDirectory("/a\\b"), "/");
  EXPECT_EQ(BaseName("/a\\b"), "a\\b");
}
#endif

TEST(PathTest, ValidatePathRefusesANulByteAndNamesIt) {
  using std::string_literals::operator""s;
  for (const std::string& path :
       {"a\0b"s, "\0"s, "/d/store\0"s, "/d\0/store"s}) {
    const absl::Status status = ValidatePath(path);
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
    EXPECT_TRUE(absl::StrContains(status.message(), "contains a NUL byte"))
        << status;
    EXPECT_TRUE(absl::StrContains(status.message(), "\\x00")) << status;
  }
}

TEST(PathTest, ValidatePathTakesOrdinaryPaths) {
  for (const char* path :
       {"", "a", "/d/store", "rel/a b/c.zr", "caf\xc3\xa9", "C:/data/store"}) {
    EXPECT_TRUE(ValidatePath(path).ok()) << path;
  }
}

#ifdef _WIN32
TEST(PathTest, ValidatePathRefusesWhatWindowsCannotName) {
  for (const char* path : {"a<b", "a>b", "a\"b", "a|b", "a?b", "a*b", "a\x01b",
                           "C:/a:b", "ab:", "\xff", "\xc0\x80"}) {
    EXPECT_TRUE(absl::IsInvalidArgument(ValidatePath(path))) << path;
  }
  EXPECT_OK(ValidatePath("\\\\?\\C:\\data"));
  EXPECT_OK(ValidatePath("c:\\data"));
}
#else
TEST(PathTest, ValidatePathTakesAnyOtherBytesOutsideWindows) {
  EXPECT_OK(ValidatePath("a<b>c|d?e*f:g\x01\xff"));
}
#endif

}  // namespace
}  // namespace loaderx
