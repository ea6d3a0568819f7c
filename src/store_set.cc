#include "loaderx/store_set.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "loaderx/spi/path.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/thread_pool.h"
#include "src/checksum.h"
#include "src/mix64.h"
#include "src/store_set_format.h"

namespace loaderx {
namespace {

using store_set_format::Manifest;
using store_set_format::Member;

// Batches of fewer bytes read their members on the calling thread.
constexpr uint64_t kParallelBytes = uint64_t{1} << 20;

// At most this many buckets in the position directory (4 MiB).
constexpr uint64_t kMaxBuckets = uint64_t{1} << 20;

std::vector<absl::string_view> Components(absl::string_view path) {
  std::vector<absl::string_view> parts;
  for (absl::string_view part : absl::StrSplit(path, '/')) {
    if (!part.empty() && part != ".") parts.push_back(part);
  }
  return parts;
}

// `to` relative to the directory `from`, lexically (both absolute or both
// relative; ".." is kept as written but may not be climbed out of).
absl::StatusOr<std::string> RelativePath(absl::string_view from,
                                         absl::string_view to) {
  const bool from_absolute = !from.empty() && from.front() == '/';
  const bool to_absolute = !to.empty() && to.front() == '/';
  if (from.empty()) {
    if (to_absolute) {
      return absl::InvalidArgumentError(absl::StrCat(
          "store set: member '", to,
          "' is absolute and the manifest's path relative; give both "
          "absolute or both relative"));
    }
  } else if (from_absolute != to_absolute) {
    return absl::InvalidArgumentError(absl::StrCat(
        "store set: the manifest's directory '", from, "' and member '", to,
        "' must both be absolute or both relative"));
  }
  const std::vector<absl::string_view> base = Components(from);
  const std::vector<absl::string_view> target = Components(to);
  size_t common = 0;
  while (common < base.size() && common < target.size() &&
         base[common] == target[common]) {
    ++common;
  }
  std::string relative;
  for (size_t i = common; i < base.size(); ++i) {
    if (base[i] == "..") {
      return absl::InvalidArgumentError(
          absl::StrCat("store set: cannot express '", to, "' relative to '",
                       from, "' without resolving '..'"));
    }
    absl::StrAppend(&relative, relative.empty() ? "" : "/", "..");
  }
  for (size_t i = common; i < target.size(); ++i) {
    absl::StrAppend(&relative, relative.empty() ? "" : "/", target[i]);
  }
  if (relative.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "store set: member '", to, "' is the manifest's own directory"));
  }
  return relative;
}

// `relative` joined to `directory` with ".." resolved lexically (every VFS
// sees the same path; the memory VFS has no "..").
std::string JoinRelative(absl::string_view directory,
                         absl::string_view relative) {
  const bool absolute = !directory.empty() && directory.front() == '/';
  std::vector<absl::string_view> parts = Components(directory);
  for (absl::string_view part : Components(relative)) {
    if (part == ".." && !parts.empty() && parts.back() != "..") {
      parts.pop_back();
    } else {
      parts.push_back(part);
    }
  }
  std::string joined = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) {
    absl::StrAppend(&joined, i == 0 ? "" : "/", parts[i]);
  }
  return joined.empty() ? "." : joined;
}

absl::StatusOr<uint64_t> IdentityHash(const TypedStore& store) {
  LOADERX_ASSIGN_OR_RETURN(const std::string identity,
                           store.owner().EncodeIdentity(store.identity()));
  return Checksum(absl::StrCat(store.kind(), std::string(1, '\0'), identity));
}

StoreOptions ReadOnly(StoreOptions options) {
  options.read_only = true;
  return options;
}

absl::Status Prefixed(const absl::Status& status, absl::string_view prefix) {
  return absl::Status(status.code(), absl::StrCat(prefix, status.message()));
}

}  // namespace

