#include "swig/set_binding.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "loaderx/error_code.h"
#include "loaderx/store_set.h"
#include "swig/binding_status.h"
#include "swig/resolved_indices.h"

namespace loaderx::binding {

void create_store_set(const Filesystem& fs, const std::string& manifest,
                      const std::vector<std::string>& members) {
  ThrowIfError(StoreSet::Create(*fs.vfs(), manifest, members));
}

SetHandle::SetHandle(const Filesystem& fs, const std::string& manifest)
    : vfs_(fs.vfs()), set_(ValueOrThrow(StoreSet::Open(*vfs_, manifest))) {}

SetHandle::~SetHandle() = default;

const StoreSet& SetHandle::set() const {
  if (set_ == nullptr) {
    ThrowIfError(absl::FailedPreconditionError("the store set is closed"));
  }
  return *set_;
}

int SetHandle::CheckedMember(int member) const {
  if (member < 0 || static_cast<size_t>(member) >= set().num_members()) {
    ThrowIfError(absl::OutOfRangeError(
        absl::StrCat("member ", member, " of a set of ", set().num_members())));
  }
  return member;
}

std::string SetHandle::kind() const { return std::string(set().kind()); }
bool SetHandle::fixed_width() const { return set().fixed_width(); }
DType SetHandle::dtype() const { return set().identity().dtype; }

Int64Array SetHandle::item_shape() const {
  Int64Array shape;
  for (uint64_t dim : set().identity().item_shape) {
    shape.push_back(static_cast<int64_t>(dim));
  }
  return shape;
}

int64_t SetHandle::record_bytes() const {
  return static_cast<int64_t>(set().record_bytes());
}
int64_t SetHandle::item_size() const {
  return static_cast<int64_t>(set().item_size());
}
int64_t SetHandle::size() const { return static_cast<int64_t>(set().size()); }
uint64_t SetHandle::fingerprint() const { return set().fingerprint(); }
int SetHandle::num_members() const {
  return static_cast<int>(set().num_members());
}
std::string SetHandle::member_path(int member) const {
  return set().member_path(CheckedMember(member));
}
int64_t SetHandle::member_start(int member) const {
  return static_cast<int64_t>(set().member_start(CheckedMember(member)));
}
int64_t SetHandle::member_size(int member) const {
  return static_cast<int64_t>(set().member(CheckedMember(member)).size());
}

void SetHandle::gather_into(IndexBuffer indices, MutableBuffer out) const {
  const ResolvedIndices resolved(indices, set().size());
  ThrowIfError(set().GatherFixed(
      resolved.span(), absl::MakeSpan(static_cast<char*>(out.data), out.size)));
}

BatchLayout SetHandle::read(IndexBuffer indices, OutputBuffer& out) const {
  const ResolvedIndices resolved(indices, set().size());
  std::vector<std::vector<uint64_t>> shapes =
      ValueOrThrow(set().Shapes(resolved.span()));
  const uint64_t item_size = set().item_size();
  std::vector<uint64_t> offsets;
  offsets.reserve(shapes.size());
  uint64_t total = 0;
  for (const std::vector<uint64_t>& shape : shapes) {
    uint64_t bytes = item_size;
    for (uint64_t dim : shape) bytes *= dim;
    offsets.push_back(total);
    total += bytes;
  }
  char* buffer = out.Allocate(total);
  if (buffer == nullptr) {
    ThrowIfError(WithErrorCode(
        absl::ResourceExhaustedError(absl::StrCat(
            "read: cannot allocate ", total, " bytes for the batch")),
        ErrorCode::kOutOfMemory));
  }
  std::vector<absl::Span<char>> destinations;
  destinations.reserve(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    const uint64_t end = i + 1 < shapes.size() ? offsets[i + 1] : total;
    destinations.emplace_back(buffer + offsets[i], end - offsets[i]);
  }
  ThrowIfError(set().Gather(resolved.span(), destinations));
  return BatchLayout{BatchShapes::Of(shapes), std::move(offsets)};
}

StoreStatistics SetHandle::stats() const {
  const StoreStats stats = ValueOrThrow(set().Stats());
  return StoreStatistics{static_cast<int64_t>(stats.records),
                         static_cast<int64_t>(stats.live_bytes),
                         static_cast<int64_t>(stats.chunk_bytes),
                         static_cast<int64_t>(stats.reclaimable)};
}

VerifyResult SetHandle::verify() const {
  return VerifyResult(ValueOrThrow(set().Verify()));
}

void SetHandle::close() { set_.reset(); }

}  // namespace loaderx::binding
