// A program built outside loaderx's own build, once per way of consuming
// loaderx (a second Bazel workspace, CMake's `find_package`, pkg-config):
// only the public API and the plugin SPI, as a user sees them.
//
// It registers a plugin of its own (a VFS counting the files it opens),
// checks that the plugins it uses (with `--all-plugins`, every built-in one)
// survived the link, then creates a dense store through its VFS, appends,
// reopens and gathers.
//
// Usage: store_roundtrip [--all-plugins] DIRECTORY   (not existing yet)

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "loaderx/codec_registry.h"
#include "loaderx/dense_store.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/typed_owner_registry.h"
#include "loaderx/vfs_registry.h"
#include "loaderx/vfs_wrapper.h"

namespace {

// The user's plugin: the POSIX VFS, counting `Open` calls.
class CountingVfs : public loaderx::VfsWrapper {
 public:
  static constexpr char kName[] = "counting";

  explicit CountingVfs(std::unique_ptr<loaderx::Vfs> target)
      : VfsWrapper(std::move(target)) {}

  absl::StatusOr<std::unique_ptr<loaderx::VfsFile>> Open(
      absl::string_view path, loaderx::OpenMode mode) override {
    ++opens_;
    return VfsWrapper::Open(path, mode);
  }

  int opens() const { return opens_; }

 private:
  int opens_ = 0;
};

const loaderx::VfsRegistration kCountingRegistration(
    CountingVfs::kName, []() -> absl::StatusOr<std::unique_ptr<loaderx::Vfs>> {
      LOADERX_ASSIGN_OR_RETURN(auto posix, loaderx::CreateVfs("posix"));
      return std::make_unique<CountingVfs>(std::move(posix));
    });

// NotFound naming what is registered if `registered` lacks one of `wanted`.
absl::Status ExpectRegistered(absl::string_view kind,
                              const std::vector<std::string>& registered,
                              const std::vector<std::string>& wanted) {
  for (const std::string& name : wanted) {
    if (std::find(registered.begin(), registered.end(), name) ==
        registered.end()) {
      return absl::NotFoundError(absl::StrCat(
          kind, " plugin \"", name,
          "\" is not registered; have: ", absl::StrJoin(registered, ", ")));
    }
  }
  std::printf("%s plugins: %s\n", std::string(kind).c_str(),
              absl::StrJoin(registered, ", ").c_str());
  return absl::OkStatus();
}

// Record `i` of the test data: 2 x 3 int32 values.
std::string Record(int32_t i) {
  std::string bytes;
  for (int32_t j = 0; j < 6; ++j) {
    int32_t value = 100 * i + j;
    char piece[sizeof value];
    std::memcpy(piece, &value, sizeof value);
    bytes.append(piece, sizeof piece);
  }
  return bytes;
}

// The plugins the round trip uses, or with `all_plugins` every built-in one.
absl::Status CheckRegistrations(bool all_plugins) {
  std::vector<std::string> vfs = {"posix", CountingVfs::kName};
  std::vector<std::string> codecs = {"zstd"};
  std::vector<std::string> owners = {"dense"};
  if (all_plugins) {
    vfs.insert(vfs.end(), {"memory", "fault"});
    codecs.insert(codecs.end(), {"raw", "zstd_dict"});
    owners.push_back("ragged");
  }
  LOADERX_RETURN_IF_ERROR(
      ExpectRegistered("vfs", loaderx::VfsRegistry().Names(), vfs));
  LOADERX_RETURN_IF_ERROR(
      ExpectRegistered("codec", loaderx::CodecRegistry().Names(), codecs));
  return ExpectRegistered("owner", loaderx::TypedOwnerRegistry().Names(),
                          owners);
}

absl::Status Run(const std::string& directory, bool all_plugins) {
  LOADERX_RETURN_IF_ERROR(CheckRegistrations(all_plugins));

  LOADERX_ASSIGN_OR_RETURN(auto vfs, loaderx::CreateVfs(CountingVfs::kName));
  const loaderx::TypeIdentity identity{loaderx::DType::Simple("<i4"), {2, 3}};
  constexpr int kRecords = 5;
  {
    LOADERX_ASSIGN_OR_RETURN(
        auto store, loaderx::DenseStore::Create(*vfs, directory, identity));
    std::string data;
    for (int i = 0; i < kRecords; ++i) data += Record(i);
    LOADERX_ASSIGN_OR_RETURN(uint64_t first, store->Append(data));
    if (first != 0) return absl::InternalError("first record is not 0");
    LOADERX_RETURN_IF_ERROR(store->Sync());
  }

  LOADERX_ASSIGN_OR_RETURN(auto store,
                           loaderx::DenseStore::Open(*vfs, directory));
  if (store->size() != kRecords || !(store->identity() == identity) ||
      store->codec() != "zstd") {
    return absl::DataLossError(
        absl::StrCat("reopened store has ", store->size(), " records of ",
                     loaderx::DTypeToString(store->identity().dtype),
                     ", codec ", store->codec()));
  }
  const std::vector<uint64_t> indices = {4, 0, 2, 2};
  std::string batch(indices.size() * store->record_bytes(), '\0');
  LOADERX_RETURN_IF_ERROR(store->Gather(indices, absl::MakeSpan(batch)));
  std::string expected;
  for (uint64_t index : indices) expected += Record(index);
  if (batch != expected) {
    return absl::DataLossError("gathered records differ from those appended");
  }

  const int opens = static_cast<const CountingVfs&>(*vfs).opens();
  if (opens == 0) return absl::InternalError("the counting VFS saw no Open");
  std::printf("dense store %s: %d records, gathered {4, 0, 2, 2}, %d opens\n",
              directory.c_str(), kRecords, opens);
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  const bool all_plugins =
      argc == 3 && absl::string_view(argv[1]) == "--all-plugins";
  if (argc != 2 && !all_plugins) {
    std::fprintf(stderr, "usage: %s [--all-plugins] DIRECTORY\n", argv[0]);
    return 2;
  }
  absl::Status status = Run(argv[argc - 1], all_plugins);
  if (!status.ok()) {
    std::fprintf(stderr, "store_roundtrip: %s\n", status.ToString().c_str());
    return 1;
  }
  std::printf("store_roundtrip: ok\n");
  return 0;
}