absl::Status StoreSet::Create(Vfs& vfs, absl::string_view manifest_path,
                              absl::Span<const std::string> member_paths) {
  if (member_paths.empty()) {
    return absl::InvalidArgumentError("store set: needs at least one member");
  }
  LOADERX_ASSIGN_OR_RETURN(const bool exists, vfs.Exists(manifest_path));
  if (exists) {
    return absl::AlreadyExistsError(
        absl::StrCat("store set: ", manifest_path, " already exists"));
  }
  const std::string directory = ParentDirectory(manifest_path);
  // Every path's form is checked before any store is opened.
  std::vector<std::string> relative;
  for (const std::string& path : member_paths) {
    LOADERX_ASSIGN_OR_RETURN(relative.emplace_back(),
                             RelativePath(directory, path));
  }
  Manifest manifest;
  std::string first_kind;
  for (size_t m = 0; m < member_paths.size(); ++m) {
    const std::string prefix =
        absl::StrCat("store set: member ", m, " (", member_paths[m], "): ");
    absl::StatusOr<std::unique_ptr<TypedStore>> store =
        TypedStore::OpenAny(vfs, member_paths[m], ReadOnly({}));
    if (!store.ok()) return Prefixed(store.status(), prefix);
    LOADERX_ASSIGN_OR_RETURN(const uint64_t identity, IdentityHash(**store));
    if (m == 0) {
      manifest.identity = identity;
      first_kind = std::string((*store)->kind());
    } else if (identity != manifest.identity) {
      return absl::InvalidArgumentError(absl::StrCat(
          prefix, "holds a '", (*store)->kind(), "' store of ",
          DTypeToString((*store)->dtype()), ", not the first member's type (",
          first_kind, "); a set's members share one kind and identity"));
    }
    Member member;
    member.path = std::move(relative[m]);
    member.records = (*store)->size();
    absl::StatusOr<uint64_t> fingerprint = (*store)->Fingerprint();
    if (!fingerprint.ok()) return Prefixed(fingerprint.status(), prefix);
    member.fingerprint = *fingerprint;
    manifest.members.push_back(std::move(member));
  }
  LOADERX_ASSIGN_OR_RETURN(const std::string bytes,
                           store_set_format::EncodeManifest(manifest));
  const std::string temporary = absl::StrCat(manifest_path, ".tmp");
  LOADERX_RETURN_IF_ERROR(WriteStringToFile(vfs, temporary, bytes, true));
  if (absl::Status renamed = vfs.Rename(temporary, manifest_path);
      !renamed.ok()) {
    (void)vfs.Remove(temporary);
    return renamed;
  }
  return vfs.SyncDirectory(directory.empty() ? "." : directory);
}

absl::StatusOr<std::unique_ptr<StoreSet>> StoreSet::Open(
    Vfs& vfs, absl::string_view manifest_path, const StoreOptions& options) {
  LOADERX_ASSIGN_OR_RETURN(const std::string bytes,
                           ReadFileToString(vfs, manifest_path));
  LOADERX_ASSIGN_OR_RETURN(
      const Manifest manifest,
      store_set_format::DecodeManifest(bytes, manifest_path));
  if (manifest.members.size() > UINT32_MAX) {
    return absl::DataLossError("store set: too many members");
  }
  const std::string directory = ParentDirectory(manifest_path);
  std::vector<std::string> paths;
  std::vector<std::shared_ptr<const TypedStore>> members;
  for (size_t m = 0; m < manifest.members.size(); ++m) {
    const Member& entry = manifest.members[m];
    paths.push_back(JoinRelative(directory, entry.path));
    const std::string prefix = absl::StrCat(
        "store set ", manifest_path, ": member ", m, " (", paths[m], "): ");
    absl::StatusOr<std::unique_ptr<TypedStore>> store =
        TypedStore::OpenAny(vfs, paths[m], ReadOnly(options));
    if (!store.ok()) return Prefixed(store.status(), prefix);
    LOADERX_ASSIGN_OR_RETURN(const uint64_t identity, IdentityHash(**store));
    if (identity != manifest.identity) {
      return absl::DataLossError(absl::StrCat(prefix, "is a '",
                                              (*store)->kind(),
                                              "' store of another type than "
                                              "the set was written with"));
    }
    absl::StatusOr<uint64_t> fingerprint = (*store)->Fingerprint();
    if (!fingerprint.ok()) return Prefixed(fingerprint.status(), prefix);
    if ((*store)->size() != entry.records ||
        *fingerprint != entry.fingerprint) {
      return absl::DataLossError(absl::StrCat(
          prefix, "changed after the set was written: the manifest says ",
          entry.records, " records with fingerprint ", entry.fingerprint,
          ", the store holds ", (*store)->size(), " with fingerprint ",
          *fingerprint,
          "; rebuild the set (loaderx set create) if the "
          "change is intended"));
    }
    members.push_back(*std::move(store));
  }
  return std::unique_ptr<StoreSet>(new StoreSet(
      std::string(manifest_path), std::move(paths), std::move(members)));
}

