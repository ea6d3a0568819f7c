#include "src/store_mappings.h"

#include <algorithm>
#include <cstdint>
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
  ++generation_;
}

std::shared_ptr<const MappedView> StoreMappings::Reside(uint64_t width,
                                                        uint64_t end) {
  std::unique_lock reside(reside_mu_, std::try_to_lock);
  std::shared_ptr<const MappedView> view;
  uint64_t generation;
  {
    std::lock_guard lock(mu_);
    view = current_;
    generation = generation_;
  }
  if (!reside.owns_lock()) return view;
  const uint64_t first = view->resident_count_;
  if (first > 0 && view->resident_width_ != width) return view;
  end = std::min({end, first + kResidentRecordsPerGather, kResidentMaxRecords,
                  ResidentCoverable(view->segment(0), view->checksums())});
  if (end <= first) return view;
  // Entries below `first` are read by other views' readers: only the ones
  // past it are written, into the same block while it has room.
  std::shared_ptr<ResidentBlock> block = view->resident_block_;
  if (block == nullptr || block->capacity < end) {
    auto grown = std::make_shared<ResidentBlock>(
        std::min(std::max(end, 2 * (block == nullptr ? 0 : block->capacity)),
                 kResidentMaxRecords));
    if (first > 0) {
      std::copy_n(block->entries.get(), first, grown->entries.get());
    }
    block = std::move(grown);
  }
  MakeResidentEntries(view->segment(0), view->checksums(), first, end, width,
                      block->entries.get() + first);
  std::lock_guard lock(mu_);
  // Dropped meanwhile: the entries may describe rewritten bytes.
  if (generation != generation_) return current_;
  // `current_` may have been extended meanwhile; its index is still the
  // one this extends (only this thread extends it).
  auto next = std::make_shared<MappedView>(*current_);
  next->resident_block_ = std::move(block);
  next->resident_ = next->resident_block_->entries.get();
  next->resident_count_ = end;
  next->resident_width_ = width;
  current_ = std::move(next);
  return current_;
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
