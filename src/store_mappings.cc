#include "src/store_mappings.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <utility>

#include "absl/status/status.h"

namespace loaderx {

StoreMappings::StoreMappings() : current_(std::make_shared<MappedView>()) {}

bool StoreMappings::enabled() const {
  std::lock_guard lock(mu_);
  return enabled_;
}

std::shared_ptr<const MappedView> StoreMappings::Current() const {
  std::lock_guard lock(mu_);
  return current_;
}

void StoreMappings::Invalidate() {
  std::lock_guard lock(mu_);
  current_ = std::make_shared<MappedView>();
}

absl::StatusOr<std::shared_ptr<const MappedView>> StoreMappings::Extend(
    MappedFileKind kind, uint64_t id, const VfsFile& file, uint64_t end) {
  std::lock_guard lock(mu_);
  if (!enabled_) {
    return absl::UnimplementedError("mapping is off for this store");
  }
  const MappedView& old = *current_;
  const bool checksums = kind == MappedFileKind::kChecksums;
  const absl::string_view mapped = checksums ? old.checksums()
                                   : kind == MappedFileKind::kChunk
                                       ? old.chunk(id)
                                       : old.segment(id);
  if (mapped.size() >= end || (checksums && old.checksums_sought() >= end)) {
    return current_;
  }
  // Checked at map time: a file shorter than `end` (a damaged chunk, or a
  // checksums.lx without the entries of records another program appended)
  // maps what it has, and the reader finds its location outside.
  absl::StatusOr<uint64_t> size = file.Size();
  if (!size.ok()) return size.status();
  const uint64_t length = std::min(end, *size);
  if (length <= mapped.size()) {
    if (!checksums) return current_;
    auto next = std::make_shared<MappedView>(old);
    next->checksums_sought_ = end;
    current_ = std::move(next);
    return current_;
  }
  absl::StatusOr<std::unique_ptr<MappedRegion>> region =
      file.MapReadOnly(0, length);
  if (absl::IsUnimplemented(region.status())) enabled_ = false;
  if (!region.ok()) return region.status();
  std::shared_ptr<const MappedRegion> shared = std::move(*region);
  auto next = std::make_shared<MappedView>(old);
  const absl::string_view bytes = shared->data();
  if (checksums) {
    next->checksums_ = bytes;
    next->checksums_sought_ = end;
    next->checksums_region_ = std::move(shared);
  } else {
    auto& views =
        kind == MappedFileKind::kChunk ? next->chunks_ : next->segments_;
    auto& regions = kind == MappedFileKind::kChunk ? next->chunk_regions_
                                                   : next->segment_regions_;
    if (views.size() <= id) {
      views.resize(id + 1);
      regions.resize(id + 1);
    }
    views[id] = bytes;
    regions[id] = std::move(shared);
  }
  current_ = std::move(next);
  return current_;
}

}  // namespace loaderx
