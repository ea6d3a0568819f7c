#include "src/integrity_file.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/spi/path.h"
#include "loaderx/spi/status_macros.h"

namespace loaderx {
namespace {

using integrity_format::ChecksumEntry;
using integrity_format::CommitSeal;
using integrity_format::kEntryBytes;
using integrity_format::StateSlot;

// The bytes at `[offset, offset + size)`, cut short where the file ends.
absl::StatusOr<std::string> ReadUpTo(const VfsFile& file, uint64_t offset,
                                     uint64_t size) {
  LOADERX_ASSIGN_OR_RETURN(const uint64_t file_size, file.Size());
  if (offset >= file_size) return std::string();
  std::string bytes(std::min(size, file_size - offset), '\0');
  LOADERX_RETURN_IF_ERROR(file.ReadAt(offset, absl::MakeSpan(bytes)));
  return bytes;
}

}  // namespace

absl::StatusOr<std::unique_ptr<IntegrityFile>> IntegrityFile::Open(
    Vfs& vfs, absl::string_view directory, bool read_only) {
  const std::string path =
      JoinPath(std::string(directory), integrity_format::kIntegrityFile);
  absl::StatusOr<std::unique_ptr<VfsFile>> file =
      vfs.Open(path, read_only ? OpenMode::kReadOnly : OpenMode::kReadWrite);
  if (absl::IsNotFound(file.status())) {
    return std::unique_ptr<IntegrityFile>();
  }
  LOADERX_RETURN_IF_ERROR(file.status());
  std::optional<StateSlot> state;
  int current = 1;
  for (int slot = 0; slot < 2; ++slot) {
    LOADERX_ASSIGN_OR_RETURN(
        std::string bytes, ReadUpTo(**file, integrity_format::kSlotOffset[slot],
                                    integrity_format::kSlotBytes));
    std::optional<StateSlot> decoded = integrity_format::DecodeSlot(bytes);
    if (decoded && (!state || decoded->sequence > state->sequence)) {
      state = std::move(decoded);
      current = slot;
    }
  }
  return std::unique_ptr<IntegrityFile>(
      new IntegrityFile(*std::move(file), std::move(state), current));
}

absl::StatusOr<std::unique_ptr<IntegrityFile>> IntegrityFile::Create(
    Vfs& vfs, absl::string_view directory, const StateSlot& state, bool sync) {
  const std::string dir(directory);
  const std::string path = JoinPath(dir, integrity_format::kIntegrityFile);
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<VfsFile> file,
                           vfs.Open(path, OpenMode::kCreate));
  LOADERX_RETURN_IF_ERROR(file->Truncate(0));
  std::unique_ptr<IntegrityFile> created(
      new IntegrityFile(std::move(file), std::nullopt, /*slot=*/1));
  LOADERX_RETURN_IF_ERROR(created->WriteState(state, sync));
  if (sync) LOADERX_RETURN_IF_ERROR(vfs.SyncDirectory(dir));
  return created;
}

absl::Status IntegrityFile::WriteState(StateSlot state, bool sync) {
  state.sequence = state_ ? state_->sequence + 1 : 1;
  const int next = 1 - current_slot_;
  LOADERX_RETURN_IF_ERROR(file_->WriteAt(integrity_format::kSlotOffset[next],
                                         integrity_format::EncodeSlot(state)));
  if (sync) {
    LOADERX_RETURN_IF_ERROR(file_->SyncData());
    dirty_ = false;
  } else {
    dirty_ = true;
  }
  state_ = std::move(state);
  current_slot_ = next;
  return absl::OkStatus();
}

absl::StatusOr<std::optional<CommitSeal>> IntegrityFile::ReadSeal() const {
  LOADERX_ASSIGN_OR_RETURN(std::string bytes,
                           ReadUpTo(*file_, integrity_format::kSealOffset,
                                    integrity_format::kSealBytes));
  return integrity_format::DecodeSeal(bytes);
}

absl::Status IntegrityFile::WriteSeal(const CommitSeal& seal) {
  dirty_ = true;
  return file_->WriteAt(integrity_format::kSealOffset,
                        integrity_format::EncodeSeal(seal));
}

absl::Status IntegrityFile::ReadEntries(uint64_t first,
                                        absl::Span<ChecksumEntry> out) const {
  if (out.empty()) return absl::OkStatus();
  const uint64_t offset = integrity_format::EntryOffset(first);
  std::string bytes(out.size() * kEntryBytes, '\0');
  absl::Status read = file_->ReadAt(offset, absl::MakeSpan(bytes));
  if (absl::IsOutOfRange(read)) {
    // Records appended by a program that does not keep this file.
    LOADERX_ASSIGN_OR_RETURN(bytes, ReadUpTo(*file_, offset, bytes.size()));
  } else {
    LOADERX_RETURN_IF_ERROR(read);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = (i + 1) * kEntryBytes <= bytes.size()
                 ? integrity_format::DecodeEntry(&bytes[i * kEntryBytes])
                 : ChecksumEntry{};
  }
  return absl::OkStatus();
}

absl::StatusOr<ChecksumEntry> IntegrityFile::ReadEntry(uint64_t index) const {
  ChecksumEntry entry;
  LOADERX_RETURN_IF_ERROR(ReadEntries(index, absl::MakeSpan(&entry, 1)));
  return entry;
}

absl::Status IntegrityFile::WriteEntries(
    uint64_t first, absl::Span<const ChecksumEntry> entries) {
  if (entries.empty()) return absl::OkStatus();
  std::string bytes(entries.size() * kEntryBytes, '\0');
  for (size_t i = 0; i < entries.size(); ++i) {
    integrity_format::EncodeEntry(entries[i], &bytes[i * kEntryBytes]);
  }
  return WriteEncodedEntries(first, bytes);
}

absl::Status IntegrityFile::WriteEncodedEntries(uint64_t first,
                                                absl::string_view bytes) {
  if (bytes.size() % kEntryBytes != 0) {
    return absl::InternalError(absl::StrCat("checksum entries: ", bytes.size(),
                                            " bytes are not whole entries"));
  }
  if (bytes.empty()) return absl::OkStatus();
  dirty_ = true;
  return file_->WriteAt(integrity_format::EntryOffset(first), bytes);
}

absl::Status IntegrityFile::TruncateEntries(uint64_t count) {
  LOADERX_ASSIGN_OR_RETURN(const uint64_t size, file_->Size());
  const uint64_t end = integrity_format::EntryOffset(count);
  if (size <= end) return absl::OkStatus();
  dirty_ = true;
  return file_->Truncate(end);
}

absl::Status IntegrityFile::Sync() {
  if (!dirty_) return absl::OkStatus();
  LOADERX_RETURN_IF_ERROR(file_->SyncData());
  dirty_ = false;
  return absl::OkStatus();
}

}  // namespace loaderx
