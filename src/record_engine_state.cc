// `RecordEngine`'s durable state: the commit seal around every meta.zr
// write, the ordered sync, the durable state in checksums.lx, and store.zr's
// checksum kept there (see `integrity_format.h` for the bytes).

#include <algorithm>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "loaderx/spi/status_macros.h"
#include "src/checksum.h"
#include "src/record_engine.h"

namespace loaderx {
namespace {

using integrity_format::MetaBytesOf;
using store_format::PhysicalHeader;

}  // namespace

absl::Status RecordEngine::WriteHeader(const PhysicalHeader& header) {
  const integrity_format::MetaBytes bytes = MetaBytesOf(header);
  // The seal says a write of these bytes is under way, so that a store
  // left with them after a crash is not mistaken for one another program
  // wrote (see `integrity_format.h`).
  if (integrity_ != nullptr) {
    LOADERX_RETURN_IF_ERROR(
        integrity_->WriteSeal({true, bytes, last_written_, meta_stamp_}));
  }
  LOADERX_RETURN_IF_ERROR(
      files_->meta().WriteAt(0, absl::string_view(bytes.data(), bytes.size())));
  state_behind_ = true;
  if (integrity_ == nullptr) return absl::OkStatus();
  if (absl::StatusOr<uint64_t> now = files_->meta().ModificationStamp();
      now.ok()) {
    meta_stamp_ = *now;
  }
  last_written_ = bytes;
  return integrity_->WriteSeal({false, bytes, bytes, meta_stamp_});
}

absl::Status RecordEngine::Sync() {
  std::lock_guard lock(writer_mu_);
  // Nothing was written through this handle yet: nothing to make durable
  // (and nothing is written for it; see `AdoptLocked`).
  if (adoption_pending_) return absl::OkStatus();
  return SyncLocked();
}

absl::Status RecordEngine::SyncLocked() {
  if (read_only_) return absl::OkStatus();
  LOADERX_RETURN_IF_ERROR(files_->SyncWritten(integrity_.get()));
  if (!state_behind_) return absl::OkStatus();
  LOADERX_RETURN_IF_ERROR(WriteDurableState());
  state_behind_ = false;
  return absl::OkStatus();
}

absl::Status RecordEngine::WriteDurableState() {
  if (integrity_ == nullptr || !integrity_->state()) return absl::OkStatus();
  integrity_format::StateSlot state = *integrity_->state();
  state.meta = MetaBytesOf(header_);
  state.meta_stamp = meta_stamp_;
  state.epoch = epoch_;
  {
    std::lock_guard lock(findings_mu_);
    state.metadata_adopted = findings_.adopted;
    state.removed_records = findings_.removed_records;
    state.removed_from_length = findings_.removed_from_length;
    state.reappeared_records = findings_.reappeared_records;
  }
  return integrity_->WriteState(std::move(state));
}

void RecordEngine::FindMetadataProblems(VerifyReport& report,
                                        uint64_t group) const {
  MetadataFindings findings;
  {
    std::lock_guard lock(findings_mu_);
    findings = findings_;
  }
  group = std::max<uint64_t>(group, 1);
  findings.removed_records /= group;
  findings.removed_from_length /= group;
  findings.reappeared_records /= group;
  report.removed_records = findings.removed_records;
  if (findings.removed_records > 0) {
    report.metadata_problems.push_back(absl::StrCat(
        findings.removed_records,
        " records past the length were removed by another writer or by "
        "damage to meta.zr (the store had ",
        findings.removed_from_length, " records, meta.zr now says ",
        length() / group, "); accept this if another program deleted them"));
  }
  if (findings.reappeared_records > 0) {
    report.metadata_problems.push_back(absl::StrCat(
        findings.reappeared_records,
        " records past the length the store had reappeared without a byte "
        "written for them (meta.zr's length grew, its frontier did not): "
        "damage to meta.zr, or records another writer deleted coming back"));
  }
  if (findings.adopted) {
    report.metadata_verified = false;
    report.notes.push_back(
        "store.zr and dict.zr were adopted as found: their checksums were "
        "made by this library from files it did not write, so they are not "
        "verified");
  }
  if (findings.written_elsewhere) {
    report.notes.push_back(
        "another program wrote this store since loaderx last did: records it "
        "wrote or moved have no checksum to check");
  }
}

absl::Status RecordEngine::AcceptMetadataProblems() {
  std::lock_guard lock(writer_mu_);
  LOADERX_RETURN_IF_ERROR(RequireWritable("accept metadata problems"));
  LOADERX_RETURN_IF_ERROR(AdoptLocked());
  {
    std::lock_guard findings_lock(findings_mu_);
    findings_.removed_records = 0;
    findings_.removed_from_length = 0;
    findings_.reappeared_records = 0;
  }
  state_behind_ = true;
  return SyncLocked();
}

absl::Status RecordEngine::RecordTypedHeader(absl::string_view bytes) {
  std::lock_guard lock(writer_mu_);
  LOADERX_RETURN_IF_ERROR(RequireWritable("record store.zr's checksum"));
  LOADERX_RETURN_IF_ERROR(AdoptLocked());
  if (integrity_ == nullptr || !integrity_->state()) return absl::OkStatus();
  integrity_format::StateSlot state = *integrity_->state();
  state.typed_header_checksum = Checksum(bytes);
  return integrity_->WriteState(std::move(state));
}

absl::StatusOr<bool> RecordEngine::CheckTypedHeader(absl::string_view bytes) {
  std::unique_lock lock(writer_mu_);
  const bool has_state = integrity_ != nullptr && integrity_->state();
  const std::optional<uint64_t> expected =
      has_state ? integrity_->state()->typed_header_checksum : std::nullopt;
  if (!expected.has_value()) {
    // Recorded by the first mutation, not here: an open writes nothing.
    // Taken as found, it is never "verified" afterwards.
    if (!read_only_) {
      pending_typed_header_ = std::string(bytes);
      adoption_pending_ = true;
      std::lock_guard findings_lock(findings_mu_);
      findings_.adopted = true;
    }
    return false;
  }
  if (Checksum(bytes) != *expected) {
    return absl::DataLossError(absl::StrCat(
        files_->PathOf("store.zr"),
        " does not match the checksum written with it (damaged store)"));
  }
  return true;
}

}  // namespace loaderx
