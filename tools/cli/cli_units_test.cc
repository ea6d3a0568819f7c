// The command line's plumbing: JSON output, argument parsing, staged
// destinations and exit codes.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/dense_store.h"
#include "loaderx/error_code.h"
#include "loaderx/vfs_registry.h"
#include "tests/status_testing.h"
#include "tools/cli/arguments.h"
#include "tools/cli/cli.h"
#include "tools/cli/exit_code.h"
#include "tools/cli/json_writer.h"
#include "tools/cli/staged_output.h"

namespace loaderx::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(JsonTest, DumpsInOrderAndEscapes) {
  Json object = Json::MakeObject();
  object.Set("z", uint64_t{18446744073709551615u});
  object.Set("a", int64_t{-3});
  object.Set("s", "quote\" back\\ nl\n ctl\x01 bad\xff é");
  object.Set("n", Json());
  object.Set("list", Json::Numbers({1, 2}));
  object.Set("ok", true);
  EXPECT_EQ(object.Dump(false),
            "{\"z\":18446744073709551615,\"a\":-3,\"s\":\"quote\\\" back\\\\ "
            "nl\\n ctl\\u0001 bad\\ufffd \xc3\xa9\",\"n\":null,\"list\":[1, "
            "2],\"ok\":true}");
  EXPECT_EQ(Json::MakeObject().Dump(), "{}");
  EXPECT_EQ(Json(0.5).Dump(), "0.5");
  EXPECT_EQ(Json(std::numeric_limits<double>::infinity()).Dump(), "null");
}

CommandSpec Spec() {
  return {"recode",
          "SOURCE DESTINATION",
          "summary",
          "",
          {{"--codec", "CODEC", "which"}, {"--json", "", "json"}},
          2,
          2};
}

absl::StatusOr<ParsedArguments> Parse(std::vector<std::string> words) {
  return ParseArguments(Spec(), words);
}

TEST(ArgumentsTest, ParsesOptionsAndPositionals) {
  ASSERT_OK_AND_ASSIGN(ParsedArguments parsed,
                       Parse({"a", "--codec", "raw", "--json", "b"}));
  EXPECT_THAT(parsed.positionals, ElementsAre("a", "b"));
  EXPECT_EQ(parsed.Value("--codec"), "raw");
  EXPECT_TRUE(parsed.Has("--json"));
  ASSERT_OK_AND_ASSIGN(parsed, Parse({"--codec=zstd", "--", "--a", "b"}));
  EXPECT_EQ(parsed.Value("--codec"), "zstd");
  EXPECT_THAT(parsed.positionals, ElementsAre("--a", "b"));
  ASSERT_OK_AND_ASSIGN(parsed, Parse({"--help"}));
  EXPECT_TRUE(parsed.help);
}

TEST(ArgumentsTest, RefusesWhatTheSpecDoesNotSay) {
  const auto message = [](std::vector<std::string> words) {
    absl::StatusOr<ParsedArguments> parsed = Parse(std::move(words));
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(parsed.status().message());
  };
  EXPECT_THAT(message({"a", "b", "--level", "3"}),
              HasSubstr("unknown option '--level'"));
  EXPECT_THAT(message({"a", "b", "--codec"}), HasSubstr("needs a value"));
  EXPECT_THAT(message({"a", "b", "--json=1"}), HasSubstr("takes no value"));
  EXPECT_THAT(message({"a"}), HasSubstr("needs SOURCE DESTINATION"));
  EXPECT_THAT(message({"a", "b", "c"}), HasSubstr("not 'c'"));
  EXPECT_THAT(message({"a", "b", "--codec", "x", "--codec", "y"}),
              HasSubstr("more than once"));
  EXPECT_THAT(CommandHelp(Spec(), "loaderx"),
              HasSubstr("usage: loaderx recode [options] SOURCE DESTINATION"));
}

