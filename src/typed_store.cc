#include "loaderx/typed_store.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "loaderx/error_code.h"
#include "loaderx/spi/limits.h"
#include "loaderx/spi/path.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/typed_owner_registry.h"
#include "src/checksum.h"
#include "src/creation_site.h"
#include "src/index_check.h"
#include "src/mix64.h"
#include "src/record_engine.h"
#include "src/record_layout.h"
#include "src/shape_record.h"
#include "src/store_access_lock.h"
#include "src/typed_header.h"

namespace loaderx {
namespace {

using store_format::kTypedHeaderFile;
using store_format::kTypedHeaderStagingFile;

std::string ShapeText(absl::Span<const uint64_t> shape) {
  return absl::StrCat("(", absl::StrJoin(shape, ", "),
                      shape.size() == 1 ? ",)" : ")");
}

// The owner whose tag a typed header names; DataLoss for an unknown tag.
absl::StatusOr<std::shared_ptr<const TypedOwner>> OwnerOf(
    const TypedHeader& header, absl::string_view header_path) {
  absl::StatusOr<std::shared_ptr<const TypedOwner>> owner =
      FindTypedOwnerByTag(header.kind);
  if (!owner.ok()) {
    return absl::DataLossError(
        absl::StrCat(header_path, ": ", owner.status().message()));
  }
  return owner;
}

// A store of another kind than `wanted`; an empty `wanted` takes any kind.
absl::Status CheckKind(absl::string_view path, const TypedOwner& found,
                       absl::string_view wanted) {
  if (wanted.empty() || found.kind() == wanted) return absl::OkStatus();
  return KindMismatchError(absl::StrCat(path, " is a '", found.kind(),
                                        "' store, not '", wanted, "'"));
}

// The owner's geometry for `identity`, checked against the owner's own
// layout and the identity: the composition relies on both.
absl::StatusOr<RecordGeometry> GeometryOf(const TypedOwner& owner,
                                          const TypeIdentity& identity) {
  LOADERX_ASSIGN_OR_RETURN(RecordGeometry geometry, owner.Geometry(identity));
  auto inconsistent = [&](absl::string_view why) {
    return absl::InternalError(absl::StrCat("typed owner '", owner.kind(),
                                            "' is inconsistent: ", why));
  };
  if (geometry.layout != owner.layout()) {
    return inconsistent("its geometry's layout is not its own");
  }
  switch (geometry.layout) {
    case RecordGeometry::Layout::kFixedWidth: {
      const std::optional<uint64_t> width =
          ShapeBytes(identity.item_shape, geometry.item_size, kMaxRecordBytes);
      if (!width.has_value() || *width != geometry.record_width ||
          *width == 0) {
        return inconsistent(
            absl::StrCat("a record width of ", geometry.record_width,
                         " for item_shape ", ShapeText(identity.item_shape),
                         " of ", geometry.item_size, "-byte items"));
      }
      return geometry;
    }
    case RecordGeometry::Layout::kPayloadShapePairs:
      if (geometry.record_width != 0 || !identity.item_shape.empty()) {
        return inconsistent("a shaped identity with a record width or shape");
      }
      return geometry;
  }
  return inconsistent("an unknown layout");
}

// DataLoss for a directory whose creation stopped before store.zr was in
// place (`creation_site.h`), saying how to get out of it.
absl::Status UnfinishedCreationError(absl::string_view path,
                                     TypedHeaderFile typed) {
  return absl::DataLossError(absl::StrCat(
      "unfinished creation at ", path,
      ": the store's creation did not finish (",
      typed == TypedHeaderFile::kMissing
          ? "meta.zr but no store.zr"
          : "a store.zr that was never written whole",
      ", and no record was ever committed there); Create the store again "
      "(give a dtype) to take it over"));
}

// The unfinished-creation error if `path` is one (no store.zr, or a
// leftover of one, and nothing committed beside it), else OK: anything else
// is for the open to report. A creation in progress holds meta.zr's lock,
// which makes it busy rather than unfinished.
absl::Status CheckNotUnfinished(Vfs& vfs, absl::string_view path) {
  const std::string dir(path);
  LOADERX_ASSIGN_OR_RETURN(TypedHeaderFile typed,
                           InspectTypedHeaderFile(vfs, dir));
  if (typed == TypedHeaderFile::kPresent) return absl::OkStatus();
  absl::StatusOr<CreationSite> site = InspectCreationSite(vfs, dir);
  if (!site.ok() || *site != CreationSite::kUnfinished) {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<VfsFile>> meta =
      vfs.Open(JoinPath(dir, store_format::kHeaderFile), OpenMode::kReadOnly);
  if (meta.ok()) {
    absl::Status locked = (*meta)->TryLockShared();
    if (IsBusy(locked)) return locked;
  }
  return UnfinishedCreationError(path, typed);
}

// What is at a path, read without opening (or locking) a store there.
enum class Found { kNothing, kUnfinished, kStore };

absl::StatusOr<Found> Probe(Vfs& vfs, absl::string_view path,
                            absl::string_view kind) {
  const std::string dir(path);
  LOADERX_ASSIGN_OR_RETURN(TypedHeaderFile typed,
                           InspectTypedHeaderFile(vfs, dir));
  const std::string header_path = JoinPath(path, kTypedHeaderFile);
  if (typed == TypedHeaderFile::kPresent) {
    LOADERX_ASSIGN_OR_RETURN(std::string bytes,
                             ReadFileToString(vfs, header_path));
    LOADERX_ASSIGN_OR_RETURN(TypedHeader header,
                             DecodeTypedHeader(bytes, header_path));
    LOADERX_ASSIGN_OR_RETURN(auto owner, OwnerOf(header, header_path));
    LOADERX_RETURN_IF_ERROR(CheckKind(path, *owner, kind));
    return Found::kStore;
  }
  if (typed == TypedHeaderFile::kLeftover) {
    // A creation cut short, or a store whose store.zr is damaged: the
    // directory tells (a store with records is never taken over).
    absl::StatusOr<CreationSite> site = InspectCreationSite(vfs, dir);
    if (site.ok() && *site == CreationSite::kUnfinished) {
      return Found::kUnfinished;
    }
    LOADERX_ASSIGN_OR_RETURN(std::string bytes,
                             ReadFileToString(vfs, header_path));
    return DecodeTypedHeader(bytes, header_path).status();
  }
  // No store.zr, or no directory at all (a file used as one).
  absl::StatusOr<bool> has_meta =
      vfs.Exists(JoinPath(path, store_format::kHeaderFile));
  if (absl::IsFailedPrecondition(has_meta.status())) return Found::kNothing;
  LOADERX_RETURN_IF_ERROR(has_meta.status());
  return *has_meta ? Found::kUnfinished : Found::kNothing;
}

// The checks the reference makes when its constructor finds a store.
absl::Status CheckRequest(absl::string_view path, const TypedStore& store,
                          const StoreRequest& request) {
  if (request.dtype.has_value() && !(*request.dtype == store.dtype())) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " holds dtype ", DTypeToString(store.dtype()),
                     ", cannot open as ", DTypeToString(*request.dtype)));
  }
  if (request.codec.has_value() && *request.codec != store.codec()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " holds codec '", store.codec(),
                     "', cannot open as '", *request.codec, "'"));
  }
  if (request.item_shape.has_value() &&
      *request.item_shape != store.identity().item_shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, " holds item_shape ", ShapeText(store.identity().item_shape),
        ", cannot open as ", ShapeText(*request.item_shape)));
  }
  return absl::OkStatus();
}

