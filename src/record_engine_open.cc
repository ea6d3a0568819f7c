// `RecordEngine::Open`: locking, recovering from an interrupted step or a
// torn header, telling whether another program wrote the store, and
// validating everything before the store is handed out.

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/codec_registry.h"
#include "loaderx/spi/path.h"
#include "loaderx/spi/status_macros.h"
#include "src/checksum.h"
#include "src/metadata_file.h"
#include "src/record_engine.h"
#include "src/record_table.h"

namespace loaderx {
namespace {

using integrity_format::CommitSeal;
using integrity_format::StateSlot;
using store_format::kHeaderBytes;
using store_format::OffsetInSegment;
using store_format::PhysicalHeader;
using store_format::RecordLoc;
using store_format::SegmentOf;

// A writer takes meta.zr's exclusive lock, a reader the shared one (or,
// on a VFS without shared locks, the exclusive one: readers then exclude
// each other too).
absl::Status LockStore(VfsFile& meta, bool read_only) {
  if (!read_only) return meta.TryLock();
  absl::Status shared = meta.TryLockShared();
  if (absl::IsUnimplemented(shared)) return meta.TryLock();
  return shared;
}

// Loads a store's codec: its tag from the header, its dictionary from
// dict.zr when present (checked against `dictionary_checksum` if the store
// has one), and `level` for this handle's appends (0: the codec's
// default). A dictionary where the codec takes none, or none where it needs
// one, is a damaged store; a level the codec refuses is the caller's
// mistake.
absl::StatusOr<std::unique_ptr<Codec>> LoadCodec(
    Vfs& vfs, const std::string& directory, uint8_t tag, int level,
    std::optional<uint64_t> dictionary_checksum) {
  const std::string dictionary_path =
      JoinPath(directory, store_format::kDictionaryFile);
  CodecOptions options;
  LOADERX_ASSIGN_OR_RETURN(bool has_dictionary, vfs.Exists(dictionary_path));
  if (has_dictionary) {
    LOADERX_ASSIGN_OR_RETURN(
        options.dictionary,
        ReadMetadataFile(vfs, dictionary_path, kMaxDictionaryBytes));
    if (dictionary_checksum.has_value() &&
        Checksum(options.dictionary) != *dictionary_checksum) {
      return absl::DataLossError(absl::StrCat(
          dictionary_path,
          " does not match the checksum written with it (damaged store)"));
    }
  }
  absl::StatusOr<std::unique_ptr<Codec>> codec = CreateCodecByTag(tag, options);
  if (!codec.ok()) {
    return absl::DataLossError(
        absl::StrCat(directory, ": cannot load the store's codec (tag ", tag,
                     has_dictionary ? ", with" : ", without",
                     " dict.zr): ", codec.status().message()));
  }
  if (level == 0) return codec;
  options.level = level;
  return CreateCodecByTag(tag, options);
}

// Whether meta.zr, as `bytes` with modification stamp `stamp`, was written
// by someone other than this library since it last did: later than the
// seal's (or, the seal being torn, the durable state's) stamp, and not the
// header a write of ours was interrupted putting there. Without stamps
// there is no telling, and the answer is no.
bool WrittenElsewhere(std::optional<uint64_t> stamp, absl::string_view bytes,
                      const std::optional<CommitSeal>& seal,
                      const StateSlot& state) {
  if (!stamp.has_value()) return false;
  if (!seal.has_value()) return *stamp > state.meta_stamp;
  if (*stamp <= seal->meta_stamp) return false;
  return !(seal->pending &&
           bytes == absl::string_view(seal->meta.data(), seal->meta.size()));
}

absl::string_view View(const integrity_format::MetaBytes& bytes) {
  return absl::string_view(bytes.data(), bytes.size());
}

// The headers to open with when no journal overrides them, in order of
// preference; `restored` when meta.zr's own is not among them. meta.zr's own
// (`bytes`) is taken if it is one this library may have left there: the
// seal's (or, mid-write, the one before it) or the durable state's. Any
// other means meta.zr was torn by a crash or damaged since; the headers this
// library knows then replace it, most recent first (the caller takes the
// first whose table validates: a header made durable before its table
// entries were must not win). That check needs modification stamps, which
// tell this library's writes from another program's (whose headers are
// taken as they are).
absl::StatusOr<std::vector<PhysicalHeader>> CandidateHeaders(
    absl::string_view bytes, absl::string_view path,
    const std::optional<CommitSeal>& seal,
    const std::optional<StateSlot>& state, bool foreign, bool stamped,
    bool& restored) {
  std::vector<absl::string_view> known;  // Most recent first.
  if (seal.has_value()) {
    known.push_back(View(seal->meta));
    if (seal->pending) known.push_back(View(seal->previous));
  }
  if (state.has_value()) known.push_back(View(state->meta));
  absl::StatusOr<PhysicalHeader> decoded =
      store_format::DecodeHeader(bytes, path);
  const bool checkable = stamped && !foreign && !known.empty();
  if (decoded.ok() && (!checkable || std::find(known.begin(), known.end(),
                                               bytes) != known.end())) {
    return std::vector<PhysicalHeader>{*decoded};
  }
  if (foreign || known.empty()) return decoded.status();
  std::vector<PhysicalHeader> candidates;
  for (absl::string_view candidate : known) {
    absl::StatusOr<PhysicalHeader> header =
        store_format::DecodeHeader(candidate, path);
    if (header.ok()) candidates.push_back(*header);
  }
  if (candidates.empty()) {
    if (!decoded.ok()) return decoded.status();
    return absl::DataLossError(
        absl::StrCat(path, " holds a header this library never wrote"));
  }
  restored = true;
  return candidates;
}

// What the durable `state` holds against the files (its own findings, and
// how `header`, the one the store opens with, differs from its record of
// the length): records removed past the length, records reappeared with
// the frontier unchanged. Nothing new when an unfinished step or a restore
// of ours `explained` the header. A codec other than the state's is
// DataLoss: no writer changes a store's codec.
absl::StatusOr<MetadataFindings> FindingsAt(const StateSlot& state,
                                            const PhysicalHeader& header,
                                            const std::string& directory,
                                            bool explained) {
  MetadataFindings findings;
  findings.adopted = state.metadata_adopted;
  findings.removed_records = state.removed_records;
  findings.removed_from_length = state.removed_from_length;
  findings.reappeared_records = state.reappeared_records;
  if (explained) return findings;
  absl::StatusOr<PhysicalHeader> durable = store_format::DecodeHeader(
      View(state.meta), JoinPath(directory, integrity_format::kIntegrityFile));
  if (!durable.ok()) return findings;
  if (durable->codec != header.codec) {
    return absl::DataLossError(absl::StrCat(
        JoinPath(directory, store_format::kHeaderFile), " names codec tag ",
        header.codec, " but the store was written with codec tag ",
        durable->codec, " (damaged header)"));
  }
  if (header.length < durable->length) {
    findings.removed_records += durable->length - header.length;
    findings.removed_from_length =
        std::max(findings.removed_from_length, durable->length);
  } else if (header.length > durable->length &&
             FrontierOf(header) == FrontierOf(*durable)) {
    findings.reappeared_records += header.length - durable->length;
  }
  return findings;
}

// Opens the chunks and segments `header` needs into `files`.
absl::Status OpenStoreFiles(StoreFiles& files, const PhysicalHeader& header) {
  for (uint64_t chunk = files.chunk_count(); chunk <= header.tail_chunk;
       ++chunk) {
    LOADERX_RETURN_IF_ERROR(files.OpenChunk(chunk));
  }
  if (header.length == 0) return absl::OkStatus();
  for (uint64_t segment = files.segment_count();
       segment <= SegmentOf(header.length - 1); ++segment) {
    LOADERX_RETURN_IF_ERROR(files.OpenSegment(segment));
  }
  return absl::OkStatus();
}

// Whether the table of the store in `directory` validates under `header`
// (read-only: nothing is written). DataLoss naming the first problem.
absl::Status ValidateHeader(Vfs& vfs, const std::string& directory,
                            const PhysicalHeader& header, int level,
                            const std::optional<StateSlot>& state) {
  LOADERX_ASSIGN_OR_RETURN(
      std::unique_ptr<Codec> codec,
      LoadCodec(vfs, directory, header.codec, level,
                state.has_value() ? state->dictionary_checksum : std::nullopt));
  LOADERX_ASSIGN_OR_RETURN(
      std::unique_ptr<VfsFile> meta,
      vfs.Open(JoinPath(directory, store_format::kHeaderFile),
               OpenMode::kReadOnly));
  StoreFiles files(vfs, directory, std::move(meta), /*read_only=*/true);
  LOADERX_RETURN_IF_ERROR(OpenStoreFiles(files, header));
  LOADERX_ASSIGN_OR_RETURN(
      const TableBounds bounds,
      MeasureChunks(
          directory, header,
          [&](uint64_t id) -> absl::StatusOr<const VfsFile*> {
            return files.Chunk(id);
          },
          *codec));
  for (uint64_t index = 0; index < header.length;) {
    const uint64_t in_segment =
        OffsetInSegment(index) / store_format::kRecordLocBytes;
    const uint64_t n = std::min(header.length - index,
                                store_format::kEntriesPerSegment - in_segment);
    LOADERX_ASSIGN_OR_RETURN(VfsFile * segment,
                             files.Segment(SegmentOf(index)));
    const uint64_t base = index - in_segment;
    LOADERX_RETURN_IF_ERROR(ScanSegment(
        *segment, in_segment, n, [&](uint64_t position, const RecordLoc& loc) {
          return CheckRecordLoc(base + position, loc, bounds);
        }));
    index += n;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<RecordEngine>> RecordEngine::Open(
    Vfs& vfs, absl::string_view directory, const RecordEngineOptions& options) {
  LOADERX_RETURN_IF_ERROR(ValidatePath(directory));
  const bool read_only = options.read_only;
  const std::string dir(directory);
  const std::string meta_path = JoinPath(dir, store_format::kHeaderFile);
  absl::StatusOr<std::unique_ptr<VfsFile>> meta = vfs.Open(
      meta_path, read_only ? OpenMode::kReadOnly : OpenMode::kReadWrite);
  if (absl::IsNotFound(meta.status())) {
    return absl::NotFoundError(
        absl::StrCat("no store at ", dir, " (", meta.status().message(), ")"));
  }
  LOADERX_RETURN_IF_ERROR(meta.status());
  LOADERX_RETURN_IF_ERROR(LockStore(**meta, read_only));

  // What this library left: the durable state, the seal, the journal.
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<IntegrityFile> integrity,
                           IntegrityFile::Open(vfs, dir, read_only));
  std::optional<StateSlot> state;
  std::optional<CommitSeal> seal;
  if (integrity != nullptr) {
    state = integrity->state();
    LOADERX_ASSIGN_OR_RETURN(seal, integrity->ReadSeal());
  }
  LOADERX_ASSIGN_OR_RETURN(uint64_t meta_size, (*meta)->Size());
  std::string bytes(std::min<uint64_t>(meta_size, kHeaderBytes + 1), '\0');
  LOADERX_RETURN_IF_ERROR((*meta)->ReadAt(0, absl::MakeSpan(bytes)));
  std::optional<uint64_t> stamp;
  if (absl::StatusOr<uint64_t> now = (*meta)->ModificationStamp(); now.ok()) {
    stamp = *now;
  }
  const bool foreign =
      state.has_value() && WrittenElsewhere(stamp, bytes, seal, *state);
  // An unfinished step of ours is finished, unless another program wrote
  // the store since: its state supersedes the step.
  LOADERX_ASSIGN_OR_RETURN(std::optional<JournalRecord> journal,
                           Journal::Read(vfs, dir));
  const bool stale_journal = journal.has_value() && foreign;
  if (stale_journal) journal.reset();

  std::vector<PhysicalHeader> candidates;
  bool restored = false;  // meta.zr is replaced by a header we know.
  if (journal.has_value()) {
    candidates.push_back(journal->header);
  } else {
    LOADERX_ASSIGN_OR_RETURN(
        candidates, CandidateHeaders(bytes, meta_path, seal, state, foreign,
                                     stamp.has_value(), restored));
  }
  // Recovering: the most recent header whose table validates.
  absl::Status rejected;
  for (size_t i = 0; restored && i < candidates.size(); ++i) {
    absl::Status valid = ValidateHeader(vfs, dir, candidates[i],
                                        options.codec_options.level, state);
    if (valid.ok()) {
      candidates = {candidates[i]};
      break;
    }
    if (!absl::IsDataLoss(valid)) return valid;
    if (rejected.ok()) rejected = valid;
    if (i + 1 == candidates.size()) return rejected;
  }
  const PhysicalHeader header = candidates[0];

  LOADERX_ASSIGN_OR_RETURN(
      std::unique_ptr<Codec> codec,
      LoadCodec(vfs, dir, header.codec, options.codec_options.level,
                state.has_value() ? state->dictionary_checksum : std::nullopt));
  auto files =
      std::make_unique<StoreFiles>(vfs, dir, *std::move(meta), read_only);
  LOADERX_RETURN_IF_ERROR(OpenStoreFiles(*files, header));

  std::unique_ptr<RecordEngine> engine(
      new RecordEngine(std::move(files), std::move(codec), std::move(integrity),
                       options, header));
  engine->meta_stamp_ = stamp.value_or(0);
  engine->last_written_ = integrity_format::MetaBytesOf(header);
  if (state.has_value()) {
    LOADERX_ASSIGN_OR_RETURN(
        engine->findings_,
        FindingsAt(*state, header, dir,
                   /*explained=*/journal.has_value() || restored));
    engine->findings_.written_elsewhere = foreign;
    engine->epoch_ = state->epoch;
    engine->trusted_ = !foreign;
    engine->state_behind_ = state->meta != engine->last_written_ ||
                            state->meta_stamp != engine->meta_stamp_;
  }
  if (journal.has_value()) {
    // The store the step would leave is checked before the step is
    // finished: an intact record whose entries lie past its own length or
    // outside the chunks is damage, and installing it would write it into
    // the table (or truncate a chunk to a frontier it invents).
    for (const JournalEntry& entry : journal->entries) {
      if (entry.index >= header.length) {
        return absl::DataLossError(absl::StrCat(
            dir, "/", kJournalFile, ": the unfinished step sets record ",
            entry.index, " of a store of ", header.length,
            " (damaged journal)"));
      }
      engine->overlay_[entry.index] = entry;
    }
    LOADERX_RETURN_IF_ERROR(engine->Validate());
    // A writable handle installs the entries instead (below).
    if (!read_only) engine->overlay_.clear();
  }
  if (!read_only && (journal.has_value() || restored)) {
    std::lock_guard lock(engine->writer_mu_);
    if (journal.has_value()) {
      // Finished, the step must not be replayed again over later writes.
      LOADERX_RETURN_IF_ERROR(engine->Install(*journal, /*replay=*/true));
      engine->journal_ =
          std::make_unique<Journal>(vfs, engine->files_->directory());
      LOADERX_RETURN_IF_ERROR(engine->journal_->Clear());
    } else {
      LOADERX_RETURN_IF_ERROR(engine->WriteHeader(header));
      LOADERX_RETURN_IF_ERROR(engine->SyncLocked());
    }
  }
  LOADERX_RETURN_IF_ERROR(engine->Validate());
  if (!read_only) engine->PrepareAdoption(stale_journal);
  return engine;
}

absl::Status RecordEngine::Validate() const {
  const PhysicalHeader header = header_;
  LOADERX_ASSIGN_OR_RETURN(
      const TableBounds bounds,
      MeasureChunks(
          files_->directory(), header,
          [&](uint64_t id) -> absl::StatusOr<const VfsFile*> {
            return files_->Chunk(id);
          },
          *codec_));
  return ForEachLoc(header.length, [&](uint64_t index, const RecordLoc& loc) {
    return CheckRecordLoc(index, loc, bounds);
  });
}

void RecordEngine::PrepareAdoption(bool stale_journal) {
  std::lock_guard lock(writer_mu_);
  clear_stale_journal_ = stale_journal;
  if (integrity_ == nullptr || !integrity_->state().has_value()) {
    // A store written by a program that keeps no checksums (or whose
    // checksums.lx lost both state slots): this handle's appends will get
    // checksums of epoch 1, once `AdoptLocked` has made the file.
    integrity_published_.store(false, std::memory_order_release);
    integrity_.reset();
    epoch_ = 1;
    trusted_ = true;
    adoption_pending_ = true;
    return;
  }
  if (!trusted_) {
    // Another program wrote the store: the checksums made before can no
    // longer tell damage from its rewrites. Those made from now on can.
    ++epoch_;
    trusted_ = true;
    state_behind_ = true;
  }
  adoption_pending_ = stale_journal || state_behind_;
}

absl::Status RecordEngine::AdoptLocked() {
  if (adoption_pending_) {
    if (clear_stale_journal_) {
      journal_ = std::make_unique<Journal>(files_->vfs(), files_->directory());
      LOADERX_RETURN_IF_ERROR(journal_->Clear());
      clear_stale_journal_ = false;
    }
    if (integrity_ == nullptr) {
      // The records already there stay unverified; the dictionary is taken
      // as it is. The durable state may only describe a synced store.
      files_->MarkAllWritten();
      LOADERX_RETURN_IF_ERROR(files_->SyncWritten(nullptr));
      {
        std::lock_guard findings_lock(findings_mu_);
        findings_.adopted = true;
      }
      StateSlot state;
      state.metadata_adopted = true;
      state.epoch = epoch_;
      state.meta = integrity_format::MetaBytesOf(header_);
      state.meta_stamp = meta_stamp_;
      if (pending_typed_header_.has_value()) {
        state.typed_header_checksum = Checksum(*pending_typed_header_);
      }
      const std::string dictionary_path =
          files_->PathOf(store_format::kDictionaryFile);
      LOADERX_ASSIGN_OR_RETURN(const bool has_dictionary,
                               files_->vfs().Exists(dictionary_path));
      if (has_dictionary) {
        LOADERX_ASSIGN_OR_RETURN(
            std::string dictionary,
            ReadMetadataFile(files_->vfs(), dictionary_path,
                             kMaxDictionaryBytes));
        state.dictionary_checksum = Checksum(dictionary);
      }
      LOADERX_ASSIGN_OR_RETURN(
          std::unique_ptr<IntegrityFile> integrity,
          IntegrityFile::Create(files_->vfs(), files_->directory(), state));
      LOADERX_RETURN_IF_ERROR(
          integrity->WriteSeal({false, state.meta, state.meta, meta_stamp_}));
      LOADERX_RETURN_IF_ERROR(integrity->Sync());
      integrity_ = std::move(integrity);
      integrity_published_.store(true, std::memory_order_release);
      pending_typed_header_.reset();
      state_behind_ = false;
    }
    if (pending_typed_header_.has_value()) {
      StateSlot state = *integrity_->state();
      state.typed_header_checksum = Checksum(*pending_typed_header_);
      LOADERX_RETURN_IF_ERROR(integrity_->WriteState(std::move(state)));
      pending_typed_header_.reset();
    }
    if (state_behind_) {
      // The last handle (or another program) may have left the store
      // unsynced.
      files_->MarkAllWritten();
      integrity_->MarkWritten();
      LOADERX_RETURN_IF_ERROR(SyncLocked());
    }
    adoption_pending_ = false;
  }
  if (!journal_reserved_) {
    // Best effort: a full disk refuses it, and the mutation goes on (a
    // delete then needs the space its journal record takes).
    journal_reserved_ = true;
    if (journal_ == nullptr) {
      journal_ = std::make_unique<Journal>(files_->vfs(), files_->directory());
    }
    (void)journal_->Reserve();
  }
  return absl::OkStatus();
}

}  // namespace loaderx