StoreSet::StoreSet(std::string manifest_path, std::vector<std::string> paths,
                   std::vector<std::shared_ptr<const TypedStore>> members)
    : manifest_path_(std::move(manifest_path)),
      paths_(std::move(paths)),
      members_(std::move(members)) {
  starts_.reserve(members_.size() + 1);
  starts_.push_back(0);
  uint64_t hash = Mix64(members_.size());
  for (const auto& member : members_) {
    starts_.push_back(starts_.back() + member->size());
    hash = Mix(hash, member->Fingerprint().value_or(0), 5);
  }
  fingerprint_ = hash;
  // About four buckets per member, a power of two of positions each.
  const uint64_t total = std::max<uint64_t>(size(), 1);
  const uint64_t buckets_wanted =
      std::min<uint64_t>(kMaxBuckets, 4 * members_.size());
  shift_ = 0;
  while (shift_ < 63 && (total >> shift_) > buckets_wanted) ++shift_;
  const uint64_t buckets = (total >> shift_) + 1;
  bucket_member_.resize(buckets);
  size_t m = 0;
  for (uint64_t b = 0; b < buckets; ++b) {
    const uint64_t first = b << shift_;
    while (m + 1 < members_.size() && starts_[m + 1] <= first) ++m;
    bucket_member_[b] = static_cast<uint32_t>(m);
  }
}

StoreSet::~StoreSet() = default;

absl::StatusOr<StoreSet::Plan> StoreSet::Resolve(
    absl::Span<const uint64_t> indices) const {
  Plan plan;
  plan.local.resize(members_.size());
  plan.slot.resize(members_.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    const uint64_t position = indices[i];
    if (position >= size()) {
      return absl::OutOfRangeError(
          absl::StrCat("store set ", manifest_path_, ": index ", position,
                       " is out of range for a set of ", size(), " records"));
    }
    size_t m = bucket_member_[position >> shift_];
    while (starts_[m + 1] <= position) ++m;
    plan.local[m].push_back(position - starts_[m]);
    plan.slot[m].push_back(i);
  }
  return plan;
}

absl::Status StoreSet::MemberError(size_t m, const absl::Status& status) const {
  return Prefixed(status, absl::StrCat("store set ", manifest_path_,
                                       ": member ", m, " (", paths_[m], "): "));
}

absl::Status StoreSet::ForEachMember(
    const Plan& plan, uint64_t plan_bytes,
    const std::function<absl::Status(size_t)>& body) const {
  std::vector<size_t> touched;
  for (size_t m = 0; m < members_.size(); ++m) {
    if (!plan.local[m].empty()) touched.push_back(m);
  }
  // A small batch is read member after member on this thread: handing a
  // few records each to pool threads costs more than reading them.
  if (touched.size() == 1 || plan_bytes < kParallelBytes) {
    for (size_t m : touched) LOADERX_RETURN_IF_ERROR(body(m));
    return absl::OkStatus();
  }
  return DefaultThreadPool()->TryParallelFor(
      static_cast<int>(touched.size()),
      [&](int shard) { return body(touched[shard]); });
}

absl::Status StoreSet::GatherFixed(absl::Span<const uint64_t> indices,
                                   absl::Span<char> destination) const {
  const uint64_t width = record_bytes();
  if (!fixed_width() || destination.size() != indices.size() * width) {
    return absl::InvalidArgumentError(
        absl::StrCat("store set ", manifest_path_,
                     ": GatherFixed needs a fixed-width set "
                     "and ",
                     indices.size(), " * ", width, " destination bytes, got ",
                     destination.size()));
  }
  LOADERX_ASSIGN_OR_RETURN(const Plan plan, Resolve(indices));
  return ForEachMember(plan, destination.size(), [&](size_t m) -> absl::Status {
    const std::vector<size_t>& slots = plan.slot[m];
    // One member holding the whole batch in order: its own contiguous read.
    if (slots.size() == indices.size()) {
      absl::Status status =
          members_[m]->GatherFixed(plan.local[m], destination);
      return status.ok() ? status : MemberError(m, status);
    }
    std::vector<absl::Span<char>> places;
    places.reserve(slots.size());
    for (size_t slot : slots) {
      places.push_back(destination.subspan(slot * width, width));
    }
    absl::Status status = members_[m]->Gather(plan.local[m], places);
    return status.ok() ? status : MemberError(m, status);
  });
}

