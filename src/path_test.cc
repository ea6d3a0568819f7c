#include "loaderx/spi/path.h"

#include "gtest/gtest.h"

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

}  // namespace
}  // namespace loaderx