RecordEngineOptions EngineOptions(const StoreOptions& options) {
  RecordEngineOptions engine_options;
  engine_options.codec = options.codec;
  engine_options.codec_options.dictionary = options.dictionary;
  engine_options.codec_options.level = options.level;
  engine_options.thread_pool = options.thread_pool;
  engine_options.read_only = options.read_only;
  engine_options.verify_checksums = options.verify_checksums;
  return engine_options;
}

}  // namespace

TypedStore::TypedStore(std::unique_ptr<RecordEngine> engine,
                       std::shared_ptr<const TypedOwner> owner,
                       TypeIdentity identity, RecordGeometry geometry)
    : engine_(std::move(engine)),
      owner_(std::move(owner)),
      identity_(std::move(identity)),
      geometry_(geometry),
      layout_(MakeRecordLayout(*engine_, identity_, geometry_)),
      access_(std::make_unique<StoreAccessLock>()) {}

TypedStore::~TypedStore() = default;

absl::StatusOr<std::unique_ptr<TypedStore>> TypedStore::Create(
    Vfs& vfs, absl::string_view path, absl::string_view kind,
    const TypeIdentity& identity, const StoreOptions& options) {
  // Everything about the request is checked before anything is written.
  LOADERX_RETURN_IF_ERROR(ValidatePath(path));
  LOADERX_ASSIGN_OR_RETURN(auto owner, FindTypedOwner(kind));
  LOADERX_ASSIGN_OR_RETURN(std::string encoded,
                           owner->EncodeIdentity(identity));
  LOADERX_ASSIGN_OR_RETURN(RecordGeometry geometry,
                           GeometryOf(*owner, identity));
  TypedHeader header;
  header.kind = owner->kind_tag();
  header.record_bytes = geometry.record_width;
  header.identity = encoded;
  const std::string header_bytes = EncodeTypedHeader(header);
  RecordEngineOptions engine_options = EngineOptions(options);
  engine_options.read_only = false;  // `StoreOptions::read_only`: ignored.
  // Its checksum is durable (in the engine's first durable state) before
  // it is: a store.zr that does not match is damaged, never merely new.
  engine_options.typed_header = header_bytes;
  LOADERX_ASSIGN_OR_RETURN(auto engine,
                           RecordEngine::Create(vfs, path, engine_options));
  // store.zr is whole or absent at every instant: written and synced under
  // another name (the engine removed any leftover of it), then renamed. A
  // kill or power cut before the rename leaves an unfinished creation that
  // the next `Create` takes over.
  const std::string staging_path = JoinPath(path, kTypedHeaderStagingFile);
  {
    LOADERX_ASSIGN_OR_RETURN(
        std::unique_ptr<VfsFile> file,
        vfs.Open(staging_path, OpenMode::kCreateExclusive));
    LOADERX_RETURN_IF_ERROR(file->WriteAt(0, header_bytes));
    LOADERX_RETURN_IF_ERROR(file->Sync());
  }
  LOADERX_RETURN_IF_ERROR(
      vfs.Rename(staging_path, JoinPath(path, kTypedHeaderFile)));
  LOADERX_RETURN_IF_ERROR(vfs.SyncDirectory(std::string(path)));
  auto store = std::unique_ptr<TypedStore>(
      new TypedStore(std::move(engine), std::move(owner), identity, geometry));
  store->typed_header_verified_ = true;
  return store;
}

