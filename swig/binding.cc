#include "swig/binding.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "loaderx/codec_registry.h"
#include "loaderx/sampler.h"
#include "loaderx/typed_owner_registry.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "swig/binding_status.h"

namespace loaderx::binding {

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

namespace {

// `out` as a span of uint64 indices; InvalidArgument if it cannot hold one
// batch.
absl::Span<uint64_t> IndexSpan(const Sampler& sampler, MutableBuffer out) {
  if (out.data == nullptr || out.size % sizeof(uint64_t) != 0 ||
      out.size / sizeof(uint64_t) < sampler.batch_length()) {
    ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
        "sampler: the destination holds ", out.size, " bytes, one batch is ",
        sampler.batch_length(), " uint64 indices")));
  }
  return absl::MakeSpan(static_cast<uint64_t*>(out.data),
                        out.size / sizeof(uint64_t));
}

}  // namespace

IndexSampler::IndexSampler(uint64_t length, uint64_t batch_size, int mode,
                           uint64_t seed, uint64_t rank, uint64_t world_size) {
  if (mode < 0 || mode > 255) {
    ThrowIfError(absl::InvalidArgumentError(
        absl::StrCat("sampler: unknown mode ", mode)));
  }
  sampler_ = std::make_unique<Sampler>(ValueOrThrow(
      Sampler::Create(length, batch_size, static_cast<SamplerMode>(mode), seed,
                      SamplerShard{rank, world_size})));
}

IndexSampler::~IndexSampler() = default;

uint64_t IndexSampler::batch_length() const { return sampler_->batch_length(); }

uint64_t IndexSampler::next_into(MutableBuffer out) {
  return ValueOrThrow(sampler_->Next(IndexSpan(*sampler_, out)));
}

uint64_t IndexSampler::batch_into(uint64_t step, MutableBuffer out) const {
  return ValueOrThrow(sampler_->Batch(step, IndexSpan(*sampler_, out)));
}

void IndexSampler::seek(uint64_t step) { sampler_->Seek(step); }
uint64_t IndexSampler::step() const { return sampler_->step(); }
uint64_t IndexSampler::length() const { return sampler_->length(); }
uint64_t IndexSampler::batch_size() const { return sampler_->batch_size(); }
int IndexSampler::mode() const { return static_cast<int>(sampler_->mode()); }
uint64_t IndexSampler::seed() const { return sampler_->seed(); }
uint64_t IndexSampler::rank() const { return sampler_->rank(); }
uint64_t IndexSampler::world_size() const { return sampler_->world_size(); }
uint64_t IndexSampler::batches_per_cycle() const {
  return sampler_->batches_per_cycle();
}

}  // namespace loaderx::binding
