// The registries find plugins by name; the plugins here are defined only in
// this test file and register themselves exactly as a user's own would,
// without touching the engine.

#include "loaderx/registry.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/codec_registry.h"
#include "loaderx/typed_owner_registry.h"
#include "loaderx/vfs_registry.h"
#include "loaderx/vfs_wrapper.h"
#include "src/registration.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

// A user's VFS: a wrapper that counts opens, over nothing in particular.
class CountingVfs final : public VfsWrapper {
 public:
  static constexpr char kName[] = "test_counting";
  CountingVfs() : VfsWrapper(static_cast<Vfs*>(nullptr)) {}
  int opens = 0;
};

const VfsRegistration kVfsRegistration(CountingVfs::kName, []() {
  return absl::StatusOr<std::unique_ptr<Vfs>>(std::make_unique<CountingVfs>());
});

// A user's codec: XORs every byte, tag 200.
class XorCodec final : public Codec {
 public:
  static constexpr char kName[] = "test_xor";
  static constexpr uint8_t kTag = 200;

  static absl::StatusOr<std::unique_ptr<Codec>> Create(
      const CodecOptions& options) {
    if (!options.dictionary.empty()) {
      return absl::InvalidArgumentError("test_xor takes no dictionary");
    }
    return std::make_unique<XorCodec>();
  }

  absl::string_view name() const override { return kName; }
  uint8_t tag() const override { return kTag; }
  bool uses_dictionary() const override { return false; }
  size_t CompressBound(size_t n) const override { return n; }
  absl::StatusOr<std::unique_ptr<CompressionContext>> NewCompressionContext()
      const override {
    return absl::UnimplementedError("not needed by this test");
  }
  absl::StatusOr<std::unique_ptr<DecompressionContext>>
  NewDecompressionContext() const override {
    return absl::UnimplementedError("not needed by this test");
  }
};

const CodecRegistration kCodecRegistration(XorCodec::kName, XorCodec::kTag,
                                           &XorCodec::Create);

// A user's typed owner: bytes only.
class BytesOwner final : public TypedOwner {
 public:
  absl::string_view kind() const override { return "test_bytes"; }
  uint8_t kind_tag() const override { return 201; }
  RecordGeometry::Layout layout() const override {
    return RecordGeometry::Layout::kPayloadShapePairs;
  }
  absl::StatusOr<std::string> EncodeIdentity(
      const TypeIdentity& identity) const override {
    if (!(identity.dtype == DType::Simple("|u1"))) {
      return absl::InvalidArgumentError("test_bytes stores only |u1");
    }
    return std::string("bytes");
  }
  absl::StatusOr<TypeIdentity> DecodeIdentity(
      absl::string_view encoded) const override {
    if (encoded != "bytes") return absl::DataLossError("not test_bytes");
    return TypeIdentity{DType::Simple("|u1"), {}};
  }
  absl::StatusOr<RecordGeometry> Geometry(const TypeIdentity&) const override {
    return RecordGeometry{RecordGeometry::Layout::kPayloadShapePairs, 0, 1};
  }
};

const TypedOwnerRegistration kOwnerRegistration(std::make_shared<BytesOwner>());

TEST(RegistryTest, FindsVfsDefinedInThisFile) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("test_counting"));
  EXPECT_NE(dynamic_cast<CountingVfs*>(vfs.get()), nullptr);
  EXPECT_THAT(VfsRegistry().Names(), Contains("test_counting"));
}

TEST(RegistryTest, UnknownVfsIsNotFoundListingRegisteredNames) {
  absl::Status status = CreateVfs("nfs").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("\"nfs\""));
  EXPECT_THAT(status.message(), HasSubstr("test_counting"));
}

TEST(RegistryTest, FindsCodecByNameAndByTag) {
  ASSERT_OK_AND_ASSIGN(auto by_name, CreateCodec("test_xor"));
  EXPECT_EQ(by_name->name(), "test_xor");
  ASSERT_OK_AND_ASSIGN(auto by_tag, CreateCodecByTag(200));
  EXPECT_EQ(by_tag->name(), "test_xor");
  EXPECT_STATUS_CODE(CreateCodecByTag(201), absl::StatusCode::kNotFound);
  absl::Status unknown = CreateCodec("lz4").status();
  EXPECT_EQ(unknown.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(unknown.message(), HasSubstr("test_xor"));
}

TEST(RegistryTest, CodecFactoryValidatesOptions) {
  CodecOptions options;
  options.dictionary = "unexpected";
  EXPECT_STATUS_CODE(CreateCodec("test_xor", options),
                     absl::StatusCode::kInvalidArgument);
}

TEST(RegistryTest, FindsTypedOwnerByKindAndByTag) {
  ASSERT_OK_AND_ASSIGN(auto owner, FindTypedOwner("test_bytes"));
  EXPECT_EQ(owner->kind(), "test_bytes");
  ASSERT_OK_AND_ASSIGN(auto by_tag, FindTypedOwnerByTag(201));
  EXPECT_EQ(by_tag.get(), owner.get());  // One shared, stateless instance.
  EXPECT_STATUS_CODE(FindTypedOwner("sparse"), absl::StatusCode::kNotFound);
  EXPECT_STATUS_CODE(FindTypedOwnerByTag(202), absl::StatusCode::kNotFound);
}

TEST(RegistryTest, DuplicateNameIsRejectedAndFirstEntryKept) {
  Registry<int> registry("widget");
  ASSERT_OK(registry.Register("a", 1));
  absl::Status duplicate = registry.Register("a", 2);
  EXPECT_EQ(duplicate.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(duplicate.message(), HasSubstr("widget \"a\""));
  ASSERT_OK_AND_ASSIGN(int value, registry.Find("a"));
  EXPECT_EQ(value, 1);
  EXPECT_STATUS_CODE(registry.Register("", 3),
                     absl::StatusCode::kInvalidArgument);
}

TEST(RegistryTest, EmptyRegistrySaysSo) {
  Registry<int> registry("widget");
  absl::Status status = registry.Find("a").status();
  EXPECT_THAT(status.message(), HasSubstr("(none)"));
}

TEST(RegistryTest, NamesAreSorted) {
  Registry<int> registry("widget");
  ASSERT_OK(registry.Register("c", 3));
  ASSERT_OK(registry.Register("a", 1));
  ASSERT_OK(registry.Register("b", 2));
  EXPECT_EQ(registry.Names(), (std::vector<std::string>{"a", "b", "c"}));
}

struct Tagged {
  uint8_t tag;
};

TEST(RegistryDeathTest, DuplicateTagAborts) {
  Registry<Tagged> registry("tagged thing");
  RegisterTaggedOrDie(registry, "first", Tagged{7});
  EXPECT_DEATH(RegisterTaggedOrDie(registry, "second", Tagged{7}),
               "\"second\" cannot take tag 7: \"first\" has it");
}

TEST(RegistryDeathTest, DuplicateNameAborts) {
  Registry<int> registry("widget");
  RegisterOrDie(registry, "a", 1);
  EXPECT_DEATH(RegisterOrDie(registry, "a", 2), "already registered");
}

TEST(RegistryTest, ConcurrentLookupsAndRegistrations) {
  Registry<int> registry("widget");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&registry, t] {
      for (int i = 0; i < 100; ++i) {
        const std::string name = std::to_string(t * 1000 + i);
        EXPECT_TRUE(registry.Register(name, i).ok());
        EXPECT_TRUE(registry.Find(name).ok());
        EXPECT_FALSE(registry.Names().empty());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(registry.Names().size(), 400u);
}

}  // namespace
}  // namespace loaderx