absl::StatusOr<std::unique_ptr<TypedStore>> TypedStore::Open(
    Vfs& vfs, absl::string_view path, absl::string_view kind,
    const StoreOptions& options) {
  if (kind.empty()) {
    return absl::InvalidArgumentError(
        "open: no kind given (`OpenAny` opens a store of any kind)");
  }
  return OpenOfKind(vfs, path, kind, options);
}

absl::StatusOr<std::unique_ptr<TypedStore>> TypedStore::OpenAny(
    Vfs& vfs, absl::string_view path, const StoreOptions& options) {
  return OpenOfKind(vfs, path, /*kind=*/"", options);
}

absl::StatusOr<std::unique_ptr<TypedStore>> TypedStore::OpenOfKind(
    Vfs& vfs, absl::string_view path, absl::string_view kind,
    const StoreOptions& options) {
  LOADERX_RETURN_IF_ERROR(ValidatePath(path));
  // Before the engine opens (and might recover) anything there.
  LOADERX_RETURN_IF_ERROR(CheckNotUnfinished(vfs, path));
  LOADERX_ASSIGN_OR_RETURN(
      auto engine, RecordEngine::Open(vfs, path, EngineOptions(options)));
  const std::string header_path = JoinPath(path, kTypedHeaderFile);
  absl::StatusOr<std::string> bytes = ReadFileToString(vfs, header_path);
  if (absl::IsNotFound(bytes.status())) {
    return absl::DataLossError(absl::StrCat(
        header_path, " is missing: the store's creation did not finish"));
  }
  LOADERX_RETURN_IF_ERROR(bytes.status());
  LOADERX_ASSIGN_OR_RETURN(TypedHeader header,
                           DecodeTypedHeader(*bytes, header_path));
  LOADERX_ASSIGN_OR_RETURN(auto owner, OwnerOf(header, header_path));
  LOADERX_RETURN_IF_ERROR(CheckKind(path, *owner, kind));
  absl::StatusOr<TypeIdentity> identity =
      owner->DecodeIdentity(header.identity);
  if (!identity.ok()) {
    return absl::DataLossError(
        absl::StrCat(header_path, ": ", identity.status().message()));
  }
  LOADERX_ASSIGN_OR_RETURN(RecordGeometry geometry,
                           GeometryOf(*owner, *identity));
  if (geometry.record_width != header.record_bytes) {
    return absl::DataLossError(
        absl::StrCat(header_path, ": record width ", header.record_bytes,
                     " does not match the identity's ", geometry.record_width));
  }
  auto store = std::unique_ptr<TypedStore>(new TypedStore(
      std::move(engine), std::move(owner), *std::move(identity), geometry));
  if (store->engine_->length() % store->layout_->group() != 0) {
    return absl::DataLossError(absl::StrCat(
        "the ", store->kind(), " store at ", path, " holds ",
        store->engine_->length(), " physical records, not a whole number of ",
        store->layout_->group(), "-record groups (damaged store)"));
  }
  // A store.zr that decodes and agrees with itself can still be flipped
  // (`<f4` to `>f4`): its checksum tells.
  LOADERX_ASSIGN_OR_RETURN(store->typed_header_verified_,
                           store->engine_->CheckTypedHeader(*bytes));
  return store;
}

