// Runs the kill loop (kill_loop.cc) for a short while: a child process
// SIGKILLed at random instants of appends, deletes and compactions, every
// record checked after each kill.

#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"

namespace loaderx {
namespace {

const char* tool = nullptr;

std::string RunCommand(const std::string& command, int& status) {
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return "popen failed";
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof(buffer), pipe)) {
    output.append(buffer, n);
  }
  status = ::pclose(pipe);
  return output;
}

TEST(KillLoopTest, NothingIsLostAcrossSigkills) {
  ASSERT_NE(tool, nullptr);
  for (const char* codec : {"raw", "zstd"}) {
    const std::string dir = TestTempDir() + "/kill_loop_" + codec;
    ASSERT_EQ(std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str()),
              0);
    int status = 0;
    const std::string output = RunCommand(
        std::string(tool) + " --kills=25 --max_delay_ms=30 --codec=" + codec +
            " --dir=" + dir + " 2>&1",
        status);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
    EXPECT_THAT(output, testing::HasSubstr("kill loop: 25 kills")) << output;
  }
}

// A SIGKILL before each mutating call of a creation, dense and ragged, in
// every codec: each path opens or is created again.
TEST(KillLoopTest, EveryKilledCreationCanBeCreatedAgain) {
  ASSERT_NE(tool, nullptr);
  const std::string dir = TestTempDir() + "/kill_loop_create";
  ASSERT_EQ(std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str()), 0);
  int status = 0;
  const std::string output = RunCommand(
      std::string(tool) + " --create --dir=" + dir + " 2>&1", status);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
  EXPECT_THAT(output, testing::ContainsRegex("kill loop \\(create\\): [0-9]+ "
                                             "kill points"))
      << output;
  EXPECT_THAT(output, testing::HasSubstr(", 0 stuck")) << output;
  std::printf("%s", output.c_str());
}

}  // namespace
}  // namespace loaderx

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc > 1) loaderx::tool = argv[1];
  return RUN_ALL_TESTS();
}
