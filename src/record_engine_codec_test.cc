// The engine finds a codec's behaviour through its capabilities, not its
// tag: a user's verbatim codec takes the raw codec's paths (no contexts at
// all), and the compression level reaches the codec on create and on open.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "loaderx/codec.h"
#include "loaderx/codec_registry.h"
#include "loaderx/vfs_registry.h"
#include "src/record_engine.h"
#include "tests/record_testing.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

// Stores records as they are, and refuses to make contexts: a store of it
// works only if the engine honours `stores_verbatim` and never asks.
class VerbatimOnlyCodec final : public Codec {
 public:
  absl::string_view name() const override { return "test_verbatim"; }
  uint8_t tag() const override { return 200; }
  bool uses_dictionary() const override { return false; }
  bool stores_verbatim() const override { return true; }
  size_t CompressBound(size_t size) const override { return size; }
  absl::StatusOr<std::unique_ptr<CompressionContext>> NewCompressionContext()
      const override {
    return absl::InternalError("a verbatim codec was asked to compress");
  }
  absl::StatusOr<std::unique_ptr<DecompressionContext>>
  NewDecompressionContext() const override {
    return absl::InternalError("a verbatim codec was asked to decompress");
  }
};

const CodecRegistration kVerbatim(
    "test_verbatim", 200, [](const CodecOptions&) {
      return absl::StatusOr<std::unique_ptr<Codec>>(
          std::make_unique<VerbatimOnlyCodec>());
    });

TEST(RecordEngineCodecTest, AUsersVerbatimCodecTakesTheZeroCopyPaths) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("memory"));
  RecordEngineOptions options;
  options.codec = "test_verbatim";
  const std::string data = RecordsFor(0, 10, 100);
  {
    ASSERT_OK_AND_ASSIGN(auto engine,
                         RecordEngine::Create(*vfs, "/store", options));
    ASSERT_OK(engine->AppendFixed(data, 10, 100).status());
  }
  ASSERT_OK_AND_ASSIGN(auto engine, RecordEngine::Open(*vfs, "/store"));
  EXPECT_EQ(engine->codec().name(), "test_verbatim");
  std::string out(300, '\0');
  ASSERT_OK(engine->GatherFixed({7, 0, 9}, 100, absl::MakeSpan(out)));
  EXPECT_EQ(out, RecordFor(7, 100) + RecordFor(0, 100) + RecordFor(9, 100));
  // The chunk holds the records' own bytes.
  ASSERT_OK_AND_ASSIGN(std::string chunk,
                       ReadFileToString(*vfs, "/store/0.chunk"));
  EXPECT_EQ(chunk, data);
}

TEST(RecordEngineCodecTest, TheLevelReachesTheCodecOnCreateAndOpen) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("memory"));
  RecordEngineOptions options;
  options.codec = "zstd";
  options.codec_options.level = 1000;
  EXPECT_STATUS_CODE(RecordEngine::Create(*vfs, "/bad", options).status(),
                     absl::StatusCode::kInvalidArgument);

  options.codec_options.level = 19;
  const std::string data = RecordsFor(0, 20, 500);
  {
    ASSERT_OK_AND_ASSIGN(auto engine,
                         RecordEngine::Create(*vfs, "/store", options));
    ASSERT_OK(engine->AppendFixed(data, 20, 500).status());
  }
  RecordEngineOptions reopen;
  reopen.codec_options.level = -1000000;
  EXPECT_STATUS_CODE(RecordEngine::Open(*vfs, "/store", reopen).status(),
                     absl::StatusCode::kInvalidArgument);
  reopen.codec_options.level = 1;
  ASSERT_OK_AND_ASSIGN(auto engine, RecordEngine::Open(*vfs, "/store", reopen));
  ASSERT_OK(engine->AppendFixed(data, 20, 500).status());
  std::string out(1000, '\0');
  ASSERT_OK(engine->GatherFixed({3, 23}, 500, absl::MakeSpan(out)));
  EXPECT_EQ(out, RecordFor(3, 500) + RecordFor(3, 500));
}

}  // namespace
}  // namespace loaderx
