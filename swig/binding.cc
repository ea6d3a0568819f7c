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

namespace {

absl::StatusOr<SamplerMode> ParseMode(const std::string& mode) {
  if (mode == "sequential") return SamplerMode::kSequential;
  if (mode == "iid") return SamplerMode::kIid;
  if (mode == "cyclic") return SamplerMode::kCyclic;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown sampler mode \"", mode, "\"; modes: sequential, iid, cyclic"));
}

uint64_t NonNegative(int64_t value, absl::string_view what) {
  if (value < 0) {
    ThrowIfError(absl::InvalidArgumentError(
        absl::StrCat(what, " must not be negative, got ", value)));
  }
  return static_cast<uint64_t>(value);
}

// `out` as the int64 span of one batch; InvalidArgument if it is not
// exactly that size.
absl::Span<int64_t> BatchSpan(const Sampler& sampler, MutableBuffer out) {
  const uint64_t wanted = sampler.batch_size() * sizeof(int64_t);
  if (out.size != wanted || out.data == nullptr) {
    ThrowIfError(absl::InvalidArgumentError(
        absl::StrCat("sampler: the destination holds ", out.size,
                     " bytes, one batch of int64 indices is ", wanted)));
  }
  return absl::MakeSpan(static_cast<int64_t*>(out.data), sampler.batch_size());
}

}  // namespace

IndexSampler::IndexSampler(int64_t length, int64_t batch_size,
                           const std::string& mode, int64_t seed) {
  Sampler sampler = ValueOrThrow(Sampler::Create(
      NonNegative(length, "length"), NonNegative(batch_size, "batch_size"),
      ValueOrThrow(ParseMode(mode)), static_cast<uint64_t>(seed)));
  sampler_ = std::make_unique<Sampler>(sampler);
}

IndexSampler::~IndexSampler() = default;

void IndexSampler::next_into(MutableBuffer out) {
  ThrowIfError(sampler_->Next(BatchSpan(*sampler_, out)));
}

void IndexSampler::batch_into(int64_t step, MutableBuffer out) {
  ThrowIfError(
      sampler_->Batch(NonNegative(step, "step"), BatchSpan(*sampler_, out)));
}

Int64Array IndexSampler::next() {
  Int64Array out(sampler_->batch_size());
  ThrowIfError(sampler_->Next(absl::MakeSpan(out)));
  return out;
}

Int64Array IndexSampler::batch(int64_t step) {
  Int64Array out(sampler_->batch_size());
  ThrowIfError(sampler_->Batch(NonNegative(step, "step"), absl::MakeSpan(out)));
  return out;
}

void IndexSampler::seek(int64_t step) {
  sampler_->Seek(NonNegative(step, "step"));
}

int64_t IndexSampler::step() const {
  return static_cast<int64_t>(sampler_->step());
}
int64_t IndexSampler::length() const {
  return static_cast<int64_t>(sampler_->length());
}
int64_t IndexSampler::batch_size() const {
  return static_cast<int64_t>(sampler_->batch_size());
}
int64_t IndexSampler::seed() const {
  return static_cast<int64_t>(sampler_->seed());
}
int64_t IndexSampler::batches_per_cycle() const {
  return static_cast<int64_t>(sampler_->batches_per_cycle());
}

std::string IndexSampler::mode() const {
  switch (sampler_->mode()) {
    case SamplerMode::kSequential:
      return "sequential";
    case SamplerMode::kIid:
      return "iid";
    case SamplerMode::kCyclic:
      return "cyclic";
  }
  return "unknown";
}

}  // namespace loaderx::binding
