// `StoreMappings` lends a store's readers the committed bytes of its files
// (chunks, record-table segments, checksums.lx) through read-only mappings
// (`VfsFile::MapReadOnly`), so a gather reads a table entry, a checksum and
// a record's bytes with loads and one copy instead of three system calls.
//
// Readers take the current `MappedView` once per batch: an immutable set of
// mapped prefixes, one per file, that stays valid for as long as the reader
// holds it. A view never shows a byte that was not committed when it was
// made: the engine asks `Extend` for a file's prefix only up to what its
// published length and frontier cover, and only when a location needs bytes
// past the view's prefix (a store that grew since). `Extend` maps the new
// prefix and publishes a new view; earlier views keep their regions until
// their readers let go. Rewrites of committed bytes (a delete's or a
// compaction's table rewrites, truncations, removed files) call
// `Invalidate`, after which the next batch maps afresh: such calls never
// overlap a reader (`RecordEngine`'s contract).
//
// A VFS that cannot map (`Unimplemented`) turns mapping off for the store's
// lifetime: `enabled()` is false and readers use `ReadAt`.
//
// A view also carries the store's resident index (`resident_index.h`), made
// from its mapped table and checksum entries by `Reside`, and dropped with
// them by `Invalidate`.
//
// The mapped prefixes are checked against the file's size when they are
// made (`MapReadOnly` refuses a range past the end), so a location outside
// its file is DataLoss, never a fault. What a mapping cannot guard against
// is another process truncating a file while it is mapped (POSIX raises
// SIGBUS on a page past the new end): the store's lock excludes every other
// writer that follows the protocol, and loaderx 1.7.7 never shrinks a file.
//
// Thread safety: every method may be called from any thread.

#ifndef LOADERX_SRC_STORE_MAPPINGS_H_
#define LOADERX_SRC_STORE_MAPPINGS_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loaderx/vfs.h"
#include "src/resident_index.h"

namespace loaderx {

// Which of a store's files a mapping is of.
enum class MappedFileKind { kChunk, kSegment, kChecksums };

// The mapped prefixes of a store's files at one moment. Immutable.
class MappedView {
 public:
  // The mapped prefix of chunk or segment `id` (empty if not mapped yet).
  absl::string_view chunk(uint64_t id) const {
    return id < chunks_.size() ? chunks_[id] : absl::string_view();
  }
  absl::string_view segment(uint64_t id) const {
    return id < segments_.size() ? segments_[id] : absl::string_view();
  }
  absl::string_view checksums() const { return checksums_; }
  // Every chunk's and segment's mapped prefix, by id.
  absl::Span<const absl::string_view> chunks() const { return chunks_; }
  absl::Span<const absl::string_view> segments() const { return segments_; }
  // checksums.lx was found shorter than this many bytes: entries past its
  // mapped prefix but below this are absent, not unmapped.
  uint64_t checksums_sought() const { return checksums_sought_; }
  // The resident index: the entries of records [0, resident_count()), made
  // for records of resident_width() bytes (0 while it is empty).
  const ResidentEntry* resident() const { return resident_; }
  uint64_t resident_count() const { return resident_count_; }
  uint64_t resident_width() const { return resident_width_; }

 private:
  friend class StoreMappings;

  std::vector<absl::string_view> chunks_;
  std::vector<absl::string_view> segments_;
  absl::string_view checksums_;
  uint64_t checksums_sought_ = 0;
  // The regions the prefixes point into, kept alive by the view.
  std::vector<std::shared_ptr<const MappedRegion>> chunk_regions_;
  std::vector<std::shared_ptr<const MappedRegion>> segment_regions_;
  std::shared_ptr<const MappedRegion> checksums_region_;
  // The block `resident_` points into, shared by the views after it (which
  // may cover more of it).
  std::shared_ptr<ResidentBlock> resident_block_;
  const ResidentEntry* resident_ = nullptr;
  uint64_t resident_count_ = 0;
  uint64_t resident_width_ = 0;
};

class StoreMappings {
 public:
  StoreMappings();
  StoreMappings(const StoreMappings&) = delete;
  StoreMappings& operator=(const StoreMappings&) = delete;

  // False once the VFS declined to map: readers then use `ReadAt`.
  bool enabled() const;

  // The current view (never null).
  std::shared_ptr<const MappedView> Current() const;

  // Maps the first `end` bytes of `file` (file `id` of `kind`; the id is
  // ignored for checksums.lx), or all of it if it is shorter, unless the
  // current view already maps that much, and returns the resulting view.
  // `end` must lie within committed bytes (`UINT64_MAX` for a file that
  // no longer grows). For checksums.lx the view also remembers `end` as
  // sought, so entries the file lacks are not looked for again.
  // Unimplemented if the VFS cannot map (mapping is then off for good);
  // the VFS's error otherwise.
  absl::StatusOr<std::shared_ptr<const MappedView>> Extend(MappedFileKind kind,
                                                           uint64_t id,
                                                           const VfsFile& file,
                                                           uint64_t end);

  // Extends the current view's resident index toward record `end` (by at
  // most `kResidentRecordsPerGather` records, and only over records whose
  // table entry in segment 0 and checksum entry the view maps) for records
  // of `width` bytes, and returns the resulting view. An index made for
  // another width is left as it is; so is one another thread is extending
  // (this call does not wait for it). `end` must lie within committed
  // records.
  std::shared_ptr<const MappedView> Reside(uint64_t width, uint64_t end);

  // Drops every mapping and the resident index: the next `Extend` maps
  // afresh. For rewrites of committed bytes, truncations and removed files.
  void Invalidate();

 private:
  // Guards the two members below it. (Not ABSL_GUARDED_BY: libstdc++'s
  // std::mutex carries no capability annotation, and clang's
  // -Wthread-safety in the fuzz build rejects the attribute on it.)
  mutable std::mutex mu_;
  std::shared_ptr<const MappedView> current_;
  bool enabled_ = true;
  // Counts `Invalidate` calls: an index made from a view that was dropped
  // while it was being made is not published.
  uint64_t generation_ = 0;
  // Held by the one thread extending the resident index (outside `mu_`:
  // readers take views meanwhile).
  std::mutex reside_mu_;
};

}  // namespace loaderx

#endif  // LOADERX_SRC_STORE_MAPPINGS_H_