absl::StatusOr<std::unique_ptr<TypedStore>> TypedStore::OpenOrCreate(
    Vfs& vfs, absl::string_view path, absl::string_view kind,
    const StoreRequest& request) {
  LOADERX_RETURN_IF_ERROR(ValidatePath(path));
  std::shared_ptr<const TypedOwner> owner;
  if (!kind.empty()) {
    LOADERX_ASSIGN_OR_RETURN(owner, FindTypedOwner(kind));
    if (owner->layout() != RecordGeometry::Layout::kFixedWidth &&
        request.item_shape.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("a ", kind, " store has no item_shape"));
    }
  }
  LOADERX_ASSIGN_OR_RETURN(Found found, Probe(vfs, path, kind));
  StoreOptions options;
  options.level = request.level;
  options.thread_pool = request.thread_pool;
  options.read_only = request.read_only;
  if (found == Found::kStore) {
    if (request.dictionary.has_value()) {
      return absl::InvalidArgumentError(
          "dict_bytes is only accepted when creating a store");
    }
    LOADERX_ASSIGN_OR_RETURN(auto store, OpenOfKind(vfs, path, kind, options));
    LOADERX_RETURN_IF_ERROR(CheckRequest(path, *store, request));
    return store;
  }
  const bool can_create =
      owner != nullptr && request.dtype.has_value() &&
      (owner->layout() != RecordGeometry::Layout::kFixedWidth ||
       request.item_shape.has_value());
  if (request.read_only) {
    if (found == Found::kUnfinished) {
      LOADERX_RETURN_IF_ERROR(CheckNotUnfinished(vfs, path));
    }
    return absl::NotFoundError(absl::StrCat(
        path, " is not a loaderx store (a read-only open creates none)"));
  }
  if (!can_create) {
    if (found == Found::kUnfinished) {
      // Unfinished, or meta.zr with records and no store.zr: damaged.
      LOADERX_RETURN_IF_ERROR(CheckNotUnfinished(vfs, path));
      return absl::DataLossError(absl::StrCat(
          path,
          " holds meta.zr but no store.zr, and is not an unfinished "
          "creation to redo (damaged store)"));
    }
    return absl::NotFoundError(absl::StrCat(path, " is not a loaderx store"));
  }
  options.codec = request.codec.value_or("zstd");
  if (options.codec == "zstd_dict" && !request.dictionary.has_value()) {
    return absl::InvalidArgumentError(
        "creating a zstd_dict store requires dict_bytes from train_dict");
  }
  if (options.codec != "zstd_dict" && request.dictionary.has_value()) {
    return absl::InvalidArgumentError("dict_bytes requires codec='zstd_dict'");
  }
  options.dictionary = request.dictionary.value_or("");
  absl::StatusOr<std::unique_ptr<TypedStore>> created =
      Create(vfs, path, kind,
             TypeIdentity{*request.dtype,
                          request.item_shape.value_or(std::vector<uint64_t>{})},
             options);
  if (found == Found::kUnfinished && absl::IsAlreadyExists(created.status())) {
    // meta.zr without store.zr that is not a creation to take over: as the
    // reference reports it, a bad format.
    return absl::DataLossError(
        absl::StrCat(path,
                     " holds meta.zr but no store.zr, and is not an unfinished "
                     "creation to redo (damaged store): ",
                     created.status().message()));
  }
  return created;
}