absl::Status StoreSet::Gather(
    absl::Span<const uint64_t> indices,
    absl::Span<const absl::Span<char>> destinations) const {
  if (destinations.size() != indices.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("store set ", manifest_path_, ": ", indices.size(),
                     " indices but ", destinations.size(), " destinations"));
  }
  LOADERX_ASSIGN_OR_RETURN(const Plan plan, Resolve(indices));
  uint64_t bytes = 0;
  for (const absl::Span<char>& destination : destinations) {
    bytes += destination.size();
  }
  return ForEachMember(plan, bytes, [&](size_t m) -> absl::Status {
    std::vector<absl::Span<char>> places;
    places.reserve(plan.slot[m].size());
    for (size_t slot : plan.slot[m]) places.push_back(destinations[slot]);
    absl::Status status = members_[m]->Gather(plan.local[m], places);
    return status.ok() ? status : MemberError(m, status);
  });
}

absl::StatusOr<std::vector<std::vector<uint64_t>>> StoreSet::Shapes(
    absl::Span<const uint64_t> indices) const {
  LOADERX_ASSIGN_OR_RETURN(const Plan plan, Resolve(indices));
  std::vector<std::vector<uint64_t>> shapes(indices.size());
  // Shapes read the members' tables: parallel from a few thousand records.
  const uint64_t weight = indices.size() * 256;
  LOADERX_RETURN_IF_ERROR(
      ForEachMember(plan, weight, [&](size_t m) -> absl::Status {
        absl::StatusOr<std::vector<std::vector<uint64_t>>> member =
            members_[m]->Shapes(plan.local[m]);
        if (!member.ok()) return MemberError(m, member.status());
        for (size_t k = 0; k < plan.slot[m].size(); ++k) {
          shapes[plan.slot[m][k]] = std::move((*member)[k]);
        }
        return absl::OkStatus();
      }));
  return shapes;
}

absl::StatusOr<ShapedBatch> StoreSet::Read(absl::Span<const uint64_t> indices,
                                           BatchAllocator allocate) const {
  LOADERX_ASSIGN_OR_RETURN(std::vector<std::vector<uint64_t>> shapes,
                           Shapes(indices));
  ShapedBatch batch;
  batch.offsets.reserve(shapes.size());
  for (const std::vector<uint64_t>& shape : shapes) {
    uint64_t bytes = item_size();
    for (uint64_t dim : shape) bytes *= dim;
    batch.offsets.push_back(batch.total_bytes);
    batch.total_bytes += bytes;
  }
  LOADERX_ASSIGN_OR_RETURN(absl::Span<char> buffer,
                           allocate(batch.total_bytes));
  std::vector<absl::Span<char>> destinations;
  destinations.reserve(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    const uint64_t end =
        i + 1 < shapes.size() ? batch.offsets[i + 1] : batch.total_bytes;
    destinations.push_back(
        buffer.subspan(batch.offsets[i], end - batch.offsets[i]));
  }
  LOADERX_RETURN_IF_ERROR(Gather(indices, destinations));
  batch.shapes = BatchShapes::Of(shapes);
  return batch;
}

absl::StatusOr<StoreStats> StoreSet::Stats() const {
  StoreStats total;
  for (size_t m = 0; m < members_.size(); ++m) {
    absl::StatusOr<StoreStats> stats = members_[m]->Stats();
    if (!stats.ok()) return MemberError(m, stats.status());
    total.records += stats->records;
    total.live_bytes += stats->live_bytes;
    total.chunk_bytes += stats->chunk_bytes;
    total.reclaimable += stats->reclaimable;
  }
  return total;
}

absl::StatusOr<VerifyReport> StoreSet::Verify() const {
  VerifyReport total;
  total.metadata_verified = true;
  for (size_t m = 0; m < members_.size(); ++m) {
    absl::StatusOr<VerifyReport> report = members_[m]->Verify();
    if (!report.ok()) return MemberError(m, report.status());
    total.records += report->records;
    total.verified += report->verified;
    total.unverified += report->unverified;
    total.metadata_verified &= report->metadata_verified;
    for (uint64_t record : report->damaged) {
      total.damaged.push_back(starts_[m] + record);
    }
    for (const std::string& problem : report->problems) {
      total.problems.push_back(
          absl::StrCat("member ", m, " (", paths_[m], "): ", problem));
    }
  }
  return total;
}

}  // namespace loaderx
