// The engine finds a codec's behaviour through its capabilities, not its
// tag: a user's verbatim codec takes the raw codec's paths (no contexts at
// all), a codec not safe on damaged input never decodes a frame that fails
// its checksum, and the compression level reaches the codec on create and
// on open.

#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "loaderx/codec.h"
#include "loaderx/codec_registry.h"
#include "loaderx/error_code.h"
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

// Compresses by copying, and decompresses by running out of memory, the
// way a decoder does under a memory limit: from inside a pool thread.
class OutOfMemoryCodec final : public Codec {
 public:
  absl::string_view name() const override { return "test_out_of_memory"; }
  uint8_t tag() const override { return 201; }
  bool uses_dictionary() const override { return false; }
  size_t CompressBound(size_t size) const override { return size; }
  absl::StatusOr<std::unique_ptr<CompressionContext>> NewCompressionContext()
      const override {
    return CreateCodec("raw", {}).value()->NewCompressionContext();
  }
  absl::StatusOr<std::unique_ptr<DecompressionContext>>
  NewDecompressionContext() const override {
    throw std::bad_alloc();
  }
};

const CodecRegistration kOutOfMemory(
    "test_out_of_memory", 201, [](const CodecOptions&) {
      return absl::StatusOr<std::unique_ptr<Codec>>(
          std::make_unique<OutOfMemoryCodec>());
    });

// Frames that are the record's bytes, through the codec path (not
// verbatim). Decoding counts the frames holding `kDamageMark`, which no
// test record holds: the frames a test damaged.
constexpr char kDamageMark = '!';
std::atomic<int> damaged_frames_decoded[2];

template <bool kSafe>
class CopyingCodec final : public Codec {
 public:
  absl::string_view name() const override {
    return kSafe ? "test_copying_safe" : "test_copying_fragile";
  }
  uint8_t tag() const override { return kSafe ? 203 : 202; }
  bool uses_dictionary() const override { return false; }
  bool decodes_untrusted_input() const override { return kSafe; }
  size_t CompressBound(size_t size) const override { return size; }
  absl::StatusOr<std::unique_ptr<CompressionContext>> NewCompressionContext()
      const override {
    return std::make_unique<Copy>();
  }
  absl::StatusOr<std::unique_ptr<DecompressionContext>>
  NewDecompressionContext() const override {
    return std::make_unique<Copy>();
  }

 private:
  class Copy final : public CompressionContext, public DecompressionContext {
   public:
    absl::StatusOr<size_t> Compress(absl::string_view src,
                                    absl::Span<char> dst) override {
      std::memcpy(dst.data(), src.data(), src.size());
      return src.size();
    }
    absl::Status Decompress(absl::string_view src,
                            absl::Span<char> dst) override {
      if (src.find(kDamageMark) != absl::string_view::npos) {
        ++damaged_frames_decoded[kSafe];
      }
      if (src.size() != dst.size()) return absl::DataLossError("wrong size");
      std::memcpy(dst.data(), src.data(), src.size());
      return absl::OkStatus();
    }
  };
};

const CodecRegistration kCopyingFragile(
    "test_copying_fragile", 202, [](const CodecOptions&) {
      return absl::StatusOr<std::unique_ptr<Codec>>(
          std::make_unique<CopyingCodec<false>>());
    });
const CodecRegistration kCopyingSafe(
    "test_copying_safe", 203, [](const CodecOptions&) {
      return absl::StatusOr<std::unique_ptr<Codec>>(
          std::make_unique<CopyingCodec<true>>());
    });

// A damaged frame fails the read with the same error whichever order the
// engine checks and decodes in; only a codec safe on damaged input is ever
// handed one.
TEST(RecordEngineCodecTest, OnlyACodecSafeOnDamagedInputDecodesADamagedFrame) {
  std::string errors[2];
  for (const bool safe : {false, true}) {
    SCOPED_TRACE(safe ? "safe" : "fragile");
    ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("memory"));
    RecordEngineOptions options;
    options.codec = safe ? "test_copying_safe" : "test_copying_fragile";
    options.thread_pool = std::make_shared<ThreadPool>(1);
    {
      ASSERT_OK_AND_ASSIGN(auto engine,
                           RecordEngine::Create(*vfs, "/store", options));
      ASSERT_OK(engine->AppendFixed(RecordsFor(0, 64, 100), 64, 100).status());
      ASSERT_OK_AND_ASSIGN(auto chunk,
                           vfs->Open("/store/0.chunk", OpenMode::kReadWrite));
      ASSERT_OK(chunk->WriteAt(37 * 100 + 50, std::string(1, kDamageMark)));
    }
    ASSERT_OK_AND_ASSIGN(auto engine, RecordEngine::Open(*vfs, "/store"));
    std::vector<uint64_t> batch(64);
    for (uint64_t i = 0; i < 64; ++i) batch[i] = 63 - i;
    std::string out(64 * 100, '\0');
    damaged_frames_decoded[safe] = 0;
    const absl::Status status =
        engine->GatherFixed(batch, 100, absl::MakeSpan(out));
    EXPECT_EQ(ErrorCodeOf(status), ErrorCode::kCorruptRecord) << status;
    errors[safe] = std::string(status.message());
    if (safe) {
      EXPECT_GT(damaged_frames_decoded[safe], 0);
    } else {
      EXPECT_EQ(damaged_frames_decoded[safe], 0);
    }
    // Unverified, the damaged frame is decoded and the bytes come back.
    RecordEngineOptions unverified;
    unverified.verify_checksums = false;
    engine.reset();
    ASSERT_OK_AND_ASSIGN(engine,
                         RecordEngine::Open(*vfs, "/store", unverified));
    ASSERT_OK(engine->GatherFixed(batch, 100, absl::MakeSpan(out)));
    EXPECT_GT(damaged_frames_decoded[safe], 0);
  }
  EXPECT_EQ(errors[0], errors[1]);
  EXPECT_NE(errors[0].find("record 37"), std::string::npos) << errors[0];
}

TEST(RecordEngineCodecTest, BadAllocInAPoolThreadIsResourceExhausted) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("memory"));
  RecordEngineOptions options;
  options.codec = "test_out_of_memory";
  options.thread_pool = std::make_shared<ThreadPool>(3);
  ASSERT_OK_AND_ASSIGN(auto engine,
                       RecordEngine::Create(*vfs, "/store", options));
  ASSERT_OK(engine->AppendFixed(RecordsFor(0, 64, 16), 64, 16).status());
  std::vector<uint64_t> all(64);
  for (uint64_t i = 0; i < 64; ++i) all[i] = i;
  std::string out(64 * 16, '\0');
  absl::Status gathered = engine->GatherFixed(all, 16, absl::MakeSpan(out));
  EXPECT_EQ(gathered.code(), absl::StatusCode::kResourceExhausted) << gathered;
  EXPECT_STATUS_CODE(engine->Verify(), absl::StatusCode::kResourceExhausted);
  // The engine and its pool carry on.
  ASSERT_OK(engine->AppendFixed(RecordsFor(64, 1, 16), 1, 16).status());
  EXPECT_EQ(engine->length(), 65u);
}

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