uint64_t TypedStore::size() const {
  return engine_->length() / layout_->group();
}

absl::string_view TypedStore::codec() const { return engine_->codec().name(); }

bool TypedStore::has_dictionary() const {
  return engine_->codec().uses_dictionary();
}

absl::Status TypedStore::CheckRecord(const ShapedRecord& record,
                                     size_t position) const {
  auto invalid = [&](auto... why) {
    return absl::InvalidArgumentError(
        absl::StrCat("append: record ", position, " ", why...));
  };
  if (record.dtype != nullptr && !(*record.dtype == identity_.dtype)) {
    return invalid("has dtype ", DTypeToString(*record.dtype),
                   ", the store's dtype is ", DTypeToString(identity_.dtype));
  }
  if (record.shape.size() > kMaxDimensions) {
    return invalid("has ", record.shape.size(), " dimensions; at most ",
                   kMaxDimensions);
  }
  if (fixed_width() && record.shape != identity_.item_shape) {
    return invalid("has shape ", ShapeText(record.shape),
                   ", the store's records have shape ",
                   ShapeText(identity_.item_shape));
  }
  if (record.data.empty()) {
    return invalid("(shape ", ShapeText(record.shape),
                   ") is empty; zero-byte arrays cannot be stored");
  }
  if (record.data.size() > kMaxRecordBytes) {
    return RecordTooLargeError(
        absl::StrCat("append: record ", position, " has ", record.data.size(),
                     " bytes; a record is at most 2^31"));
  }
  const std::optional<uint64_t> bytes =
      ShapeBytes(record.shape, geometry_.item_size, kMaxRecordBytes);
  if (!bytes.has_value() || *bytes != record.data.size()) {
    return invalid("has ", record.data.size(), " bytes; shape ",
                   ShapeText(record.shape), " of dtype ",
                   DTypeToString(identity_.dtype), " (", geometry_.item_size,
                   "-byte items) does not hold that");
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> TypedStore::Append(
    absl::Span<const ShapedRecord> records) {
  const StoreAccessLock::Shared access(*access_);
  if (records.empty()) {
    return absl::InvalidArgumentError("append needs at least one record");
  }
  for (size_t i = 0; i < records.size(); ++i) {
    LOADERX_RETURN_IF_ERROR(CheckRecord(records[i], i));
  }
  return layout_->Append(records);
}

absl::StatusOr<uint64_t> TypedStore::AppendBatch(const ShapedRecord& batch) {
  const StoreAccessLock::Shared access(*access_);
  // A 0-d array is one record of shape (), as the reference reshapes it.
  const uint64_t count = batch.shape.empty() ? 1 : batch.shape[0];
  if (count == 0) {
    return absl::InvalidArgumentError("append needs at least one record");
  }
  ShapedRecord first;
  first.dtype = batch.dtype;
  if (!batch.shape.empty()) {
    first.shape.assign(batch.shape.begin() + 1, batch.shape.end());
  }
  if (batch.data.size() % count != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("append: ", batch.data.size(), " bytes are not ", count,
                     " records of equal size"));
  }
  first.data = batch.data.substr(0, batch.data.size() / count);
  // Every record has the first one's dtype, shape and size.
  LOADERX_RETURN_IF_ERROR(CheckRecord(first, 0));
  return layout_->AppendBatch(batch.data, count, first.shape);
}

absl::Status TypedStore::RequireFixedWidth(absl::string_view operation) const {
  if (fixed_width()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      operation, ": the '", kind(),
      "' store's records carry their own shapes; it has no fixed width"));
}

absl::StatusOr<uint64_t> TypedStore::AppendFixed(absl::string_view data) {
  const StoreAccessLock::Shared access(*access_);
  LOADERX_RETURN_IF_ERROR(RequireFixedWidth("append"));
  if (data.empty() || data.size() % geometry_.record_width != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "append: ", data.size(), " bytes are not a whole, nonzero number of ",
        geometry_.record_width, "-byte records"));
  }
  return layout_->AppendBatch(data, data.size() / geometry_.record_width,
                              identity_.item_shape);
}

