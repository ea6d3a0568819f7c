// Writes the seed corpora of the fuzzers from real stores made through the
// public API over the in-memory VFS: one `FileBundle` per store kind and
// codec for `store_fuzzer`, and their identities for `identity_fuzzer`.
// Regenerate after a format change:
//
//   bazel run //tests/fuzz:make_corpus -- $PWD/tests/fuzz/corpus

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/dense_store.h"
#include "loaderx/ragged_store.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "tests/fuzz/file_bundle.h"

namespace loaderx::fuzz {
namespace {

void Die(const absl::Status& status) {
  std::fprintf(stderr, "make_corpus: %s\n", status.ToString().c_str());
  std::exit(1);
}

template <typename T>
T Must(absl::StatusOr<T> value) {
  if (!value.ok()) Die(value.status());
  return *std::move(value);
}

void WriteFile(const std::filesystem::path& path, const std::string& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

// The store at `dir` as a bundle, and its typed header's identity.
FileBundle Bundle(Vfs& vfs, const std::string& dir) {
  FileBundle files;
  for (const std::string& name : Must(vfs.List(dir))) {
    files.emplace_back(
        name, Must(ReadFileToString(vfs, absl::StrCat(dir, "/", name))));
  }
  return files;
}

std::string Records(size_t count, size_t width) {
  std::string bytes(count * width, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<char>((i / width) * 31 + (i % 7));
  }
  return bytes;
}

}  // namespace
}  // namespace loaderx::fuzz

int main(int argc, char** argv) {
  using namespace loaderx;
  using namespace loaderx::fuzz;
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_corpus OUTPUT_DIR\n");
    return 2;
  }
  const std::filesystem::path out(argv[1]);
  std::unique_ptr<Vfs> vfs = Must(CreateVfs("memory"));
  int written = 0;
  for (const char* codec : {"raw", "zstd"}) {
    StoreOptions options;
    options.codec = codec;
    const std::string dense = absl::StrCat("/dense_", codec);
    {
      auto store = Must(DenseStore::Create(
          *vfs, dense, TypeIdentity{DType::Simple("<i4"), {2, 3}}, options));
      Must(store->Append(Records(6, 24)));
      Must(store->Append(Records(3, 24)));
    }
    const std::string ragged = absl::StrCat("/ragged_", codec);
    {
      auto store = Must(
          RaggedStore::Create(*vfs, ragged, DType::Simple("|u1"), options));
      const std::string a = Records(1, 12), b = Records(1, 5);
      std::vector<RaggedRecord> records = {{a, {3, 4}}, {b, {5}}, {a, {12}}};
      Must(store->Append(records));
    }
    for (const std::string& dir : {dense, ragged}) {
      const FileBundle files = Bundle(*vfs, dir);
      WriteFile(out / "store" / dir.substr(1), EncodeBundle(files));
      for (const auto& [name, contents] : files) {
        if (name == "store.zr" && contents.size() > 32) {
          WriteFile(out / "identity" / dir.substr(1), contents.substr(32));
        }
      }
      ++written;
    }
  }
  {
    // A structured dtype with padding and a subarray field:
    // [('a', '<i4'), ('', '|V4'), ('b', '>f8', (2,))].
    const std::string dir = "/dense_structured";
    DType padded = DType::Structured(
        {DTypeField{"a", false, "", DType::Simple("<i4"), {}},
         DTypeField{"", false, "", DType::Simple("|V4"), {}},
         DTypeField{"b", false, "", DType::Simple(">f8"), {2}}});
    StoreOptions options;
    options.codec = "raw";
    {
      auto store = Must(
          DenseStore::Create(*vfs, dir, TypeIdentity{padded, {2}}, options));
      Must(store->Append(Records(3, 48)));
    }
    const FileBundle files = Bundle(*vfs, dir);
    WriteFile(out / "store" / dir.substr(1), EncodeBundle(files));
    for (const auto& [name, contents] : files) {
      if (name == "store.zr") {
        WriteFile(out / "identity" / dir.substr(1), contents.substr(32));
      }
    }
    ++written;
  }
  std::printf("make_corpus: %d stores written under %s\n", written, argv[1]);
  return 0;
}
