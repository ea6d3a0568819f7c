#include "swig/binding.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "loaderx/codec_registry.h"
#include "loaderx/typed_owner_registry.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"

namespace loaderx::binding {
namespace {

void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) {
    throw BindingError(static_cast<int>(status.code()), IsBusy(status),
                       std::string(status.message()));
  }
}

template <typename T>
T ValueOrThrow(absl::StatusOr<T> status_or) {
  ThrowIfError(status_or.status());
  return *std::move(status_or);
}

}  // namespace

std::vector<std::string> RegisteredPlugins(const std::string& kind) {
  if (kind == "vfs") return VfsRegistry().Names();
  if (kind == "codec") return CodecRegistry().Names();
  if (kind == "typed_owner") return TypedOwnerRegistry().Names();
  ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
      "unknown plugin kind \"", kind, "\"; kinds: vfs, codec, typed_owner")));
  return {};
}

FileLock::FileLock(std::shared_ptr<Vfs> vfs, std::unique_ptr<VfsFile> file)
    : vfs_(std::move(vfs)), file_(std::move(file)), path_(file_->path()) {}

FileLock::~FileLock() = default;

void FileLock::close() { file_.reset(); }
bool FileLock::held() const { return file_ != nullptr; }
std::string FileLock::path() const { return path_; }

Filesystem::Filesystem(const std::string& name) : name_(name) {
  absl::StatusOr<std::unique_ptr<Vfs>> vfs = CreateVfs(name);
  if (absl::IsNotFound(vfs.status())) {
    // At this level the name is an argument, not a file.
    ThrowIfError(absl::InvalidArgumentError(vfs.status().message()));
  }
  vfs_ = ValueOrThrow(std::move(vfs));
}

bool Filesystem::exists(const std::string& path) {
  return ValueOrThrow(vfs_->Exists(path));
}

std::vector<std::string> Filesystem::list(const std::string& path) {
  return ValueOrThrow(vfs_->List(path));
}

void Filesystem::create_directory(const std::string& path) {
  ThrowIfError(vfs_->CreateDirectory(path));
}

void Filesystem::remove_directory(const std::string& path) {
  ThrowIfError(vfs_->RemoveDirectory(path));
}

void Filesystem::remove(const std::string& path) {
  ThrowIfError(vfs_->Remove(path));
}

void Filesystem::rename(const std::string& from, const std::string& to) {
  ThrowIfError(vfs_->Rename(from, to));
}

Bytes Filesystem::read_file(const std::string& path) {
  return ValueOrThrow(ReadFileToString(*vfs_, path));
}

void Filesystem::write_file(const std::string& path, const Bytes& data,
                            bool sync) {
  ThrowIfError(WriteStringToFile(*vfs_, path, data, sync));
}

FileLock* Filesystem::lock(const std::string& path) {
  std::unique_ptr<VfsFile> file =
      ValueOrThrow(vfs_->Open(path, OpenMode::kCreate));
  ThrowIfError(file->TryLock());
  return new FileLock(vfs_, std::move(file));
}

}  // namespace loaderx::binding