TEST(StagedOutputTest, AppearsWholeOrNotAtAll) {
  const fs::path root = fs::path(testing::TempDir()) / "staged";
  fs::remove_all(root);
  fs::create_directories(root);
  const std::string destination = (root / "out").string();
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<StagedOutput> staged,
                         StagedOutput::Reserve(destination));
    fs::create_directory(staged->path());
    std::ofstream(fs::path(staged->path()) / "file") << "partial";
    EXPECT_FALSE(fs::exists(destination));
  }  // Not committed: removed.
  EXPECT_TRUE(fs::is_empty(root));

  ASSERT_OK_AND_ASSIGN(std::unique_ptr<StagedOutput> staged,
                       StagedOutput::Reserve(destination));
  std::ofstream(staged->path()) << "whole";
  ASSERT_OK(staged->Commit());
  staged.reset();
  EXPECT_TRUE(fs::is_regular_file(destination));
  EXPECT_EQ(StagedOutput::Reserve(destination).status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(
      StagedOutput::Reserve((root / "no" / "out").string()).status().code(),
      absl::StatusCode::kNotFound);

  // Something appears at the destination meanwhile: it is kept, the
  // output is not moved over it.
  const std::string raced = (root / "raced").string();
  ASSERT_OK_AND_ASSIGN(staged, StagedOutput::Reserve(raced));
  fs::create_directory(staged->path());
  fs::create_directory(raced);
  EXPECT_EQ(staged->Commit().code(), absl::StatusCode::kAlreadyExists);
  staged.reset();
  EXPECT_TRUE(fs::is_directory(raced));
  EXPECT_EQ(std::distance(fs::directory_iterator(root), {}), 2);
}

// A path with a NUL byte would reach the store before it if it were cut
// short: every command refuses it as a usage error, naming it, and neither
// the store nor the directory changes.
TEST(PathTest, ANulByteInAPathIsAUsageErrorAndTouchesNothing) {
  const fs::path root = fs::path(testing::TempDir()) / "nul_paths";
  fs::remove_all(root);
  fs::create_directories(root);
  const std::string store_path = (root / "a").string();
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Vfs> vfs, CreateVfs("posix"));
    StoreOptions options;
    options.codec = "raw";
    ASSERT_OK_AND_ASSIGN(
        std::unique_ptr<DenseStore> store,
        DenseStore::Create(*vfs, store_path,
                           TypeIdentity{DType::Simple("|u1"), {2}}, options));
    ASSERT_OK(store->Append(std::string("abcd")));
  }
  const std::string with_nul = store_path + std::string("\0b", 2);
  const auto listing = [&] {
    std::vector<std::string> names;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      names.push_back(entry.path().string() + ":" +
                      std::to_string(entry.is_regular_file()
                                         ? fs::file_size(entry.path())
                                         : 0));
    }
    std::sort(names.begin(), names.end());
    return names;
  };
  const std::vector<std::string> before = listing();
  const std::vector<std::vector<std::string>> command_lines = {
      {"loaderx", "info", with_nul},
      {"loaderx", "verify", with_nul},
      {"loaderx", "compact", with_nul},
      {"loaderx", "recode", with_nul, (root / "copy").string()},
      {"loaderx", "recode", store_path,
       (root / "copy").string() + std::string("\0x", 2)},
  };
  for (const std::vector<std::string>& command_line : command_lines) {
    std::ostringstream out, err;
    EXPECT_EQ(RunCli(command_line, out, err), kExitUsage) << command_line[1];
    EXPECT_THAT(err.str(), HasSubstr("contains a NUL byte")) << command_line[1];
    EXPECT_EQ(listing(), before) << command_line[1];
  }
}

TEST(ExitCodeTest, SeparatesDamageUsageAndFailure) {
  EXPECT_EQ(ExitCodeFor(absl::OkStatus()), kExitOk);
  EXPECT_EQ(ExitCodeFor(absl::DataLossError("bad")), kExitDamaged);
  EXPECT_EQ(ExitCodeFor(absl::NotFoundError("none")), kExitUsage);
  EXPECT_EQ(ExitCodeFor(absl::InvalidArgumentError("bad")), kExitUsage);
  EXPECT_EQ(ExitCodeFor(KindMismatchError("ragged")), kExitUsage);
  EXPECT_EQ(ExitCodeFor(absl::FailedPreconditionError("read-only")),
            kExitFailed);
  EXPECT_EQ(ExitCodeFor(absl::UnavailableError("io")), kExitFailed);
  EXPECT_EQ(ExitCodeFor(absl::CancelledError("sigint")), kExitInterrupted);
}

}  // namespace
}  // namespace loaderx::cli