absl::StatusOr<ShapedBatch> TypedStore::Read(absl::Span<const uint64_t> indices,
                                             BatchAllocator allocate) const {
  const StoreAccessLock::Shared access(*access_);
  LOADERX_RETURN_IF_ERROR(CheckIndices(indices, size()));
  return layout_->Read(indices, allocate);
}

absl::Status TypedStore::GatherFixed(absl::Span<const uint64_t> indices,
                                     absl::Span<char> destination) const {
  const StoreAccessLock::Shared access(*access_);
  LOADERX_RETURN_IF_ERROR(RequireFixedWidth("gather"));
  return engine_->GatherFixed(indices, geometry_.record_width, destination);
}

absl::StatusOr<std::vector<std::vector<uint64_t>>> TypedStore::Shapes(
    absl::Span<const uint64_t> indices) const {
  const StoreAccessLock::Shared access(*access_);
  LOADERX_RETURN_IF_ERROR(CheckIndices(indices, size()));
  return layout_->Shapes(indices);
}

absl::Status TypedStore::Gather(
    absl::Span<const uint64_t> indices,
    absl::Span<const absl::Span<char>> destinations) const {
  const StoreAccessLock::Shared access(*access_);
  LOADERX_RETURN_IF_ERROR(CheckIndices(indices, size()));
  return layout_->Gather(indices, destinations);
}

absl::Status TypedStore::Delete(absl::Span<const uint64_t> indices) {
  const StoreAccessLock::Exclusive access(*access_);
  LOADERX_RETURN_IF_ERROR(CheckIndices(indices, size()));
  // A record's engine records go together: the engine's descending
  // swap-last moves the last group's k-th record into the k-th slot.
  const uint64_t group = layout_->group();
  std::vector<uint64_t> physical;
  physical.reserve(group * indices.size());
  for (uint64_t index : indices) {
    for (uint64_t k = 0; k < group; ++k) physical.push_back(group * index + k);
  }
  return engine_->Delete(physical);
}

absl::Status TypedStore::Compact() {
  const StoreAccessLock::Exclusive access(*access_);
  return engine_->Compact();
}

absl::Status TypedStore::AcceptMetadataProblems() {
  const StoreAccessLock::Exclusive access(*access_);
  return engine_->AcceptMetadataProblems();
}

absl::StatusOr<CompactionEstimate> TypedStore::EstimateCompaction() const {
  const StoreAccessLock::Exclusive access(*access_);
  return engine_->EstimateCompaction();
}

absl::StatusOr<StoreStats> TypedStore::Stats() const {
  const StoreAccessLock::Shared access(*access_);
  LOADERX_ASSIGN_OR_RETURN(StoreStats stats, engine_->Stats());
  stats.records /= layout_->group();
  return stats;
}

absl::StatusOr<uint64_t> TypedStore::Fingerprint() const {
  const StoreAccessLock::Shared access(*access_);
  LOADERX_ASSIGN_OR_RETURN(const uint64_t state, engine_->Fingerprint());
  LOADERX_ASSIGN_OR_RETURN(const std::string identity,
                           owner_->EncodeIdentity(identity_));
  const std::string kind(owner_->kind());
  return Mix(Checksum(kind) ^ Mix64(Checksum(identity)), state,
             geometry_.record_width);
}

absl::Status TypedStore::Sync() {
  const StoreAccessLock::Shared access(*access_);
  return engine_->Sync();
}

absl::StatusOr<VerifyReport> TypedStore::Verify(
    const VerifyProgress& progress) const {
  const StoreAccessLock::Shared access(*access_);
  // A group of engine records (a ragged record's payload and shape) is one
  // record, verified when all of them are; the layout's own check catches
  // damage no checksum shows (1.7.7's records have none).
  LOADERX_ASSIGN_OR_RETURN(
      VerifyReport report,
      engine_->Verify(
          layout_->group(),
          [this](uint64_t index) { return layout_->CheckStoredRecord(index); },
          progress));
  report.metadata_verified = report.metadata_verified && typed_header_verified_;
  return report;
}

bool TypedStore::read_only() const { return engine_->read_only(); }

}  // namespace loaderx
